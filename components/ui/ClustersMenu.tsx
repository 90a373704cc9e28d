'use client';

import { useRef } from 'react';
import type { ClusterInfo } from '../../contract/index.ts';
import { useLiveClusters, useNow } from '../live/LiveProvider.tsx';
import { ClusterUsageSummary } from '../usage/ClusterUsageSummary.tsx';
import { usageFreshness } from '../usage/usage-text.ts';
import { placeUnder } from './popover-under.ts';

const STATE_TONE: Record<ClusterInfo['state'], string> = {
  connected: 'text-emerald-700 dark:text-emerald-400',
  connecting: 'text-slate-500 dark:text-slate-400',
  unreachable: 'text-red-700 dark:text-red-400',
};

function ClusterItem({ c, now }: { c: ClusterInfo; now: number }) {
  const state = c.state === 'connected' && !c.synced ? 'listing objects' : c.state;
  return (
    <li className="flex flex-col gap-1 border-b border-slate-100 px-3 py-2 last:border-b-0 dark:border-slate-800" aria-label={`Cluster ${c.name}`} data-testid="cluster-item" data-cluster={c.name}>
      <div className="flex items-baseline gap-2">
        <span className="font-semibold">{c.name}</span>
        <span className={`text-xs ${STATE_TONE[c.state]}`} title={c.message ?? undefined}>
          {state}
        </span>
        <span className="ml-auto truncate font-mono text-[11px] text-slate-500 dark:text-slate-400" title={c.server}>
          {c.server}
        </span>
      </div>
      {c.usage ? <ClusterUsageSummary usage={c.usage} now={now} /> : <p className="text-xs text-slate-500 dark:text-slate-400">Utilization is switched off.</p>}
    </li>
  );
}

/**
 * The header's cluster list: each cluster's connection state and its GPU utilization source,
 * freshness and coverage. The button warns (amber) while some cluster's readings are stale.
 */
export function ClustersMenu() {
  const clusters = useLiveClusters();
  const now = useNow(1000);
  const buttonRef = useRef<HTMLButtonElement>(null);
  if (clusters.length === 0) return null;
  const staleUsage = clusters.filter((c) => c.usage && usageFreshness(c.usage, now).stale).map((c) => c.name);
  const label = `${clusters.length} cluster${clusters.length === 1 ? '' : 's'}`;
  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        popoverTarget="clusters-menu"
        className="inline-flex h-7 items-center gap-1.5 rounded-md border border-slate-200 px-2 text-xs text-slate-700 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800"
        aria-label={`Clusters: ${label}${staleUsage.length ? `, utilization stale in ${staleUsage.join(', ')}` : ''}`}
        title={staleUsage.length ? `GPU utilization readings are stale in ${staleUsage.join(', ')}` : 'Clusters and their GPU utilization sources'}
        data-testid="clusters-button"
      >
        {label}
        {staleUsage.length > 0 && <span className="h-2 w-2 rounded-full bg-amber-500" aria-hidden="true" />}
        <span aria-hidden="true" className="text-slate-500 dark:text-slate-400">▾</span>
      </button>
      <div
        id="clusters-menu"
        popover="auto"
        // Under its button, right-aligned with it.
        onToggle={placeUnder(buttonRef, (b) => Math.max(8, Math.min(b.right - 440, window.innerWidth - 448)))}
        className="fixed m-0 max-h-[70vh] w-[440px] overflow-auto rounded-md border border-slate-200 bg-white p-0 text-sm text-slate-900 shadow-lg dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
      >
        <ul aria-label="Clusters" data-testid="clusters-menu">
          {clusters.map((c) => (
            <ClusterItem key={c.name} c={c} now={now} />
          ))}
        </ul>
      </div>
    </>
  );
}
