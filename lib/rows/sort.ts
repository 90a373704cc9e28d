/**
 * Sorting by any column. Ties fall back to cluster/namespace/name so the order is total and stable
 * across live updates (rows do not swap places when an unrelated row changes).
 */
import type { WorkloadRow } from '../../contract/index.ts';
import type { SortKey, SortOrder } from './query.ts';

// Problems first: the order people scan a status column in (not the vocabulary's order).
const STATUS_RANK: Record<string, number> = {
  Failed: 0,
  Degraded: 1,
  Initializing: 2,
  Resuming: 3,
  Suspending: 4,
  Running: 5,
  Suspended: 6,
  Completed: 7,
  Undefined: 8,
};

function createdMs(r: WorkloadRow): number {
  const t = r.createdAt ? Date.parse(r.createdAt) : NaN;
  // Unknown creation time counts as the oldest.
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

function podsKey(r: WorkloadRow): number {
  return r.pods.total;
}

function rolesKey(r: WorkloadRow): string {
  return r.rolesSummary;
}

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function identity(a: WorkloadRow, b: WorkloadRow): number {
  return cmpStr(a.cluster, b.cluster) || cmpStr(a.namespace, b.namespace) || cmpStr(a.name, b.name) || cmpStr(a.kind, b.kind);
}

type Key = (r: WorkloadRow) => number | string;

const KEYS: Record<SortKey, Key> = {
  kind: (r) => r.kind,
  name: (r) => r.name,
  namespace: (r) => r.namespace,
  cluster: (r) => r.cluster,
  status: (r) => STATUS_RANK[r.status] ?? 9,
  allocated: (r) => r.gpus.allocated,
  requested: (r) => r.gpus.requested,
  desired: (r) => r.gpus.desired,
  utilization: (r) => r.usage?.utilization ?? 0,
  idle: (r) => r.usage?.idle ?? 0,
  pods: podsKey,
  roles: rolesKey,
  // Ascending age = youngest first, i.e. the newest creation time first.
  age: (r) => -createdMs(r),
};

/** A new sorted array; the input is left alone. Keys are computed once per row (decorate-sort). */
export function sortRows(rows: readonly WorkloadRow[], key: SortKey, order: SortOrder): WorkloadRow[] {
  const k = KEYS[key];
  const dir = order === 'asc' ? 1 : -1;
  // An unknown figure sorts after every known one, whichever the order: it is not the smallest.
  const unknownOf =
    key === 'allocated' || key === 'requested' || key === 'desired'
      ? (r: WorkloadRow) => r.gpus.unknown.includes(key)
      : key === 'utilization'
        ? (r: WorkloadRow) => r.usage?.utilization == null
        : key === 'idle'
          ? (r: WorkloadRow) => r.usage?.idle == null
          : () => false;
  const decorated = rows.map((row) => ({ row, k: k(row), unknown: unknownOf(row) }));
  decorated.sort((a, b) => {
    if (a.unknown !== b.unknown) return a.unknown ? 1 : -1;
    const x = a.k;
    const y = b.k;
    const c = typeof x === 'number' && typeof y === 'number' ? (x === y ? 0 : x < y ? -1 : 1) : cmpStr(String(x), String(y));
    return c !== 0 ? c * dir : identity(a.row, b.row);
  });
  return decorated.map((d) => d.row);
}
