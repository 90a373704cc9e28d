/**
 * From all live rows and the view to what the table shows: plain filters, then the CEL filter
 * (the costlier one, on fewer rows), then the sort, then the totals of what is left.
 */
import type { WorkloadRow } from '../../contract/index.ts';
import { compileCelFilter, runCelFilter } from './cel-filter.ts';
import { filterRows } from './row-filter.ts';
import { sortRows } from './row-sort.ts';
import { totalsOf } from './totals.ts';
import type { Totals } from './totals.ts';
import type { ViewState } from './view-state.ts';

export interface CelState {
  /** `null` when there is no expression. */
  error: string | null;
  failures: number;
  firstError: string | null;
}

export interface DerivedView {
  rows: WorkloadRow[];
  totals: Totals;
  cel: CelState;
}

export function deriveView(all: readonly WorkloadRow[], v: ViewState, now: number): DerivedView {
  let rows = filterRows(all, v);
  const cel: CelState = { error: null, failures: 0, firstError: null };
  if (v.cel.trim() !== '') {
    const f = compileCelFilter(v.cel);
    if (f.ok) {
      const r = runCelFilter(f, rows, now);
      rows = r.rows;
      cel.failures = r.failures;
      cel.firstError = r.firstError;
    } else {
      // A bad expression filters nothing; the box says why, so the table is not mysteriously empty.
      cel.error = f.error;
    }
  }
  rows = sortRows(rows, v.sort, v.order);
  return { rows, totals: totalsOf(rows), cel };
}
