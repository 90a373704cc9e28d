/**
 * A row as emitted: the row as resolved, marked stale where the kinds it was built from fail, with
 * the utilization of its GPU pods joined from the cluster's latest readings.
 */
import type { Built, ClusterState } from './cluster-state.ts';
import type { RowDelta, WorkloadRow } from './row.ts';
import type { RowTable } from './row-table.ts';
import { withOwnerReadability, withStaleness } from './staleness.ts';
import { rowUsageOf } from './usage-join.ts';

export function decoratedRow(built: Built, c: ClusterState): WorkloadRow {
  const row = withOwnerReadability(withStaleness(built.row, built.deps, c.health), built.missingOwner, c.health);
  return { ...row, usage: rowUsageOf(built.holders, c.usage) };
}

/** The row with its utilization joined anew; the same object when the figures did not change (or it holds no GPUs). */
export function withUsage(row: WorkloadRow, built: Built, c: ClusterState): WorkloadRow {
  if (built.holders.length === 0) return row;
  const usage = rowUsageOf(built.holders, c.usage);
  return JSON.stringify(usage) === JSON.stringify(row.usage) ? row : { ...row, usage };
}

/** From the row as resolved, what staleness marks (stale, unknown figures) derived anew; the row itself when they did not change. */
export function stalenessAnew(c: ClusterState): (built: Built, row: WorkloadRow) => WorkloadRow {
  return (built, row) => {
    const next = decoratedRow(built, c);
    return JSON.stringify(next.stale) !== JSON.stringify(row.stale) || next.gpus !== row.gpus || next.pods !== row.pods || next.ownership.broken !== row.ownership.broken ? next : row;
  };
}

/** GPU pods (bound, not finished) of the cluster's rows, and how many have readings. */
export function usageCoverage(c: ClusterState | undefined): { gpuPods: number; withMetrics: number } {
  let gpuPods = 0;
  let withMetrics = 0;
  if (!c) return { gpuPods, withMetrics };
  for (const uid of c.roots.keys()) {
    for (const h of c.built.get(uid)?.holders ?? []) {
      gpuPods++;
      if (c.usage?.byPod.has(h.key)) withMetrics++;
    }
  }
  return { gpuPods, withMetrics };
}

/**
 * Every row of a cluster decorated anew without resolving (a kind's health or the readings changed):
 * `next` returns the row itself when nothing changed; the others are put and emitted.
 */
export function redecorate(rows: RowTable, cluster: string, c: ClusterState, next: (built: Built, row: WorkloadRow) => WorkloadRow): RowDelta[] {
  const deltas: RowDelta[] = [];
  for (const [uid, id] of c.roots) {
    const built = c.built.get(uid);
    const row = rows.get(id);
    if (!built || !row) continue;
    const n = next(built, row);
    if (n !== row) rows.put(cluster, uid, n, deltas);
  }
  rows.emit(deltas);
  return deltas;
}
