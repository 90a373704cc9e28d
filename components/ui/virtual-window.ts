/**
 * Windowing for fixed-height rows: which rows to render for a scroll position, where to scroll to
 * reveal a row, and how to keep the row at the top of the viewport in place when rows are
 * inserted or removed above it (so live updates never move what the user is reading).
 */

export interface Range {
  start: number;
  /** Exclusive. */
  end: number;
}

export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan = 8): Range {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(0, viewport) / rowHeight) + 1;
  const start = Math.max(0, Math.min(count - 1, first) - overscan);
  const end = Math.min(count, first + visible + overscan);
  return { start, end: Math.max(start, end) };
}

/** The scrollTop that brings row `index` fully into view, moving as little as possible. */
export function revealScrollTop(index: number, scrollTop: number, viewport: number, rowHeight: number): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewport) return Math.max(0, bottom - viewport);
  return scrollTop;
}

export interface ScrollAnchor {
  id: string;
  /** Pixels of the anchor row already scrolled past. */
  offset: number;
}

export function anchorAt(ids: readonly string[], scrollTop: number, rowHeight: number): ScrollAnchor | null {
  // At the very top there is nothing to hold: new rows at the top should come into view.
  if (scrollTop <= 0 || ids.length === 0) return null;
  const i = Math.min(ids.length - 1, Math.floor(scrollTop / rowHeight));
  return { id: ids[i], offset: scrollTop - i * rowHeight };
}

/** The scrollTop that keeps the anchor row where it was, or null when that row is gone. */
export function restoreAnchor(anchor: ScrollAnchor | null, indexOf: (id: string) => number, rowHeight: number): number | null {
  if (!anchor) return null;
  const i = indexOf(anchor.id);
  return i < 0 ? null : i * rowHeight + anchor.offset;
}
