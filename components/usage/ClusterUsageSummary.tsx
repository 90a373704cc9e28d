import type { ClusterUsage } from '../../contract/index.ts';
import { coverageText, idleRuleText, SOURCE_LABEL, usageFreshness } from './usage-text.ts';

/**
 * One cluster's utilization source: where the figures come from, how old they are (amber and
 * "stale" past three refresh intervals or when the last refresh failed, the reason in the title),
 * how many GPU pods they cover, and what counts as idle.
 */
export function ClusterUsageSummary({ usage, now, className = '' }: { usage: ClusterUsage; now: number; className?: string }) {
  const fresh = usageFreshness(usage, now);
  const showFreshness = usage.source !== 'none' || usage.error !== null;
  return (
    <div
      className={`flex flex-wrap items-baseline gap-x-3 gap-y-0.5 text-xs text-slate-600 dark:text-slate-300 ${className}`}
      data-testid="cluster-usage"
      data-cluster={usage.cluster}
      data-source={usage.source}
      data-stale={fresh.stale}
    >
      <span title={usage.detail} data-testid="usage-source">
        Utilization: <span className="font-semibold text-slate-900 dark:text-white">{SOURCE_LABEL[usage.source]}</span>
        {usage.source === 'none' && usage.detail && <span className="text-slate-500 dark:text-slate-400"> ({usage.detail})</span>}
      </span>
      {showFreshness && (
        <span className={fresh.stale ? 'font-medium text-amber-700 dark:text-amber-400' : ''} title={fresh.why ?? `refreshed every ${usage.intervalSeconds} s`} data-testid="usage-freshness">
          {fresh.text}
          {fresh.stale && ' · stale'}
        </span>
      )}
      <span data-testid="usage-coverage">{coverageText(usage.coverage)}</span>
      <span data-testid="usage-idle-rule">{idleRuleText(usage.idle)}</span>
      {!usage.history && usage.source !== 'none' && <span className="text-slate-500 dark:text-slate-400">current values only (no history)</span>}
    </div>
  );
}
