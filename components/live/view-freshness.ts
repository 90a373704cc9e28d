/**
 * Whether what a page shows is current. While the live stream is down the rows are what was last
 * received: the page dims them and says since when, rather than looking live. Rows of a cluster that
 * cannot be reached, or built from kinds that cannot be read (`row.stale`), are dimmed one by one.
 * Pure.
 */
import type { ClusterInfo, WorkloadRow } from '../../contract/index.ts';
import { clockTime } from './connection-label.ts';
import type { ConnectionState } from './stream-client.ts';

export interface ViewFreshness {
  /** The whole view is out of date (the stream is not live). */
  stale: boolean;
  /** What to tell the user, when stale. */
  text: string | null;
}

export function viewFreshness(state: ConnectionState | null, hasSnapshot: boolean): ViewFreshness {
  // Before the first snapshot there is nothing to dim: the table shows a placeholder instead.
  if (!state || !hasSnapshot || state.status === 'live') return { stale: false, text: null };
  const asOf = state.lastDataAt ?? state.since;
  const why = state.error ? ` (${state.error})` : '';
  return {
    stale: true,
    text: `Not live: the connection to the server was lost at ${clockTime(state.since)}${why}. Showing the data as of ${clockTime(asOf)}, dimmed, while it reconnects.`,
  };
}

/** The clusters whose rows are out of date as a whole (unreachable). */
export function unreachableClusters(clusters: readonly ClusterInfo[]): ReadonlySet<string> {
  return new Set(clusters.filter((c) => c.state === 'unreachable').map((c) => c.name));
}

/** One row out of date: its cluster is unreachable, or a kind it is built from cannot be read. */
export function rowIsStale(row: WorkloadRow, unreachable: ReadonlySet<string>): boolean {
  return row.stale !== null || unreachable.has(row.cluster);
}
