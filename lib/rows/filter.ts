/**
 * Which rows pass a query's filters: the plain ones (status, kind, namespace, cluster, GPU range and
 * presets, free text), then the CEL expression. Lists are "any of"; different filters "all of".
 */
import type { WorkloadRow } from '../../contract/index.ts';
import { celMessage, compileCelFilter, TOTAL_COST_LIMIT } from './cel-filter.ts';
import { groupOfApiVersion } from './identity.ts';
import { NO_DEFINITION_FILTER, UNDERUSED_PERCENT, type RowQuery } from './query.ts';

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

/** The names a row's kind answers to, lower-cased: `jobset` and `jobset.jobset.x-k8s.io`. */
function kindNames(row: WorkloadRow): string[] {
  const kind = row.kind.toLowerCase();
  const group = groupOfApiVersion(row.apiVersion).toLowerCase();
  return group ? [kind, `${kind}.${group}`] : [kind];
}

export interface CelOutcome {
  /** Why the expression cannot be used (it then filters nothing); `null` when it can or there is none. */
  error: string | null;
  /** Rows on which the expression failed (a missing key, a type mismatch); they are left out. */
  failures: number;
  firstError: string | null;
}

export interface RowMatcher {
  /** True when the row passes every filter; a row the CEL expression fails on does not. */
  test(row: WorkloadRow): boolean;
  cel: CelOutcome;
}

/**
 * A predicate for one query, evaluated at `now` (CEL's `age` and `now`). Reuse it across rows:
 * the sets and the compiled expression are built once. Given the rows it is about to filter, it
 * checks that the CEL expression's cost over all of them stays within `TOTAL_COST_LIMIT`; when it
 * does not, the expression is not used and says why (as a syntax error would).
 */
export function rowMatcher(v: RowQuery, now: number, rows?: readonly WorkloadRow[]): RowMatcher {
  const terms = textTerms(v.q);
  const lower = (xs: string[]) => (xs.length ? new Set(xs.map((x) => x.toLowerCase())) : null);
  const status = lower(v.status);
  const kind = lower(v.kind);
  const namespace = v.namespace.length ? new Set(v.namespace) : null;
  const cluster = v.cluster.length ? new Set(v.cluster) : null;
  const definition = v.definition.length ? new Set(v.definition) : null;
  const { gpuField: field, minGpus: min, maxGpus: max, preset, minUtil, maxUtil } = v;
  const cel: CelOutcome = { error: null, failures: 0, firstError: null };
  let celTest: ((row: WorkloadRow) => boolean) | null = null;
  if (v.cel.trim() !== '') {
    const f = compileCelFilter(v.cel);
    // A bad expression filters nothing; the caller says why, so the table is not mysteriously empty.
    let total = 0;
    if (f.ok && rows) for (const r of rows) if ((total += f.costOf(r)) > TOTAL_COST_LIMIT) break;
    if (!f.ok) cel.error = f.error;
    else if (total > TOTAL_COST_LIMIT) cel.error = `The expression is too costly for ${rows!.length} rows: more than ${TOTAL_COST_LIMIT} steps in all.`;
    else {
      const nowDate = new Date(now);
      celTest = (row) => f.test(row, now, nowDate);
    }
  }
  return {
    cel,
    test(r) {
      if (status && !status.has(r.status.toLowerCase())) return false;
      if (kind && !kindNames(r).some((k) => kind.has(k))) return false;
      if (namespace && !namespace.has(r.namespace)) return false;
      if (cluster && !cluster.has(r.cluster)) return false;
      if (definition && !definition.has(r.definition.source === 'none' ? NO_DEFINITION_FILTER : r.definition.name)) return false;
      const g = r.gpus[field];
      // An unknown figure is in no range: it is not 0, and not anything else either.
      if ((min !== null || max !== null) && r.gpus.unknown.includes(field)) return false;
      if (min !== null && g < min) return false;
      if (max !== null && g > max) return false;
      if (preset === 'using' && !(r.gpus.allocated > 0)) return false;
      if (preset === 'waiting' && !(r.gpus.requested > r.gpus.allocated)) return false;
      // Utilization without readings is unknown: in no range, neither idle nor underused.
      const util = r.usage?.utilization ?? null;
      if (preset === 'idle' && !((r.usage?.idle ?? 0) > 0)) return false;
      if (preset === 'underused' && !(util !== null && util < UNDERUSED_PERCENT)) return false;
      if ((minUtil !== null || maxUtil !== null) && util === null) return false;
      if (minUtil !== null && util! < minUtil) return false;
      if (maxUtil !== null && util! > maxUtil) return false;
      if (terms.length) {
        const h = haystack(r);
        for (const t of terms) if (!h.includes(t)) return false;
      }
      if (celTest) {
        try {
          return celTest(r);
        } catch (e) {
          cel.failures++;
          if (cel.firstError === null) cel.firstError = celMessage(e);
          return false;
        }
      }
      return true;
    },
  };
}

/** Distinct values of a field with how many rows hold each, for the filter menus. */
export function facetCounts(rows: readonly WorkloadRow[], field: 'status' | 'kind' | 'namespace' | 'cluster'): Array<{ value: string; count: number }> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(r[field], (m.get(r[field]) ?? 0) + 1);
  return [...m.entries()].map(([value, count]) => ({ value, count })).sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}
