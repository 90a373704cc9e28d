'use client';

import Link from 'next/link';
import { formatGpus } from '../../lib/format/gpus.ts';
import { capacityDetail, capacitySummary } from './capacity-summary.ts';
import { useNodes } from './use-nodes.ts';

const num = 'font-semibold text-slate-900 dark:text-white';

/**
 * The clusters' GPU capacity beside the rows' totals: capacity, allocatable, allocated, free (of the
 * clusters the table's cluster filter selects). "capacity unknown" while the nodes are not loaded or
 * cannot be listed — never 0.
 */
export function CapacityTotals({ clusters }: { clusters: readonly string[] }) {
  const q = useNodes();
  const s = capacitySummary(q.data, clusters);
  if (!s.known) {
    const why = q.isPending ? 'loading the nodes' : q.isError ? `the nodes cannot be loaded: ${q.error.message}` : s.unknown.map((u) => `${u.cluster}: ${u.why}`).join('\n') || 'no cluster';
    return (
      <Link href="/nodes" className="text-slate-500 dark:text-slate-400 hover:underline" title={why} data-testid="cluster-capacity-unknown">
        cluster capacity unknown
      </Link>
    );
  }
  const n = (v: number | null) => (v === null ? 'unknown' : formatGpus(v));
  return (
    <span className="flex flex-wrap items-baseline gap-x-3 border-l border-slate-300 pl-4 dark:border-slate-700" title={capacityDetail(s)} data-testid="cluster-capacity">
      <Link href="/nodes" className="hover:underline">
        cluster GPUs
      </Link>
      <span>
        capacity <span className={num} data-testid="cluster-capacity-total">{n(s.capacity)}</span>
      </span>
      <span>
        allocatable <span className={num} data-testid="cluster-allocatable">{n(s.allocatable)}</span>
      </span>
      <span>
        allocated <span className={num} data-testid="cluster-allocated">{n(s.allocated)}</span>
      </span>
      <span>
        free <span className={num} data-testid="cluster-free">{n(s.free)}</span>
      </span>
      {s.unknown.length > 0 && <span className="text-slate-500 dark:text-slate-400">+ {s.unknown.length === 1 ? `${s.unknown[0].cluster}` : `${s.unknown.length} clusters`} unknown</span>}
      {s.stale.length > 0 && <span className="text-amber-700 dark:text-amber-400">⏱ last seen</span>}
    </span>
  );
}
