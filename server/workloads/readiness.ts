/**
 * Is the server ready to answer with data? Ready once every cluster has settled: its initial lists
 * are complete (or its kinds are forbidden), or it failed with a reason (unreachable, every list
 * failing). A broken context must not keep the whole server unready for ever — its rows say it is
 * unreachable — but a cluster still listing must, or the first answers would be missing rows.
 */
import type { LiveWorkloads } from './live.ts';

export type ClusterReadiness = { name: string; state: 'synced' } | { name: string; state: 'failed' | 'syncing'; reason: string };

export interface Readiness {
  ready: boolean;
  clusters: ClusterReadiness[];
}

export function readinessOf(live: LiveWorkloads): Readiness {
  const clusters: ClusterReadiness[] = [];
  for (const info of live.clusters()) {
    const conn = live.connection(info.name);
    if (info.synced) clusters.push({ name: info.name, state: 'synced' });
    else if (info.state === 'unreachable') clusters.push({ name: info.name, state: 'failed', reason: info.message ?? 'unreachable' });
    else if (conn?.settled()) {
      const failing = info.failingKinds.map((k) => `${k.kind}: ${k.message}`);
      clusters.push({ name: info.name, state: 'failed', reason: failing.length > 0 ? `failing: ${failing.join('; ')}` : 'lists incomplete' });
    } else clusters.push({ name: info.name, state: 'syncing', reason: info.state === 'connecting' ? 'connecting (discovery)' : 'initial lists in progress' });
  }
  return { ready: clusters.length > 0 && clusters.every((c) => c.state !== 'syncing'), clusters };
}
