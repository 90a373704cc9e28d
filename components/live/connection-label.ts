/** What the connection indicator says, from the stream client's state. */
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

export function describeConnection(s: ConnectionState, now: number, hasSnapshot: boolean): ConnectionLabel {
  const why = s.error ? `: ${s.error}` : '';
  if (s.status === 'connecting') {
    if (s.attempts === 0) return { tone: 'wait', label: 'Connecting…', detail: 'Opening the live stream' };
    return { tone: 'bad', label: 'Server unreachable', detail: `Retrying (attempt ${s.attempts + 1})${why}` };
  }
  if (s.status === 'live') {
    if (!hasSnapshot) return { tone: 'wait', label: 'Loading…', detail: 'Connected; waiting for the current workloads' };
    return { tone: 'ok', label: 'Live', detail: 'Rows update as the clusters change' };
  }
  const asOf = s.lastDataAt ?? s.since;
  if (now - s.since < STALE_AFTER_MS) {
    return { tone: 'warn', label: 'Reconnecting…', detail: `Data as of ${clockTime(asOf)}; reconnecting${why}` };
  }
  return { tone: 'bad', label: `Stale since ${clockTime(asOf)} · reconnecting`, detail: `No connection since ${clockTime(s.since)} (attempt ${s.attempts + 1})${why}` };
}
