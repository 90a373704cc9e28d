/**
 * The table's plain filters (everything but the CEL box): status, kind, namespace, cluster, GPU
 * range and presets, free text. Lists are "any of"; different filters are "all of".
 */
import type { WorkloadRow } from '../../contract/index.ts';
import type { ViewState } from './view-state.ts';

// One lower-cased haystack per row object (rows are immutable; a change is a new object).
const haystacks = new WeakMap<WorkloadRow, string>();

function haystack(row: WorkloadRow): string {
  let h = haystacks.get(row);
  if (h === undefined) {
    h = [row.name, row.namespace, row.kind, row.cluster, row.status, row.statusReason ?? '', row.rolesSummary, row.definition.name, row.apiVersion]
      .join('\u0000')
      .toLowerCase();
    haystacks.set(row, h);
  }
  return h;
}

/** Whitespace-separated terms that must all occur (substring, case-insensitive). */
export function textTerms(q: string): string[] {
  return q.toLowerCase().split(/\s+/).filter(Boolean);
}

export function matchesText(row: WorkloadRow, terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const h = haystack(row);
  for (const t of terms) if (!h.includes(t)) return false;
  return true;
}

export function filterRows(rows: readonly WorkloadRow[], v: ViewState): WorkloadRow[] {
  const terms = textTerms(v.q);
  const status = v.status.length ? new Set(v.status) : null;
  const kind = v.kind.length ? new Set(v.kind) : null;
  const namespace = v.namespace.length ? new Set(v.namespace) : null;
  const cluster = v.cluster.length ? new Set(v.cluster) : null;
  const field = v.gpuField;
  const min = v.minGpus;
  const max = v.maxGpus;
  const out: WorkloadRow[] = [];
  for (const r of rows) {
    if (status && !status.has(r.status)) continue;
    if (kind && !kind.has(r.kind)) continue;
    if (namespace && !namespace.has(r.namespace)) continue;
    if (cluster && !cluster.has(r.cluster)) continue;
    const g = r.gpus[field];
    if (min !== null && g < min) continue;
    if (max !== null && g > max) continue;
    if (v.preset === 'using' && !(r.gpus.allocated > 0)) continue;
    if (v.preset === 'waiting' && !(r.gpus.requested > r.gpus.allocated)) continue;
    if (terms.length && !matchesText(r, terms)) continue;
    out.push(r);
  }
  return out;
}

/** Distinct values of a field with how many rows hold each, for the filter menus. */
export function facetCounts(rows: readonly WorkloadRow[], field: 'status' | 'kind' | 'namespace' | 'cluster'): Array<{ value: string; count: number }> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(r[field], (m.get(r[field]) ?? 0) + 1);
  return [...m.entries()].map(([value, count]) => ({ value, count })).sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}
