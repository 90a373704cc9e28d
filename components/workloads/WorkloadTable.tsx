'use client';

import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent, ReactNode } from 'react';
import type { ClusterUsage, WorkloadRow } from '../../contract/index.ts';
import { KindIcon } from '../ui/KindIcon.tsx';
import { StatusBadge } from '../ui/StatusBadge.tsx';
import { anchorAt, restoreAnchor, revealScrollTop, visibleRange } from '../ui/virtual-window.ts';
import { GpuCell } from './GpuCell.tsx';
import { gridMinWidth } from './grid-width.ts';
import { IdleCell, MemoryCell, UtilCell } from './UsageCells.tsx';
import { tableColumns, type RowColumn, type SortKey, type SortOrder } from '../../lib/rows/index.ts';
import { workloadHref } from './workload-href.ts';
import { podsText } from './pods-text.ts';
import { whyShort } from './why-text.ts';
import { rememberTableFocus, type FocusMemory } from './last-view.ts';

export const ROW_HEIGHT = 44;
const HEADER_HEIGHT = 36;
// The table shows the CLI's default columns (with namespace and cluster) and the utilization ones.
const TABLE_COLUMNS = tableColumns();
const GRID = TABLE_COLUMNS.map((c) => c.width).join(' ');
// Rows are `gap-3` (12px) and `px-3` (24px): below this width the columns scroll sideways with the header.
const MIN_WIDTH = gridMinWidth(TABLE_COLUMNS.map((c) => c.width), 12, 24);

function SortButton({ k, label, title, sort, order, onSort }: { k: SortKey; label: string; title?: string; sort: SortKey; order: SortOrder; onSort(k: SortKey): void }) {
  const on = sort === k;
  return (
    <button
      type="button"
      onClick={() => onSort(k)}
      title={title ?? `Sort by ${label}`}
      className={`inline-flex items-center gap-0.5 rounded px-0.5 hover:text-slate-900 dark:hover:text-white ${on ? 'text-slate-900 dark:text-white' : ''}`}
    >
      {label}
      <span aria-hidden="true" className={`text-[10px] ${on ? '' : 'invisible'}`}>
        {order === 'asc' ? '▲' : '▼'}
      </span>
    </button>
  );
}

/** What a row's ownership note says, for people. */
function ownershipText(o: WorkloadRow['ownership']): string {
  if (o.broken) return `Ownership: ${o.broken}`;
  const by = o.ownedBy!;
  return `Owned by ${by.kind} ${by.namespace ? `${by.namespace}/` : ''}${by.name} (${by.apiVersion}), which no definition describes`;
}

/** One cell: the column's text, with a richer rendering where the table has one (badge, bar, link). */
function Cell({ column, row, index, now, href, cluster }: { column: RowColumn; row: WorkloadRow; index: number; now: number; href: string; cluster?: ClusterUsage }) {
  const muted = 'truncate text-slate-600 dark:text-slate-300';
  switch (column.key) {
    case 'kind':
      return (
        <div role="gridcell" className="flex min-w-0 items-center gap-2">
          <KindIcon apiVersion={row.apiVersion} kind={row.kind} />
          <span className={muted} title={`${row.kind} (${row.apiVersion})`}>
            {column.text(row, now)}
          </span>
          {row.definition.source === 'none' && (
            <span className="shrink-0 rounded bg-slate-200 px-1 text-[10px] font-semibold text-slate-700 dark:bg-slate-700 dark:text-slate-200" title="No definition describes this kind: its pods and GPUs are exact, what it asks for is unknown, its status comes from its pods" data-testid="no-definition">
              no definition
            </span>
          )}
        </div>
      );
    case 'name':
      return (
        <div role="gridcell" className="flex min-w-0 items-center gap-1">
          {/* A plain anchor: next/link is heavier, and 10,000 rows scroll through it. Clicks are routed by the row. */}
          <a href={href} tabIndex={-1} className="truncate font-medium text-slate-900 hover:underline dark:text-slate-100" title={row.name}>
            {row.name}
          </a>
          {row.stale && (
            <span className="shrink-0 text-xs text-amber-700 dark:text-amber-400" title={`Stale since ${new Date(row.stale.since).toLocaleTimeString()}: ${row.stale.reason}`} aria-label="stale" data-testid="row-stale">
              ⏱
            </span>
          )}
          {(row.ownership.ownedBy || row.ownership.broken) && (
            <span className="shrink-0 text-xs text-slate-500 dark:text-slate-400" title={ownershipText(row.ownership)} aria-label={ownershipText(row.ownership)} data-testid="row-ownership">
              {row.ownership.broken ? '⛓' : '↑'}
            </span>
          )}
          {row.errors.length > 0 && (
            <span className="shrink-0 text-xs text-red-600 dark:text-red-400" title={row.errors.join('\n')} aria-label={`${row.errors.length} errors`}>
              ⚠
            </span>
          )}
        </div>
      );
    case 'status': {
      const why = whyShort(row.why);
      const whyId = `wl-why-${index}`;
      return (
        // The why is the cell's description: read after the status, as the tooltip shows it.
        <div role="gridcell" className="min-w-0" aria-describedby={why ? whyId : undefined}>
          <StatusBadge status={row.status} reason={row.statusReason} others={row.statuses} why={why} />
          {why && (
            <span id={whyId} hidden>
              {why}
            </span>
          )}
        </div>
      );
    }
    case 'gpus':
      return (
        <div role="gridcell" className="min-w-0">
          <GpuCell gpus={row.gpus} />
        </div>
      );
    case 'util':
      return <UtilCell row={row} cluster={cluster} />;
    case 'memory':
      return <MemoryCell row={row} cluster={cluster} />;
    case 'idle':
      return <IdleCell row={row} cluster={cluster} now={now} />;
    case 'pods': {
      if (row.pods.unknown) {
        return (
          <div role="gridcell" className="text-right tabular-nums text-slate-600 dark:text-slate-400" title="Pods cannot be read (forbidden or never listed): unknown, not 0">
            ?
          </div>
        );
      }
      const p = podsText(row.pods);
      return (
        <div role="gridcell" className="truncate text-right tabular-nums" title={p.title} data-testid="cell-pods">
          {p.ready && (
            <>
              <span className={p.warn ? 'text-amber-800 dark:text-amber-300' : ''}>{p.ready.ready}</span>
              <span className="text-slate-600 dark:text-slate-400">/{p.ready.of}</span>
            </>
          )}
          {/* The column is narrow: finished pods beside running ones are a check mark and a count (the title says it in words). */}
          {p.done > 0 &&
            (p.ready ? (
              <span className="ml-1 text-slate-600 dark:text-slate-300" data-testid="pods-done">
                <span aria-hidden="true">✓</span>
                {p.done}
                <span className="sr-only"> done</span>
              </span>
            ) : (
              <span className="text-slate-600 dark:text-slate-300" data-testid="pods-done">
                {p.done} done
              </span>
            ))}
        </div>
      );
    }
    case 'roles':
      return (
        <div role="gridcell" className={muted} title={row.roles.map((r) => `${r.name}: ${r.pods}/${r.desired} pods`).join('\n') || 'no roles'}>
          {column.text(row, now) ?? '—'}
        </div>
      );
    case 'age':
      return (
        <div role="gridcell" className="text-right tabular-nums text-slate-600 dark:text-slate-300" title={row.createdAt ?? 'unknown'}>
          {column.text(row, now)}
        </div>
      );
    default: {
      const text = column.text(row, now) ?? '—';
      return (
        <div role="gridcell" className={`${muted} ${column.align === 'right' ? 'text-right' : ''}`} title={text}>
          {text}
        </div>
      );
    }
  }
}

const Row = memo(function Row({ row, index, active, stale, now, onPick, cluster }: { row: WorkloadRow; index: number; active: boolean; stale: boolean; now: number; onPick(index: number, open: boolean): void; cluster?: ClusterUsage }) {
  const href = workloadHref(row);
  return (
    <div
      role="row"
      id={`wl-row-${index}`}
      aria-rowindex={index + 2}
      aria-selected={active}
      data-row-id={row.id}
      data-stale={stale || undefined}
      onClick={(e) => {
        // A modified or middle click on the name is the browser's (new tab, copy link).
        if ((e.target as HTMLElement).closest('a') && (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0)) return;
        e.preventDefault();
        onPick(index, true);
      }}
      className={`absolute left-0 right-0 grid cursor-pointer items-center gap-3 border-b border-slate-100 px-3 text-sm dark:border-slate-800 ${active ? 'bg-sky-50 outline-2 -outline-offset-2 outline-sky-500 dark:bg-sky-950/60' : 'hover:bg-slate-50 dark:hover:bg-slate-900'} ${stale ? 'opacity-60' : ''}`}
      style={{ top: index * ROW_HEIGHT, height: ROW_HEIGHT, gridTemplateColumns: GRID }}
    >
      {TABLE_COLUMNS.map((c) => (
        <Cell key={c.key} column={c} row={row} index={index} now={now} href={href} cluster={cluster} />
      ))}
    </div>
  );
});

export interface WorkloadTableProps {
  rows: WorkloadRow[];
  sort: SortKey;
  order: SortOrder;
  onSort(k: SortKey): void;
  onOpen(row: WorkloadRow): void;
  now: number;
  /** Changes when the view (filters, sort) changes: scroll back to the top then. */
  resetKey: string;
  /** Shown instead of rows (loading, empty, no match). */
  placeholder?: ReactNode;
  label: string;
  /** Each cluster's utilization source, by name: why a row's utilization is "n/a". */
  clusterUsage?: ReadonlyMap<string, ClusterUsage>;
  /** The whole view is out of date (the stream is down): its rows are dimmed. */
  stale?: boolean;
  /** Rows out of date one by one (an unreachable cluster, kinds that cannot be read): dimmed. */
  rowStale?: (row: WorkloadRow) => boolean;
  /** The row to focus and scroll back to (coming back from a workload page); `onFocusRestored` when done. */
  restoreFocus?: FocusMemory | null;
  onFocusRestored?: () => void;
}

export function WorkloadTable({ rows, sort, order, onSort, onOpen: open, now, resetKey, placeholder, label, clusterUsage, stale = false, rowStale, restoreFocus, onFocusRestored }: WorkloadTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(800);
  const [activeId, setActiveId] = useState<string | null>(null);

  const indexById = useMemo(() => {
    const m = new Map<string, number>();
    rows.forEach((r, i) => m.set(r.id, i));
    return m;
  }, [rows]);
  const activeIndex = activeId !== null ? (indexById.get(activeId) ?? -1) : -1;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setViewport(el.clientHeight - HEADER_HEIGHT));
    ro.observe(el);
    setViewport(el.clientHeight - HEADER_HEIGHT);
    return () => ro.disconnect();
  }, []);

  // Live updates keep the row at the top of the viewport in place; a new view starts at the top.
  const prev = useRef<{ rows: WorkloadRow[]; resetKey: string }>({ rows, resetKey });
  useLayoutEffect(() => {
    const el = scroller.current;
    const p = prev.current;
    prev.current = { rows, resetKey };
    if (!el || p.rows === rows) return;
    if (p.resetKey !== resetKey) {
      el.scrollTop = 0;
      return;
    }
    const anchor = anchorAt(
      p.rows.map((r) => r.id),
      el.scrollTop,
      ROW_HEIGHT,
    );
    const top = restoreAnchor(anchor, (id) => indexById.get(id) ?? -1, ROW_HEIGHT);
    if (top !== null && Math.abs(top - el.scrollTop) >= 1) el.scrollTop = top;
  }, [rows, resetKey, indexById]);

  const reveal = useCallback((i: number) => {
    const el = scroller.current;
    if (!el) return;
    const top = revealScrollTop(i, el.scrollTop, el.clientHeight - HEADER_HEIGHT, ROW_HEIGHT);
    if (top !== el.scrollTop) el.scrollTop = top;
  }, []);

  // Opening a workload remembers the row and the scroll position, for the way back.
  const onOpen = useCallback(
    (r: WorkloadRow) => {
      rememberTableFocus({ qs: resetKey, id: r.id, scrollTop: scroller.current?.scrollTop ?? 0 });
      open(r);
    },
    [open, resetKey],
  );

  // Back from a workload page: the row it was opened from is focused and on screen again, as soon
  // as the rows are there (the live store may still be loading after a reload).
  useEffect(() => {
    const el = scroller.current;
    if (!restoreFocus || !el || rows.length === 0) return;
    const i = indexById.get(restoreFocus.id);
    if (i !== undefined) {
      el.scrollTop = restoreFocus.scrollTop;
      reveal(i);
      setScrollTop(el.scrollTop);
      // Focus first: the grid's focus handler picks a row when none is active, and this one must win.
      el.focus({ preventScroll: true });
      setActiveId(restoreFocus.id);
    }
    onFocusRestored?.();
  }, [restoreFocus, rows.length, indexById, reveal, onFocusRestored]);

  const pick = useCallback(
    (i: number, andOpen: boolean) => {
      const r = rows[i];
      if (!r) return;
      setActiveId(r.id);
      if (andOpen) onOpen(r);
    },
    [rows, onOpen],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (rows.length === 0) return;
    const page = Math.max(1, Math.floor(viewport / ROW_HEIGHT) - 1);
    const cur = activeIndex < 0 ? -1 : activeIndex;
    let next: number;
    switch (e.key) {
      case 'ArrowDown':
        next = Math.min(rows.length - 1, cur + 1);
        break;
      case 'ArrowUp':
        next = Math.max(0, cur < 0 ? 0 : cur - 1);
        break;
      case 'PageDown':
        next = Math.min(rows.length - 1, Math.max(0, cur) + page);
        break;
      case 'PageUp':
        next = Math.max(0, cur - page);
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = rows.length - 1;
        break;
      case 'Enter':
        if (cur >= 0) {
          e.preventDefault();
          onOpen(rows[cur]);
        }
        return;
      default:
        return;
    }
    e.preventDefault();
    setActiveId(rows[next].id);
    reveal(next);
  };

  const OVERSCAN = 10;
  const range = visibleRange(scrollTop, viewport, ROW_HEIGHT, rows.length, OVERSCAN);
  // Keys are slots, not row ids: scrolling then updates the same DOM rows in place instead of
  // unmounting and mounting a screenful of them. Contiguous indices modulo the pool never collide.
  const pool = Math.ceil(Math.max(0, viewport) / ROW_HEIGHT) + 2 + 2 * OVERSCAN;
  const visible: ReactNode[] = [];
  for (let i = range.start; i < range.end; i++) {
    visible.push(<Row key={i % pool} row={rows[i]} index={i} active={i === activeIndex} stale={!stale && (rowStale?.(rows[i]) ?? false)} now={now} onPick={pick} cluster={clusterUsage?.get(rows[i].cluster)} />);
  }
  const activeRendered = activeIndex >= range.start && activeIndex < range.end;

  return (
    <div
      ref={scroller}
      role="grid"
      aria-label={label}
      aria-rowcount={rows.length + 1}
      aria-colcount={TABLE_COLUMNS.length}
      aria-activedescendant={activeRendered ? `wl-row-${activeIndex}` : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onFocus={(e) => {
        if (e.target === e.currentTarget && activeIndex < 0 && rows.length > 0) setActiveId(rows[Math.min(rows.length - 1, Math.floor(scrollTop / ROW_HEIGHT))].id);
      }}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      data-testid="workload-table"
      data-rows={rows.length}
      data-stale={stale || undefined}
      aria-describedby={stale ? 'view-stale' : undefined}
      className="relative min-h-0 flex-1 overflow-auto rounded-lg border border-slate-200 bg-white [overflow-anchor:none] focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 dark:border-slate-800 dark:bg-slate-950"
    >
      <div style={{ minWidth: MIN_WIDTH }}>
        <div
          role="row"
          aria-rowindex={1}
          className="sticky top-0 z-10 grid items-center gap-3 border-b border-slate-200 bg-slate-50 px-3 text-xs font-medium text-slate-500 uppercase dark:border-slate-800 dark:bg-slate-900 dark:text-slate-400"
          style={{ height: HEADER_HEIGHT, gridTemplateColumns: GRID }}
        >
          {TABLE_COLUMNS.map((h) => {
            const sorted = h.sorts.some((x) => x.key === sort);
            return (
              <div
                key={h.key}
                role="columnheader"
                aria-sort={sorted ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}
                className={`flex items-center gap-1 ${h.align === 'right' ? 'justify-end' : ''}`}
              >
                {h.sorts.length === 1 ? (
                  <SortButton k={h.sorts[0].key} label={h.header} sort={sort} order={order} onSort={onSort} />
                ) : (
                  <>
                    <span className="mr-1">{h.header}</span>
                    {h.sorts.map((x, i) => (
                      <span key={x.key} className="inline-flex items-center normal-case">
                        {i > 0 && <span className="mx-0.5 text-slate-500 dark:text-slate-400">/</span>}
                        <SortButton k={x.key} label={x.label} title={x.title} sort={sort} order={order} onSort={onSort} />
                      </span>
                    ))}
                  </>
                )}
              </div>
            );
          })}
        </div>
        {placeholder ? (
          <div className="p-0">{placeholder}</div>
        ) : (
          <div role="rowgroup" className={`relative transition-opacity ${stale ? 'opacity-50 grayscale' : ''}`} style={{ height: rows.length * ROW_HEIGHT }}>
            {visible}
          </div>
        )}
      </div>
    </div>
  );
}
