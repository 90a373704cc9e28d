/**
 * The row contract: the summary of one workload tree that the table shows, the deltas that keep a
 * client's rows equal to the server's, and the clusters' connection states. Types only; produced
 * by server/workloads, read by the API, the stream, the CLI and the dashboard.
 */
import type { GpuAmounts, PodWhy, WorkloadStatusName } from './tree.ts';
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
  /** `done`: pods that finished successfully (counted apart from not-ready ones: a completed Job is done, not failing). */
  pods: { ready: number; total: number; done?: number; unknown?: boolean };
  /** Why some pods are not running and ready (the most frequent reason); null when all are, or are done. */
  why?: RowWhy | null;
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

/** The most frequent reason among a workload's pods that are not running and ready. */
export interface RowWhy {
  kind: PodWhy['kind'];
  reason: string;
  /** One pod's message for that reason (kube-scheduler's "0/14 nodes are available: …"). */
  message: string;
  /** Pods with this reason. */
  pods: number;
  /** Pods not running and ready for other reasons. */
  otherPods: number;
  /** When the pods wait as a gang: the PodGroup, how many of its pods are scheduled, and how many it needs. */
  gang?: { name: string; scheduled: number; minMember: number | null };
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
