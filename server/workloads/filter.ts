/** Server-side row filtering and sorting, shared by the list API and the stream. Pure. */
import type { WorkloadRow } from './row.ts';

export interface RowFilter {
  cluster?: string[];
  namespace?: string[];
  kind?: string[];
  status?: string[];
  minGpus?: number;
  maxGpus?: number;
  gpuField?: 'allocated' | 'requested' | 'desired';
  /** Free text: matched against name, namespace, kind, cluster, roles. */
  q?: string;
}

export function rowMatches(row: WorkloadRow, f: RowFilter): boolean {
  if (f.cluster?.length && !f.cluster.includes(row.cluster)) return false;
  if (f.namespace?.length && !f.namespace.includes(row.namespace)) return false;
  if (f.kind?.length && !f.kind.some((k) => k.toLowerCase() === row.kind.toLowerCase())) return false;
  if (f.status?.length && !f.status.some((s) => s.toLowerCase() === row.status.toLowerCase())) return false;
  const g = row.gpus[f.gpuField ?? 'allocated'];
  if (f.minGpus !== undefined && g < f.minGpus) return false;
  if (f.maxGpus !== undefined && g > f.maxGpus) return false;
  if (f.q) {
    const q = f.q.toLowerCase();
    const hay = `${row.name} ${row.namespace} ${row.kind} ${row.cluster} ${row.rolesSummary}`.toLowerCase();
    if (!hay.includes(q)) return false;
  }
  return true;
}

export const SORT_FIELDS = ['name', 'namespace', 'cluster', 'kind', 'status', 'gpus', 'allocated', 'requested', 'desired', 'pods', 'age'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

function sortKey(row: WorkloadRow, field: SortField): string | number {
  switch (field) {
    case 'gpus':
    case 'allocated': return row.gpus.allocated;
    case 'requested': return row.gpus.requested;
    case 'desired': return row.gpus.desired;
    case 'pods': return row.pods.total;
    // Age ascending = youngest first, as kubectl's AGE column reads.
    case 'age': return row.createdAt ? -Date.parse(row.createdAt) : 0;
    default: return row[field];
  }
}

export function sortRows(rows: WorkloadRow[], field: SortField = 'name', order: 'asc' | 'desc' = 'asc'): WorkloadRow[] {
  const dir = order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const ka = sortKey(a, field);
    const kb = sortKey(b, field);
    if (ka < kb) return -dir;
    if (ka > kb) return dir;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}
