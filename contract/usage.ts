/**
 * GPU utilization: how much of what is allocated is used. Types only; produced by server/usage
 * (the readings, joined to pods on namespace/pod) and server/workloads (per row, role, instance,
 * pod), read by the API, the stream, the CLI and the dashboard.
 *
 * A figure without data is `null` (shown "n/a"), never 0. Utilization is a percentage (0–100)
 * averaged over GPUs weighted by devices' worth (a MIG 1g slice of an A100 counts 1/7); on MIG it is
 * the instance's graphics-engine activity, since the device's GPU_UTIL is not per instance; a
 * time-sliced GPU reports the device's figure to every pod sharing it (`shared`).
 */

/** Where a cluster's figures come from: Prometheus (history), the DCGM exporters scraped directly (current values only), or nothing. */
export type UsageSourceKind = 'prometheus' | 'exporters' | 'none';

export interface IdleRule {
  /** A GPU is idle while its utilization stays below this (percent)… */
  thresholdPercent: number;
  /** …for at least this long. */
  windowSeconds: number;
}

/** One cluster's utilization source and how fresh its figures are. */
export interface ClusterUsage {
  cluster: string;
  source: UsageSourceKind;
  /** For people: which Prometheus or how many exporters, and how they are reached; why none. */
  detail: string;
  /** ISO time of the readings in use (the last refresh that succeeded); null before the first. */
  at: string | null;
  /** Why the last refresh failed (the readings in use are then `at` old); null when it succeeded. */
  error: string | null;
  /** Pods holding GPUs (bound, not finished) and how many of them have readings. Null counts before the first refresh. */
  coverage: { gpuPods: number | null; withMetrics: number | null };
  /** True when history (1-hour charts) can be asked for: a Prometheus source. */
  history: boolean;
  idle: IdleRule;
  /** How often the readings are refreshed. */
  intervalSeconds: number;
}

/** One device (or MIG instance) a pod holds, as its exporter reports it. */
export interface GpuReading {
  node: string;
  /** The device index on its node (`gpu` label). */
  gpu: string;
  uuid: string;
  model: string | null;
  /** Set for a MIG instance. */
  mig: { profile: string; instance: string } | null;
  /** Percent, 0–100; null when the exporter reports none for it. */
  utilization: number | null;
  memory: { usedBytes: number; totalBytes: number } | null;
  /** Below the idle threshold for the whole window; null while that is not known (not seen for a whole window yet). */
  idle: boolean | null;
  /** ISO time since when it has been idle (the last reading at or above the threshold, or the pod's start); set when `idle`. */
  idleSince: string | null;
  /** Time-sliced: the figures are the device's, shared with other pods. */
  shared: boolean;
  /** What the reading counts for: the pod's devices' worth of this device (1, 1/7 for a 1g MIG slice, 1/replicas when shared). */
  worth: number;
}

/** Figures for a set of allocated GPUs (a workload, a role, an instance, a pod). */
export interface UsageFigures {
  /** Devices' worth allocated (the pods bound and not finished). */
  allocated: number;
  /** Devices' worth of those with readings. */
  measured: number;
  /** Average utilization over the measured GPUs (percent, weighted by worth); null without readings. */
  utilization: number | null;
  /** GPUs' worth in use: Σ utilization × worth; null without readings. */
  used: number | null;
  /** GPU memory used and total over the measured GPUs; null without readings. */
  memory: { usedBytes: number; totalBytes: number } | null;
  /** Devices' worth idle (see the idle rule); null while no GPU's idle state is known. */
  idle: number | null;
  /** ISO time since when the longest-idle of them has been idle. */
  idleSince: string | null;
  /** Pods holding GPUs, and how many of them have readings. */
  pods: { gpu: number; withMetrics: number };
}

/** A row's figures, with where they come from and how old they are. */
export interface RowUsage extends UsageFigures {
  source: UsageSourceKind;
  /** ISO time of the readings; null when there are none. */
  at: string | null;
}

/** `usage` in `GET /api/workloads/{id}`: the figures at every level of the tree. */
export interface WorkloadUsage {
  source: UsageSourceKind;
  at: string | null;
  idle: IdleRule;
  history: boolean;
  workload: UsageFigures;
  /** By role (component name), in the tree's component order. */
  roles: Array<{ name: string; figures: UsageFigures }>;
  /** By instance of a role (`worker` group `a`). */
  instances: Array<{ component: string; instance: string; figures: UsageFigures }>;
  /** By pod name (pods holding GPUs only). */
  pods: Record<string, { figures: UsageFigures; gpus: GpuReading[] }>;
}

/** `GET /api/workloads/{id}/usage/history`: utilization per role over the last hour. */
export interface UsageHistory {
  /** False when the cluster's source keeps no history (exporters, none); `reason` says why. */
  available: boolean;
  reason: string | null;
  /** Unix seconds. */
  start: number;
  end: number;
  stepSeconds: number;
  /** Per role: [unix seconds, percent or null] per step. */
  series: Array<{ role: string; points: Array<[number, number | null]> }>;
}
