/**
 * The workload-tree contract: what `wmap resolve -o json`, `wmap tree -o json` and
 * `GET /api/workloads/{id}` return. Public and additive-only (see README "Workload tree").
 * Types only (and the status vocabulary): the engine produces it, the API, CLI and dashboard read it.
 */

/** Errors are values: a stable code, a message for people, and where they came from. */
export interface EngineError {
  /** Stable machine-readable code, e.g. `definition.invalid`, `expression.runtime`. */
  code: string;
  message: string;
  /** Field path inside the definition (`spec.structureDefinition.rootComponent...`) or object (`pod default/x`). */
  path: string;
}

/** Resource name → amount, e.g. `{"nvidia.com/gpu": 4}`. */
export type GpuAmounts = Record<string, number>;

export interface GpuTotal {
  /**
   * GPU devices' worth: a whole GPU is 1, a MIG slice its compute slices over its device's
   * (`1g.10gb` on an H100 is 1/7), a time-sliced replica 1/replicas when its node says how many.
   */
  total: number;
  /** Raw counts per resource (7 MIG slices are 7 here). */
  byResource: GpuAmounts;
  /** Amounts whose devices' worth is unknown (shared GPUs on a node that does not say its replica count): counted apart, not in `total`. */
  apart?: GpuAmounts;
}

/**
 * GPUs at one level of the tree (workload, component, instance), by the same rules everywhere:
 * *desired* from templates × replicas, *requested* by live pods (not finished, not being deleted),
 * *allocated* by pods bound to a node and not finished.
 */
export interface GpuFigures {
  desired: GpuTotal;
  requested: GpuTotal;
  allocated: GpuTotal;
}

export interface WorkloadRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  cluster: string;
}

export interface DefinitionRef {
  name: string;
  /** `catalog`, `cluster`, or `file` (a definition given on the command line). */
  source: string;
}

export interface TreeCondition {
  type: string;
  status: string | null;
  reason: string | null;
  message: string | null;
}

/** The common status vocabulary, in the order matched statuses are reported. */
export const STATUS_ORDER = [
  'Resuming',
  'Suspending',
  'Suspended',
  'Running',
  'Failed',
  'Completed',
  'Initializing',
  'Degraded',
] as const;
export type MappedStatus = (typeof STATUS_ORDER)[number];
export type WorkloadStatusName = MappedStatus | 'Undefined';

export interface TreeStatus {
  /** Every status whose mapping held, in STATUS_ORDER; `["Undefined"]` when none did. */
  matched: WorkloadStatusName[];
  /** The native phase string, when the definition reads one (`""` when the field is absent). */
  phase: string | null;
  conditions: TreeCondition[];
}

export interface TreeInstance {
  /** `""` for the single anonymous instance of a component without `instanceIdPath`. */
  id: string;
  replicas: number | null;
  minReplicas: number | null;
  maxReplicas: number | null;
  /** Effective GPU request of one pod built from this instance's template. */
  gpusPerPod: GpuAmounts;
  /** Pod template metadata of this instance (labels, annotations), when the definition exposes it. */
  podMetadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  /** The pod template or pod spec of this instance as extracted, when the definition exposes it. */
  podTemplate?: unknown;
  /** Live pods matched to this instance. */
  livePods: number;
  /** Desired (replicas × gpusPerPod), requested and allocated by this instance's pods. */
  gpus: GpuFigures;
}

export interface TreeComponent {
  name: string;
  /** `group/version/kind` as written in the definition, or `""` for structural components. */
  kind: string;
  /** Name of the parent component, `null` for the root. */
  parent: string | null;
  /** True when the component carries a pod definition (a "leaf" in upstream terms). */
  hasPodDefinition: boolean;
  /**
   * True when this component's replica selector gives the replica key of the pods below it (its
   * own and its descendants'): an LWS `group` (leader + its workers share group-index), a JobSet
   * replicated job (the Job index). Pods with the same key under it form one replica group.
   */
  keysReplicas?: boolean;
  instances: TreeInstance[];
  /**
   * The GPUs of this component's own instances and of the pods it claims (not its child
   * components'): summed over components and `unmatchedGpus`, they are the workload's `gpus`.
   */
  gpus: GpuFigures;
}

export interface TreePod {
  name: string;
  namespace: string;
  uid: string;
  component: string | null;
  instance: string | null;
  replica: string | null;
  phase: string;
  ready: boolean;
  node: string | null;
  gpus: GpuAmounts;
  /** True when the pod holds its GPUs: bound to a node and not finished. */
  allocated: boolean;
  restarts: number;
  /** The pod's controller (its ownerReference with `controller: true`): the JobSet's Job, the LWS StatefulSet. */
  owner?: { kind: string; name: string } | null;
  /**
   * Why the pod is not running and ready, from what the cluster says about it (null when it is, or
   * when it finished successfully): the scheduler's `PodScheduled=False` condition, a container's
   * waiting or last termination state, or the pod's own status reason.
   */
  why?: PodWhy | null;
}

/**
 * What keeps a pod from running and ready. `kind` says whose word it is: `unschedulable` (the
 * scheduler found no node), `gated` (scheduling gates, e.g. waiting for its gang to be created),
 * `unscheduled` (not yet looked at), `waiting` (a container is waiting: ContainerCreating,
 * ImagePullBackOff, CrashLoopBackOff), `unready` (running, readiness failing), `failed` (the pod
 * failed: a container's termination reason and exit code, or the pod's reason such as Evicted).
 */
export interface PodWhy {
  kind: 'unschedulable' | 'gated' | 'unscheduled' | 'waiting' | 'unready' | 'failed';
  /** The machine word: `Unschedulable`, `SchedulingGated`, `CrashLoopBackOff`, `OOMKilled`, … */
  reason: string;
  /** The cluster's own message, for people (kube-scheduler's "0/14 nodes are available: …"). */
  message: string;
  /** The container it is about, when a container's state says it. */
  container?: string;
  exitCode?: number;
}

/**
 * A role as people read it: one per instance of a pod-bearing component with instances
 * (JobSet `leader`, `worker`), or one per pod-bearing component otherwise (`head`, `predictor`).
 */
export interface TreeRole {
  name: string;
  component: string;
  instance: string;
  /** Pods the definition asks for: the instance's replicas, 1 when the definition gives no count. */
  desiredPods: number;
  livePods: number;
  readyPods: number;
  gpusPerPod: GpuAmounts;
}

export interface GangSubGroup {
  name: string;
  minMember: number;
  topologyConstraint?: TopologyConstraint;
  podsReferences: string[];
}

export interface TopologyConstraint {
  topology: string;
  preferredTopologyLevel?: string;
  requiredTopologyLevel?: string;
}

/** A PodGroup as KAI Scheduler would create it from the definition's gang-scheduling instructions. */
export interface GangPodGroup {
  name: string;
  namespace: string;
  minMember: number | null;
  minSubGroup: number | null;
  subGroups: GangSubGroup[];
  topologyConstraint?: TopologyConstraint;
  /** Pods (by name) that would carry this PodGroup. */
  pods: string[];
  /** Which instruction produced it: the current `podGroup` or the deprecated `podGroups`. */
  source: 'podGroup' | 'podGroups';
}

export interface WorkloadTree {
  workload: WorkloadRef;
  definition: DefinitionRef;
  status: TreeStatus;
  components: TreeComponent[];
  roles: TreeRole[];
  pods: TreePod[];
  unmatchedPods: TreePod[];
  gpus: GpuFigures;
  /** Requested and allocated by `unmatchedPods` (desired is always empty: no template asks for them). */
  unmatchedGpus: GpuFigures;
  gang: GangPodGroup[];
  errors: EngineError[];
  /**
   * Findings that do not make the tree wrong, in the shape of `errors` and apart from them; always
   * present, `[]` when there are none. Today: gang previews that are what KAI Scheduler would create
   * but disagree with the workload — `gang.inconsistent` (members under one PodGroup name compute
   * different sizes, P-29) and `gang.unsatisfiable` (a minMember above the pods the workload asks for
   * in that PodGroup's scope, P-30; never when those pods are unknown). The CLI exits 0 on warnings alone.
   */
  warnings: EngineError[];
}
