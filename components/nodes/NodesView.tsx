'use client';

import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ClusterNodes, Listing } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { EMPTY_FILTER, encodeNodeFilter, filterGroups, hasNodeFilters, parseNodeFilter, resourcesOf, type NodeFilter } from './node-filter.ts';
import { NodeGroupTable } from './NodeGroupTable.tsx';
import { useNodes } from './use-nodes.ts';
import { useLiveClusters, useNow } from '../live/LiveProvider.tsx';
import { ClusterUsageSummary } from '../usage/ClusterUsageSummary.tsx';
import type { ClusterUsage } from '../../contract/index.ts';

const input =
  'h-8 rounded-md border border-slate-300 bg-white px-2 text-sm placeholder:text-slate-500 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 dark:border-slate-700 dark:bg-slate-900 dark:placeholder:text-slate-400';
const n = (v: number | null) => (v === null ? 'unknown' : formatGpus(v));

/** The filter lives in the URL (replaceState, as the table's view), so a link reproduces it. */
function useUrlFilter(initialQuery: string): [NodeFilter, (f: NodeFilter) => void] {
  const [filter, setState] = useState<NodeFilter>(() => parseNodeFilter(initialQuery));
  useEffect(() => {
    const onPop = () => setState(parseNodeFilter(window.location.search.slice(1)));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const set = useCallback((f: NodeFilter) => {
    setState(f);
    const qs = encodeNodeFilter(f);
    const url = qs ? `${window.location.pathname}?${qs}` : window.location.pathname;
    if (url !== window.location.pathname + window.location.search) window.history.replaceState(null, '', url);
  }, []);
  return [filter, set];
}

function listingText(what: string, l: Listing): string | null {
  switch (l.state) {
    case 'listed':
      return null;
    case 'stale':
      return `${what} cannot be read since ${l.since ? new Date(l.since).toLocaleTimeString() : '?'}${l.message ? ` (${l.message})` : ''}: the figures are the last seen.`;
    case 'listing':
      return `${what} are being listed.`;
    case 'forbidden':
      return `Not allowed to list ${what}${l.message ? ` (${l.message})` : ''}.`;
    case 'failing':
      return `${what} cannot be listed${l.message ? ` (${l.message})` : ''}.`;
    case 'unwatched':
      return `${what} are not served by this cluster.`;
  }
}

function ClusterHeader({ c, usage, now }: { c: ClusterNodes; usage?: ClusterUsage; now: number }) {
  const nodes = listingText('Nodes', c.nodesListing);
  const pods = listingText('Pods', c.podsListing);
  const gpuNodes = c.groups.reduce((a, g) => a + g.nodes.length, 0);
  return (
    <div className="flex flex-col gap-1">
      <div className="flex flex-wrap items-baseline gap-x-4 text-sm tabular-nums text-slate-600 dark:text-slate-300" data-testid="cluster-nodes-summary" data-cluster={c.cluster}>
        <span className="font-semibold text-slate-900 dark:text-white">{c.cluster}</span>
        {c.total ? (
          <>
            <span>
              {gpuNodes} GPU node{gpuNodes === 1 ? '' : 's'} of {c.nodeCount}
            </span>
            <span>capacity {n(c.total.capacity)}</span>
            <span>allocatable {n(c.total.allocatable)}</span>
            <span>allocated {n(c.total.allocated)}</span>
            <span>free {n(c.total.free)}</span>
            <span className="text-slate-500 dark:text-slate-400" title="Free GPUs on nodes that are Ready and not cordoned">
              schedulable free {n(c.schedulableFree)}
            </span>
          </>
        ) : (
          <span>GPU capacity unknown</span>
        )}
      </div>
      {usage && <ClusterUsageSummary usage={usage} now={now} />}
      {[nodes, pods].filter(Boolean).map((t) => (
        <p key={t} role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          {t}
        </p>
      ))}
      {c.podsOnUnlistedNodes.count > 0 && (
        <p role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200" title={c.podsOnUnlistedNodes.examples.join('\n')}>
          {c.podsOnUnlistedNodes.count} pod{c.podsOnUnlistedNodes.count === 1 ? ' holds' : 's hold'} GPUs on nodes the cluster does not list; they are in no node&apos;s figures.
        </p>
      )}
    </div>
  );
}

/** GPU nodes of every cluster, grouped by product and pool, with filters in the URL. */
export function NodesView({ initialQuery }: { initialQuery: string }) {
  const [filter, setFilter] = useUrlFilter(initialQuery);
  const [q, setQ] = useState(filter.q);
  useEffect(() => setQ(filter.q), [filter.q]);
  const [minDraft, setMinDraft] = useState(filter.minFree === null ? '' : String(filter.minFree));
  useEffect(() => setMinDraft(filter.minFree === null ? '' : String(filter.minFree)), [filter.minFree]);
  const query = useNodes();
  const liveClusters = useLiveClusters();
  const now = useNow(5000);
  const usageOf = (cluster: string) => liveClusters.find((x) => x.name === cluster)?.usage;
  const clusters = useMemo(() => query.data?.clusters ?? [], [query.data]);
  const resources = useMemo(() => resourcesOf(clusters), [clusters]);
  const shown = useMemo(() => clusters.map((c) => ({ c, groups: filterGroups(c, filter) })), [clusters, filter]);
  const shownNodes = shown.reduce((a, s) => a + s.groups.reduce((b, g) => b + g.nodes.length, 0), 0);
  const patch = (p: Partial<NodeFilter>) => setFilter({ ...filter, ...p });

  return (
    <div className="flex flex-col gap-3">
      <div className="flex items-baseline gap-3">
        <h1 className="text-xl font-semibold">Nodes</h1>
        {query.data && (
          <p className="text-sm text-slate-500 dark:text-slate-400" aria-live="polite" data-testid="nodes-shown">
            {shownNodes} GPU node{shownNodes === 1 ? '' : 's'} shown · grouped by <span className="font-mono">nvidia.com/gpu.product</span> and pool
          </p>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <label>
          <span className="sr-only">Search nodes</span>
          <input
            type="search"
            className={`${input} w-64`}
            placeholder="Search node, product, pool, workload"
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              patch({ q: e.target.value });
            }}
          />
        </label>
        <label className="flex items-center gap-1 text-sm">
          Free GPUs ≥
          <input
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            aria-label="Minimum free GPUs"
            className={`${input} w-16 tabular-nums`}
            value={minDraft}
            onChange={(e) => {
              setMinDraft(e.target.value);
              const t = e.target.value.trim();
              if (t === '') patch({ minFree: null });
              else if (Number.isFinite(Number(t)) && Number(t) >= 0) patch({ minFree: Number(t) });
            }}
          />
        </label>
        <label className="flex items-center gap-1 text-sm">
          <span className="sr-only">GPU resource counted</span>
          <select aria-label="GPU resource counted" className={input} value={filter.resource} onChange={(e) => patch({ resource: e.target.value })}>
            <option value="">all GPU resources</option>
            {[...new Set([...resources, ...(filter.resource ? [filter.resource] : [])])].map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1 text-sm">
          <input type="checkbox" checked={filter.schedulable} onChange={(e) => patch({ schedulable: e.target.checked })} />
          Schedulable only
        </label>
        {filter.node.length > 0 && (
          <span className="flex items-center gap-1 rounded-md border border-sky-500 bg-sky-50 px-2 py-1 text-sm dark:bg-sky-950" data-testid="node-filter-chip">
            node {filter.node.join(', ')}
            <button type="button" aria-label="Show every node" className="ml-1 text-slate-500 dark:text-slate-400 hover:text-slate-900 dark:hover:text-white" onClick={() => patch({ node: [] })}>
              ×
            </button>
          </span>
        )}
        {hasNodeFilters(filter) && (
          <button type="button" className="h-8 rounded-md border border-slate-300 px-2 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800" onClick={() => setFilter(EMPTY_FILTER)}>
            Clear filters
          </button>
        )}
      </div>
      {query.isPending ? (
        <p role="status" className="p-6 text-center text-slate-500 dark:text-slate-400">
          Loading nodes…
        </p>
      ) : query.isError ? (
        <p role="alert" className="p-6 text-center text-red-700 dark:text-red-400">
          Could not load the nodes: {query.error.message}
        </p>
      ) : clusters.length === 0 ? (
        <p role="status" className="p-6 text-center text-slate-500 dark:text-slate-400">
          No cluster is connected.
        </p>
      ) : (
        shown.map(({ c, groups }, ci) => (
          <div key={c.cluster} className="flex flex-col gap-2" data-testid="cluster-nodes">
            <ClusterHeader c={c} usage={usageOf(c.cluster)} now={now} />
            {groups.length === 0 ? (
              c.total && (
                <p role="status" className="p-4 text-center text-sm text-slate-500 dark:text-slate-400">
                  {c.groups.length === 0 ? 'No GPU nodes in this cluster.' : 'No GPU node matches these filters.'}
                </p>
              )
            ) : (
              groups.map((g, gi) => <NodeGroupTable key={`${g.group.product}/${g.group.pool?.value ?? ''}`} group={g.group} nodes={g.nodes} id={`node-group-${ci}-${gi}`} usage={usageOf(c.cluster)} now={now} />)
            )}
          </div>
        ))
      )}
    </div>
  );
}
