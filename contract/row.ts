/**
 * The row contract: the summary of one workload tree that the table shows, the deltas that keep a
 * client's rows equal to the server's, and the clusters' connection states. Types only; produced
 * by server/workloads, read by the API, the stream, the CLI and the dashboard.
 */
import type { GpuAmounts, WorkloadStatusName } from './tree.ts';

export interface WorkloadRow {
  /** `cluster/namespace/kind/name`; the namespace is `_` for cluster-scoped workloads. */
  id: string;
  cluster: string;
  namespace: string;
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** The primary status: the first matched status in vocabulary order. */
  status: WorkloadStatusName;
  statuses: WorkloadStatusName[];
  /** The native reason behind the status (phase, or the reason/message of the deciding condition). */
  statusReason: string | null;
  gpus: {
    allocated: number;
    requested: number;
    desired: number;
    byResource: { allocated: GpuAmounts; requested: GpuAmounts; desired: GpuAmounts };
  };
  pods: { ready: number; total: number };
  roles: Array<{ name: string; pods: number; desired: number }>;
  /** e.g. `1 leader · 2 workers` */
  rolesSummary: string;
  /** ISO timestamp of the root's creation. */
  createdAt: string | null;
  definition: { name: string; source: string };
  errors: string[];
}

export type RowDelta =
  | { seq: number; op: 'upsert'; id: string; row: WorkloadRow }
  | { seq: number; op: 'remove'; id: string };

export type ClusterState = 'connecting' | 'connected' | 'unreachable';

export interface ClusterInfo {
  name: string;
  state: ClusterState;
  /** Why the cluster is unreachable or degraded, for people. */
  message: string | null;
  /** API server URL (never credentials). */
  server: string;
  servedKinds: number;
  watchedKinds: string[];
  /** Kinds the credentials may not list or watch, e.g. `pods`. */
  forbiddenKinds: string[];
  /** Served versions of the Karta and ResourceInterface definition CRDs. */
  definitionApis: { karta: string[]; resourceInterface: string[] };
  /** ISO time of the last successful list or watch event. */
  lastSyncAt: string | null;
  /** True while every watched kind has completed its initial list. */
  synced: boolean;
}
