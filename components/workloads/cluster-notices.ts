/** Which clusters or kinds the user must be told about: unreachable, still connecting, forbidden kinds, stale utilization. */
import type { ClusterInfo } from '../../contract/index.ts';
import { SOURCE_LABEL, usageFreshness } from '../usage/usage-text.ts';

export interface ClusterNotice {
  cluster: string;
  tone: 'bad' | 'warn' | 'info';
  text: string;
}

/** `now` dates the utilization readings (stale beyond three refresh intervals). */
export function clusterNotices(clusters: readonly ClusterInfo[], now = Date.now()): ClusterNotice[] {
  const out: ClusterNotice[] = [];
  for (const c of clusters) {
    if (c.state === 'unreachable') {
      out.push({ cluster: c.name, tone: 'bad', text: `Cluster ${c.name} is unreachable${c.message ? `: ${c.message}` : ''}. Its workloads may be missing or out of date.` });
    } else if (c.state === 'connecting') {
      out.push({ cluster: c.name, tone: 'info', text: `Connecting to cluster ${c.name}…` });
    } else if (!c.synced) {
      out.push({ cluster: c.name, tone: 'info', text: `Cluster ${c.name}: still listing objects; rows may be incomplete.` });
    }
    for (const k of c.failingKinds ?? []) {
      out.push({ cluster: c.name, tone: 'bad', text: `Cluster ${c.name}: ${k.kind} cannot be read since ${new Date(k.since).toLocaleTimeString()} (${k.message}). Rows built from them are marked stale and may be out of date.` });
    }
    if (c.forbiddenKinds.length > 0) {
      const kinds = c.forbiddenKinds.slice(0, 6).join(', ') + (c.forbiddenKinds.length > 6 ? ` and ${c.forbiddenKinds.length - 6} more` : '');
      out.push({ cluster: c.name, tone: 'warn', text: `Cluster ${c.name}: not allowed to list ${kinds}. Workloads or GPU totals that depend on them may be missing.` });
    }
    // Only a connected cluster's readings: an unreachable one is already a notice of its own.
    if (c.usage && c.state === 'connected') {
      const f = usageFreshness(c.usage, now);
      if (f.stale) out.push({ cluster: c.name, tone: 'warn', text: `Cluster ${c.name}: GPU utilization (${SOURCE_LABEL[c.usage.source]}) is stale, ${f.text}: ${f.why}. Utilization figures may be out of date.` });
    }
  }
  return out;
}
