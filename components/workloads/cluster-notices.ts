/** Which clusters or kinds the user must be told about: unreachable, still connecting, forbidden kinds. */
import type { ClusterInfo } from '../../contract/index.ts';

export interface ClusterNotice {
  cluster: string;
  tone: 'bad' | 'warn' | 'info';
  text: string;
}

export function clusterNotices(clusters: readonly ClusterInfo[]): ClusterNotice[] {
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
  }
  return out;
}
