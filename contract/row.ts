/**
 * The row contract: the summary of one workload tree that the table shows, the deltas that keep a
 * client's rows equal to the server's, and the clusters' connection states. Types only; produced
 * by server/workloads, read by the API, the stream, the CLI and the dashboard.
 */
import type { GpuAmounts, WorkloadStatusName } from './tree.ts';
import type { ClusterUsage, RowUsage } from './usage.ts';

export interface WorkloadRow {
  /** `cluster/namespace/Kind.group/name` (core kinds bare, `Pod`); the namespace is `_` for cluster-scoped workloads. */
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
    /**
     * Figures that are not known (shown as unknown, never as 0, and left out of totals with a
     * count): `desired` for a workload no definition describes (no template says what it asks for).
     */
    unknown: GpuField[];
    /**
     * Amounts left out of the figures because their devices' worth is unknown (time-sliced GPUs on
     * nodes that do not say their replica count), by figure and resource; absent when there are none.
     */
    apart?: Partial<Record<GpuField, GpuAmounts>>;
  };
  /** `unknown` while the pods cannot be read (forbidden, never listed): the counts are then not data. */
  pods: { ready: number; total: number; unknown?: boolean };
  roles: Array<{ name: string; pods: number; desired: number }>;
  /** e.g. `1 leader · 2 workers` */
  rolesSummary: string;
  /** ISO timestamp of the root's creation. */
  createdAt: string | null;
  /** The definition that describes it; source `none` (and no name) when none does. */
  definition: { name: string; source: string };
  ownership: RowOwnership;
  errors: string[];
  /**
   * Set while a kind this row is built from (its root's, its owned objects', pods) cannot be listed or
   * watched: the row shows what was last seen, which may be out of date. `null` when fresh.
   */
  stale: RowStaleness | null;
  /**
   * GPU utilization of the allocated GPUs (contract/usage.ts); null when the row holds no allocated
   * GPUs. Figures without readings are null inside (shown "n/a"), never 0.
   */
  usage: RowUsage | null;
}

export type GpuField = 'allocated' | 'requested' | 'desired';

/** What a row's root says about its owners, read as the garbage collector reads ownerReferences. */
export interface RowOwnership {
  /** The object that owns the root but has no definition (the row is the served object below it). */
  ownedBy: { apiVersion: string; kind: string; namespace: string; name: string } | null;
  /** Why the root's chain stops short of the owners it names: an absent or invalid owner, itself, a cycle. */
  broken: string | null;
}

export interface RowStaleness {
  /** ISO time the first of those kinds started failing. */
  since: string;
  /** Why, for people: the failing kinds and the last error. */
  reason: string;
  /** The failing kinds, as `resource.group` (`pods`, `jobsets.jobset.x-k8s.io`). */
  kinds: string[];
}

/** A watched kind whose list or watch keeps failing. */
export interface FailingKind {
  /** `resource.group`, e.g. `pods` or `jobsets.jobset.x-k8s.io`. */
  kind: string;
  /** ISO time of the first failure since it last succeeded. */
  since: string;
  message: string;
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
  /** Kinds whose list or watch keeps failing (rows built from them are marked stale). */
  failingKinds: FailingKind[];
  /** Served versions of the Karta and ResourceInterface definition CRDs. */
  definitionApis: { karta: string[]; resourceInterface: string[] };
  /** ISO time of the last successful list or watch event. */
  lastSyncAt: string | null;
  /** True while every watched kind has completed its initial list. */
  synced: boolean;
  /** Where its GPU utilization comes from and how fresh it is; absent when utilization is off. */
  usage?: ClusterUsage;
}
