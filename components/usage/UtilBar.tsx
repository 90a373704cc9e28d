import { formatPercent } from '../../lib/rows/index.ts';
import { utilTone, type UtilTone } from './usage-text.ts';

const FILL: Record<UtilTone, string> = {
  na: '',
  under: 'bg-amber-500',
  ok: 'bg-emerald-500',
  saturated: 'bg-violet-500',
};

/**
 * A utilization percent over a small bar. Without readings it is a greyed "n/a" whose title says
 * why (never a 0 % bar: unknown is not idle).
 */
export function UtilBar({ utilization, naTitle, title, label, className = '' }: { utilization: number | null; naTitle: string; title?: string; label: string; className?: string }) {
  if (utilization === null) {
    return (
      <span className={`text-slate-500 dark:text-slate-400 ${className}`} title={naTitle} aria-label={`${label}: n/a (${naTitle})`} data-testid="util-na">
        n/a
      </span>
    );
  }
  const pct = Math.max(0, Math.min(100, utilization));
  const tone = utilTone(utilization);
  return (
    <span className={`flex w-full min-w-12 flex-col justify-center gap-1 ${className}`} title={title} data-util={tone}>
      <span className="tabular-nums" aria-label={`${label}: ${formatPercent(utilization)}`}>
        {formatPercent(utilization)}
      </span>
      <span className="relative h-1.5 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700" aria-hidden="true">
        <span className={`absolute inset-y-0 left-0 rounded-full ${FILL[tone]}`} style={{ width: `${pct}%` }} />
      </span>
    </span>
  );
}
