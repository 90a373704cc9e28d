/**
 * From all rows and a query to what is shown: the filters (plain ones, then CEL), the sort, and the
 * totals of what is left. The dashboard, the list API and the CLI all call this.
 */
import type { WorkloadRow } from '../../contract/index.ts';
import { rowMatcher, type CelOutcome } from './filter.ts';
import type { RowQuery } from './query.ts';
import { sortRows } from './sort.ts';
import { totalsOf, type Totals } from './totals.ts';

export interface QueryResult {
  rows: WorkloadRow[];
  totals: Totals;
  cel: CelOutcome;
}

export function runQuery(all: readonly WorkloadRow[], query: RowQuery, now: number): QueryResult {
  const m = rowMatcher(query, now, all);
  const kept: WorkloadRow[] = [];
  for (const r of all) if (m.test(r)) kept.push(r);
  const rows = sortRows(kept, query.sort, query.order);
  return { rows, totals: totalsOf(rows), cel: m.cel };
}
