import type { RowTotals } from '../../contract/index.ts';
import { utilizationTotals } from '../usage/usage-text.ts';

/** Allocated vs used over the rows shown: `used 47.3 of 120 allocated GPUs (39%) · 12 idle`, or `utilization n/a`. */
export function UtilizationTotals({ totals }: { totals: RowTotals }) {
  const u = utilizationTotals(totals);
  const na = totals.used === null;
  return (
    <span title={u.title} data-testid="total-utilization" className={na ? 'text-slate-500 dark:text-slate-400' : ''}>
      {u.text}
    </span>
  );
}
