/** Totals above the table, for the rows that are shown. */
import type { RowTotals, WorkloadRow } from '../../contract/index.ts';

export type Totals = RowTotals;

export function totalsOf(rows: readonly WorkloadRow[]): Totals {
  const t: Totals = { workloads: rows.length, allocated: 0, requested: 0, desired: 0, allocatedUnknown: 0, requestedUnknown: 0, desiredUnknown: 0, podsReady: 0, podsTotal: 0, podsUnknown: 0, used: null, measured: 0, idle: null };
  for (const r of rows) {
    // A figure a row does not know adds nothing to the sum and is counted apart.
    const unknown = r.gpus.unknown;
    if (unknown.includes('allocated')) t.allocatedUnknown++;
    else t.allocated += r.gpus.allocated;
    if (unknown.includes('requested')) t.requestedUnknown++;
    else t.requested += r.gpus.requested;
    if (unknown.includes('desired')) t.desiredUnknown++;
    else t.desired += r.gpus.desired;
    // Utilization adds up only where there are readings: "used" is out of `measured`, not of allocated.
    const u = r.usage;
    if (u && u.used !== null) {
      t.used = (t.used ?? 0) + u.used;
      t.measured += u.measured;
    }
    if (u && u.idle !== null) t.idle = (t.idle ?? 0) + u.idle;
    if (r.pods.unknown) t.podsUnknown++;
    else {
      t.podsReady += r.pods.ready;
      t.podsTotal += r.pods.total;
    }
  }
  // Fractional GPU resources (shared GPUs) can add up to float noise.
  for (const k of ['allocated', 'requested', 'desired', 'measured'] as const) t[k] = Math.round(t[k] * 1000) / 1000;
  if (t.used !== null) t.used = Math.round(t.used * 1000) / 1000;
  if (t.idle !== null) t.idle = Math.round(t.idle * 1000) / 1000;
  return t;
}
