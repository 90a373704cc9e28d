'use client';

import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import type { ClusterUsage, WorkloadRow } from '../../contract/index.ts';
import { describeConnection } from '../live/connection-label.ts';
import { rowIsStale, unreachableClusters, viewFreshness } from '../live/view-freshness.ts';
import { useConnection, useLiveRows, useNow } from '../live/LiveProvider.tsx';
import { Notices } from '../ui/Notices.tsx';
import { clusterNotices } from './cluster-notices.ts';
import { FilterBar } from './FilterBar.tsx';
import { CapacityTotals } from '../nodes/CapacityTotals.tsx';
import type { Facets } from './FilterBar.tsx';
import { formatGpus } from '../../lib/format/gpus.ts';
import { clearFilters, encodeQuery as encodeView, facetCounts, hasFilters, parseQuery, runQuery, toggleSort, type SortKey } from '../../lib/rows/index.ts';
import { takeTableFocus, type FocusMemory } from './last-view.ts';
import { donePods } from './pods-text.ts';
import { rangeConflict } from './range-input.ts';
import { ROW_HEIGHT, WorkloadTable } from './WorkloadTable.tsx';
import { workloadHref } from './workload-href.ts';
import { useUrlView } from './use-url-view.ts';
import { UtilizationTotals } from './UtilizationTotals.tsx';

const STATUS_VOCABULARY = ['Running', 'Initializing', 'Degraded', 'Failed', 'Completed', 'Suspended', 'Suspending', 'Resuming', 'Undefined'];

function Placeholder({ title, detail, action }: { title: string; detail?: string; action?: { label: string; onClick(): void } }) {
  return (
    <div className="relative" style={{ height: ROW_HEIGHT * 8 }} role="status" aria-live="polite" data-testid="table-placeholder">
      {Array.from({ length: 8 }, (_, i) => (
        <div key={i} className="border-b border-slate-100 dark:border-slate-800" style={{ height: ROW_HEIGHT }} aria-hidden="true" />
      ))}
      <div className="absolute inset-0 flex flex-col items-center justify-center gap-2 text-center">
        <p className="text-base font-medium text-slate-700 dark:text-slate-200">{title}</p>
        {detail && <p className="max-w-xl text-sm text-slate-500 dark:text-slate-400">{detail}</p>}
        {action && (
          <button type="button" onClick={action.onClick} className="rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800">
            {action.label}
          </button>
        )}
      </div>
    </div>
  );
}

export function WorkloadsView({ initialQuery }: { initialQuery: string }) {
  const router = useRouter();
  const [view, setView] = useUrlView(initialQuery);
  const live = useLiveRows();
  const { state, hasSnapshot } = useConnection();
  const now = useNow(30_000);
  const searchRef = useRef<HTMLInputElement>(null);

  // User-timing marks for the browser benchmark: when the page became interactive, when rows showed.
  useEffect(() => {
    performance.mark('wmap:view-mounted');
  }, []);
  const markedRows = useRef(false);
  useEffect(() => {
    if (!markedRows.current && live.rows.length > 0) {
      markedRows.current = true;
      performance.mark('wmap:rows-rendered');
    }
  }, [live.rows]);

  // `/` focuses the search box from anywhere on the page except while typing in a field.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      e.preventDefault();
      searchRef.current?.focus();
      searchRef.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const derived = useMemo(() => runQuery(live.rows, view, now), [live.rows, view, now]);
  const facets: Facets = useMemo(() => {
    const status = facetCounts(live.rows, 'status');
    for (const s of STATUS_VOCABULARY) if (!status.some((o) => o.value === s)) status.push({ value: s, count: 0 });
    status.sort((a, b) => STATUS_VOCABULARY.indexOf(a.value) - STATUS_VOCABULARY.indexOf(b.value));
    return { status, kind: facetCounts(live.rows, 'kind'), namespace: facetCounts(live.rows, 'namespace'), cluster: facetCounts(live.rows, 'cluster') };
  }, [live.rows]);
  const notices = useMemo(() => clusterNotices(live.clusters, now), [live.clusters, now]);
  const clusterUsage = useMemo(() => {
    const m = new Map<string, ClusterUsage>();
    for (const c of live.clusters) if (c.usage) m.set(c.name, c.usage);
    return m;
  }, [live.clusters]);

  // Coming back from a workload page: the row it was opened from, for the view in the address bar
  // (read here, after useUrlView has read the same address).
  const [restoreFocus, setRestoreFocus] = useState<FocusMemory | null>(null);
  useEffect(() => {
    const f = takeTableFocus(encodeView(parseQuery(window.location.search.slice(1)).query));
    if (f) setRestoreFocus(f);
  }, []);
  const onFocusRestored = useCallback(() => setRestoreFocus(null), []);

  const freshness = viewFreshness(state, hasSnapshot);
  const unreachable = useMemo(() => unreachableClusters(live.clusters), [live.clusters]);
  const rowStale = useCallback((r: WorkloadRow) => rowIsStale(r, unreachable), [unreachable]);

  const onSort = useCallback((k: SortKey) => setView(toggleSort(view, k)), [setView, view]);
  const onOpen = useCallback((r: WorkloadRow) => router.push(workloadHref(r)), [router]);
  const resetKey = useMemo(() => encodeView(view), [view]);

  let placeholder: ReactNode = null;
  if (!live.hasSnapshot) {
    const d = state ? describeConnection(state, Date.now(), false) : null;
    placeholder =
      d?.tone === 'bad' ? (
        <Placeholder title="Cannot reach the workload-map server" detail={`${d.detail}. The table fills in as soon as it answers.`} />
      ) : (
        <Placeholder title={state?.status === 'live' ? 'Loading workloads…' : 'Connecting to the server…'} detail="Receiving the current workloads of every connected cluster." />
      );
  } else if (live.rows.length === 0) {
    const connected = live.clusters.filter((c) => c.state === 'connected').length;
    const down = live.clusters.filter((c) => c.state === 'unreachable').map((c) => c.name);
    placeholder =
      down.length > 0 && connected === 0 ? (
        <Placeholder title="No cluster can be reached" detail={`${down.join(', ')} ${down.length === 1 ? 'is' : 'are'} unreachable (see the notice above). Workloads appear here as soon as a cluster answers.`} />
      ) : (
        <Placeholder
          title="No workloads in the connected clusters"
          detail={`${connected} of ${live.clusters.length} cluster${live.clusters.length === 1 ? '' : 's'} connected${down.length ? ` (${down.join(', ')} unreachable)` : ''}. Workloads appear here as soon as they are created.`}
        />
      );
  } else if (derived.rows.length === 0) {
    // A range that cannot match says so: the filters are not wrong about the rows, the range is empty.
    const conflicts = [rangeConflict('GPU range', view.minGpus, view.maxGpus), rangeConflict('Utilization range', view.minUtil, view.maxUtil)].filter(Boolean);
    placeholder = (
      <Placeholder
        title={conflicts.length > 0 ? 'This range is empty' : 'No workload matches these filters'}
        detail={`${conflicts.length > 0 ? `${conflicts.join(' ')} ` : ''}${live.rows.length} workload${live.rows.length === 1 ? ' is' : 's are'} hidden by the current filters.`}
        action={hasFilters(view) ? { label: 'Clear filters', onClick: () => setView(clearFilters(view)) } : undefined}
      />
    );
  }

  const t = derived.totals;
  // Finished pods are done, not "not ready": ready counts against the pods still running.
  const done = useMemo(() => donePods(derived.rows), [derived.rows]);
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-3">
      <Notices notices={notices} />
      {freshness.stale && (
        <p id="view-stale" role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200" data-testid="view-stale">
          {freshness.text}
        </p>
      )}
      <FilterBar view={view} setView={setView} facets={facets} cel={derived.cel} searchRef={searchRef} />
      <div className={`flex min-h-6 flex-wrap items-baseline gap-x-5 text-sm tabular-nums text-slate-600 dark:text-slate-300 ${freshness.stale ? 'opacity-50' : ''}`} data-testid="totals" aria-live="polite">
        <span>
          <span className="font-semibold text-slate-900 dark:text-white" data-testid="total-workloads">
            {live.hasSnapshot ? t.workloads : '–'}
          </span>{' '}
          {t.workloads === 1 ? 'workload' : 'workloads'}
          {live.hasSnapshot && t.workloads !== live.rows.length && <span className="text-slate-500 dark:text-slate-400"> of {live.rows.length}</span>}
        </span>
        <span title="GPUs held by pods bound to a node and not finished">
          GPUs allocated{' '}
          <span className="font-semibold text-slate-900 dark:text-white" data-testid="total-allocated">
            {live.hasSnapshot ? formatGpus(t.allocated) : '–'}
          </span>
          <UnknownCount n={t.allocatedUnknown} testId="total-allocated-unknown" why="Workloads whose pods cannot be read: what they hold is unknown, so it is not in this sum" />
        </span>
        <span title="GPUs requested by live, non-terminal pods">
          requested{' '}
          <span className="font-semibold text-slate-900 dark:text-white" data-testid="total-requested">
            {live.hasSnapshot ? formatGpus(t.requested) : '–'}
          </span>
          <UnknownCount n={t.requestedUnknown} testId="total-requested-unknown" why="Workloads whose pods cannot be read: what they request is unknown, so it is not in this sum" />
        </span>
        <span title="GPUs the workloads' templates ask for (templates × replicas)">
          desired{' '}
          <span className="font-semibold text-slate-900 dark:text-white" data-testid="total-desired">
            {live.hasSnapshot ? formatGpus(t.desired) : '–'}
          </span>
          <UnknownCount n={t.desiredUnknown} testId="total-desired-unknown" why="Workloads no definition describes (or with a replica count the API server would refuse): what they ask for is unknown, so it is not in this sum" />
        </span>
        <span className="text-slate-500 dark:text-slate-400">
          pods {t.podsReady}/{t.podsTotal - done} ready{done > 0 ? ` · ${done} done` : ''}{t.podsUnknown > 0 ? ` (+ ${t.podsUnknown} workloads whose pods cannot be read)` : ''}
        </span>
        {live.hasSnapshot && <UtilizationTotals totals={t} />}
        <CapacityTotals clusters={view.cluster} />
      </div>
      <WorkloadTable
        rows={derived.rows}
        sort={view.sort}
        order={view.order}
        onSort={onSort}
        onOpen={onOpen}
        now={now}
        resetKey={resetKey}
        placeholder={placeholder}
        label={`Workloads (${t.workloads})`}
        clusterUsage={clusterUsage}
        stale={freshness.stale}
        rowStale={rowStale}
        restoreFocus={restoreFocus}
        onFocusRestored={onFocusRestored}
      />
      <p className="text-xs text-slate-500 dark:text-slate-400">
        <kbd className="rounded border px-1">/</kbd> search · <kbd className="rounded border px-1">↑</kbd> <kbd className="rounded border px-1">↓</kbd> move · <kbd className="rounded border px-1">Enter</kbd> open
      </p>
    </div>
  );
}

/** "+ N unknown" beside a total: rows whose figure is not known are left out of the sum, and counted. */
function UnknownCount({ n, testId, why }: { n: number; testId: string; why: string }) {
  if (n === 0) return null;
  return (
    <span className="text-slate-500 dark:text-slate-400" title={why} data-testid={testId}>
      {' '}+ {n} unknown
    </span>
  );
}
