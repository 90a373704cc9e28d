'use client';

import { useState } from 'react';
import type { CSSProperties, ReactNode } from 'react';
import { visibleRange } from './virtual-window.ts';

/**
 * A scroll box that renders only the rows in view (fixed row height), for long secondary lists
 * such as the pods of a 1,000-pod workload. `header` stays on top.
 */
export function WindowedList({ count, rowHeight, maxHeight, header, renderRow, label }: { count: number; rowHeight: number; maxHeight: number; header?: ReactNode; renderRow(index: number, style: CSSProperties): ReactNode; label: string }) {
  const [scrollTop, setScrollTop] = useState(0);
  const headerHeight = header ? rowHeight : 0;
  const height = Math.min(maxHeight, count * rowHeight + headerHeight);
  const range = visibleRange(scrollTop, height - headerHeight, rowHeight, count, 6);
  const rows: ReactNode[] = [];
  for (let i = range.start; i < range.end; i++) rows.push(renderRow(i, { position: 'absolute', top: i * rowHeight, left: 0, right: 0, height: rowHeight }));
  return (
    // Focusable: a keyboard user must be able to scroll it even when no row holds a control.
    <div role="table" tabIndex={0} aria-label={label} aria-rowcount={count + (header ? 1 : 0)} className="overflow-auto" style={{ height }} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
      {header && <div className="sticky top-0 z-10">{header}</div>}
      <div role="rowgroup" className="relative" style={{ height: count * rowHeight }}>
        {rows}
      </div>
    </div>
  );
}
