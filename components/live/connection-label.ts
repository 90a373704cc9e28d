/** What the connection indicator says, from the stream client's state and the clusters' health. */
import type { ClusterInfo } from '../../contract/index.ts';
import type { ConnectionState } from './stream-client.ts';

export type ConnectionTone = 'ok' | 'wait' | 'warn' | 'bad';

export interface ConnectionLabel {
  tone: ConnectionTone;
  label: string;
  detail: string;
}

/** After this long without a connection the data is called stale rather than "reconnecting". */
export const STALE_AFTER_MS = 10_000;

export function clockTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * The stream may be live while the server cannot read some kinds of a cluster: then the data is
 * not live either. The earliest failure is named, with since when.
 */
function clusterStaleness(clusters: readonly ClusterInfo[]): ConnectionLabel | null {
  const failing: Array<{ what: string; since: string; message: string }> = [];
  for (const c of clusters) {
    if (c.state === 'unreachable') failing.push({ what: `cluster ${c.name}`, since: c.lastSyncAt ?? '', message: c.message ?? 'unreachable' });
    for (const k of c.failingKinds ?? []) failing.push({ what: `${k.kind} in ${c.name}`, since: k.since, message: k.message });
  }
  if (failing.length === 0) return null;
  failing.sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0));
  const f = failing[0];
  const t = Date.parse(f.since);
  const since = Number.isNaN(t) ? '' : ` since ${clockTime(t)}`;
  const more = failing.length > 1 ? ` (+${failing.length - 1} more)` : '';
  return { tone: 'warn', label: `Stale${since}: ${f.what}${more}`, detail: `${f.what} cannot be read${since}: ${f.message}. Rows built from it are marked stale.` };
}

export function describeConnection(s: ConnectionState, now: number, hasSnapshot: boolean, clusters: readonly ClusterInfo[] = []): ConnectionLabel {
  const why = s.error ? `: ${s.error}` : '';
  if (s.status === 'connecting') {
    if (s.attempts === 0) return { tone: 'wait', label: 'Connecting…', detail: 'Opening the live stream' };
    return { tone: 'bad', label: 'Server unreachable', detail: `Retrying (attempt ${s.attempts + 1})${why}` };
  }
  if (s.status === 'live') {
    if (!hasSnapshot) return { tone: 'wait', label: 'Loading…', detail: 'Connected; waiting for the current workloads' };
    return clusterStaleness(clusters) ?? { tone: 'ok', label: 'Live', detail: 'Rows update as the clusters change' };
  }
  const asOf = s.lastDataAt ?? s.since;
  if (now - s.since < STALE_AFTER_MS) {
    return { tone: 'warn', label: 'Reconnecting…', detail: `Data as of ${clockTime(asOf)}; reconnecting${why}` };
  }
  return { tone: 'bad', label: `Stale since ${clockTime(asOf)} · reconnecting`, detail: `No connection since ${clockTime(s.since)} (attempt ${s.attempts + 1})${why}` };
}
