/**
 * The workload stream (`GET /api/stream`, Server-Sent Events):
 * - `event: snapshot` — `{seq, rows: WorkloadRow[], clusters: ClusterInfo[]}`: the current rows that
 *   pass the client's filters; sent first, and again whenever the server cannot resume.
 * - `event: delta` — `RowDelta[]`, batched, in `seq` order; the SSE `id` is the last seq of the batch.
 *   A row that stops passing the client's filter arrives as `remove`.
 * - `event: clusters` — `ClusterInfo[]` when a cluster's connection state changes.
 * - comment lines (`: ping`) as heartbeats every 10 s.
 * Reconnecting with `Last-Event-ID: <seq>` resumes with the missed deltas when the server still has
 * them, else a new snapshot. Filters: `cluster`, `namespace`, `kind`, `status` (repeatable or
 * comma-separated), and every other parameter of the row query (lib/rows/query.ts), as `GET /api/workloads`.
 */
import type { ClusterInfo, RowDelta, WorkloadRow } from './row.ts';

export interface SnapshotEvent {
  seq: number;
  rows: WorkloadRow[];
  clusters: ClusterInfo[];
}

export type DeltaEvent = RowDelta[];

export const HEARTBEAT_MS = 10_000;
