/**
 * `GET /api/nodes`: the GPU nodes of every cluster, grouped by GPU product and node pool, with what
 * each can hold and what holds it. Types only; produced by server/workloads/nodes.ts.
 *
 * Figures per GPU resource are device counts as the node advertises them (`status.capacity`,
 * `status.allocatable`) and as the pods bound to it ask for them; `total`s are GPU devices' worth
 * (a whole GPU is 1, a MIG slice its compute slices over the device's — `3g.40gb` on an A100 is 3/7 —,
 * a time-sliced replica 1/replicas when the node says how many, else left out of the total). `allocated` counts pods bound to
 * the node and not finished (a terminating pod still holds its devices); `free` is allocatable −
 * allocated, never below 0. A figure that is not known (the pods cannot be listed) is `null`, never 0.
 */
import type { GpuAmounts } from './tree.ts';
import type { GpuReading } from './usage.ts';

export interface GpuCapacity {
  capacity: number;
  allocatable: number;
  /** Null when the cluster's pods cannot be listed. */
  allocated: number | null;
  /** allocatable − allocated (at least 0); null when allocated is unknown. */
  free: number | null;
}

export interface ResourceCapacity extends GpuCapacity {
  /** `nvidia.com/gpu`, `nvidia.com/mig-1g.10gb`, … */
  resource: string;
}

/** One MIG profile a node advertises (`nvidia.com/mig-<profile>`). */
export interface MigSlice extends ResourceCapacity {
  /** `1g.10gb` */
  profile: string;
}

export interface NodeTaint {
  key: string;
  value: string | null;
  effect: string;
}

/** A workload (row) holding GPUs of a node: its pods there and their GPUs. */
export interface NodeWorkload {
  /** The row id (`cluster/namespace/Kind.group/name`); null for pods no row counts. */
  id: string | null;
  /** `Kind.group` (core kinds bare), as row ids and page URLs name it; `Pod` when no row counts the pod. */
  kind: string;
  namespace: string;
  name: string;
  /** Its live pods bound to this node that ask for GPUs. */
  pods: number;
  /** Their GPUs, by resource. */
  gpus: GpuAmounts;
  /** Summed over resources, in GPU devices' worth on this node. */
  total: number;
}

export interface NodeSummary {
  name: string;
  cluster: string;
  /** `nvidia.com/gpu.product`; null when the node has no such label. */
  product: string | null;
  /** The first pool label the node has (see `POOL_LABELS` in the README), or null. */
  pool: { label: string; value: string } | null;
  /** Per GPU resource the node advertises or its pods ask for, sorted by name. */
  resources: ResourceCapacity[];
  /** Summed over the resources, in GPU devices' worth. */
  total: GpuCapacity;
  /** The MIG profiles it advertises, and the MIG labels GPU feature discovery sets (`nvidia.com/mig.strategy`…). */
  mig: { strategy: string | null; config: string | null; state: string | null; slices: MigSlice[] };
  taints: NodeTaint[];
  /** `spec.unschedulable` (kubectl cordon). */
  cordoned: boolean;
  /** The Ready condition is True. */
  ready: boolean;
  /** Why it is not ready (the Ready condition's reason and message), when it is not. */
  notReadyReason: string | null;
  /** Ready and not cordoned: the scheduler may place new pods on it (taints permitting). */
  schedulable: boolean;
  /** Capacity or allocatable values that are no whole device count (`capacity nvidia.com/gpu "abc"`): left out, never counted as 0. */
  unreadable: string[];
  /** Live pods bound to it (any, with or without GPUs). */
  pods: number;
  /** The workloads holding its GPUs, most GPUs first. Empty when the pods cannot be listed. */
  workloads: NodeWorkload[];
  /**
   * Every device (and MIG instance) its exporter reports, by device index, with the pod holding it
   * (`pod`: `namespace/name`, null when free); null when the cluster has no utilization readings
   * for this node (never an empty list for "unknown").
   */
  gpuReadings: Array<GpuReading & { pod: string | null }> | null;
}

export interface NodeGroup {
  product: string | null;
  pool: { label: string; value: string } | null;
  nodes: NodeSummary[];
  resources: ResourceCapacity[];
  total: GpuCapacity;
}

/**
 * Whether a kind (nodes, pods) of a cluster could be read: `listed` (current), `stale` (listed, but
 * its watch is failing now: the figures are the last seen), `listing` (not listed yet), `forbidden`,
 * `failing` (never listed, keeps failing), `unwatched`.
 */
export type ListingState = 'listed' | 'stale' | 'listing' | 'forbidden' | 'failing' | 'unwatched';

export interface Listing {
  state: ListingState;
  /** ISO time the failure started (`stale`, `failing`). */
  since: string | null;
  message: string | null;
}

export interface ClusterNodes {
  cluster: string;
  /** Can the nodes be read? Only `listed` and `stale` give figures. */
  nodesListing: Listing;
  /** Can the pods be read? Without them `allocated`, `free` and `workloads` are unknown. */
  podsListing: Listing;
  /** Every node of the cluster, GPU or not (null while the nodes are not known). */
  nodeCount: number | null;
  /** Grouped by product, then pool; empty while the nodes are not known. */
  groups: NodeGroup[];
  /** Per GPU resource over the cluster's GPU nodes; null while the nodes are not known (never 0 for unknown). */
  resources: ResourceCapacity[] | null;
  total: GpuCapacity | null;
  /** GPUs free on nodes that are Ready and not cordoned. */
  schedulableFree: number | null;
  /**
   * Live pods with GPUs bound to a node the cluster does not list (a node deleted under them): their
   * GPUs are in no node's figures. `examples` names at most 20 (`namespace/name`).
   */
  podsOnUnlistedNodes: { count: number; examples: string[] };
}

/** `GET /api/nodes` */
export interface NodesPayload {
  clusters: ClusterNodes[];
  /** The node labels read as the pool, in order (the first a node has is its pool). */
  poolLabels: string[];
}
