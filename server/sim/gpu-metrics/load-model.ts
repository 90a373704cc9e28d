/**
 * How busy a simulated pod keeps its GPUs (pure): a load profile per pod — from the
 * `sim.workload-map.dev/load` label its template gave it, else from the kind of its top owner (training
 * kinds train, serving kinds serve) — and, for a seed, a pod, a device and a moment, the utilization and
 * memory that profile shows. Values are constant within a 10-second bucket of simulated time, so the
 * exporters and the ground truth agree whenever they are asked within the same bucket.
 */

import { fnv32 } from '../controllers/random.ts';

/** The pod label (copied from its workload's template) that chooses the load profile. */
export const LOAD_LABEL = 'sim.workload-map.dev/load';

export type LoadProfile = 'training' | 'inference' | 'idle' | 'saturated' | 'busy-then-idle';

export const LOAD_PROFILES: readonly LoadProfile[] = ['training', 'inference', 'idle', 'saturated', 'busy-then-idle'];

/** Simulated milliseconds during which every figure stays the same. */
export const BUCKET_MS = 10_000;

/** How long a `busy-then-idle` pod works before it stops using its GPUs. */
export const BUSY_THEN_IDLE_MS = 5 * 60_000;

/** Owner kinds whose pods serve requests (bursty inference); any other owner trains. */
const SERVING_KINDS = new Set([
  'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'LeaderWorkerSet', 'InferenceService', 'DynamoGraphDeployment', 'DynamoComponentDeployment',
  'NIMService', 'RayService', 'Service', 'Revision', 'Configuration', 'PodCliqueSet', 'PodClique', 'PodCliqueScalingGroup', 'Milvus', 'InferencePool',
]);

export function isLoadProfile(v: string | undefined): v is LoadProfile {
  return v !== undefined && (LOAD_PROFILES as readonly string[]).includes(v);
}

/** The profile of a pod: its label when valid, else by the kind of its top owner (`undefined`: a bare pod trains). */
export function profileOf(label: string | undefined, topOwnerKind: string | undefined): LoadProfile {
  if (isLoadProfile(label)) return label;
  return topOwnerKind && SERVING_KINDS.has(topOwnerKind) ? 'inference' : 'training';
}

export function bucketOf(ms: number): number {
  return Math.floor(ms / BUCKET_MS) * BUCKET_MS;
}

/** A uniform number in [0, 1) for a seed and key (a well-mixed 32-bit hash). */
export function unit(seed: number, key: string): number {
  let h = fnv32(key) ^ Math.imul(seed | 0, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

export interface Load {
  /** Percent, whole number 0..100. */
  utilization: number;
  /** Fraction of the unit's memory in use, 0..1. */
  memory: number;
}

/** What an allocated unit no pod is using shows: nothing running, the driver's few hundred MiB. */
export const UNUSED: Load = { utilization: 0, memory: 0.005 };

export interface LoadArgs {
  seed: number;
  profile: LoadProfile;
  /** Identifies the pod and the unit it holds (`ns/pod/uuid[/instance]`), so each device of a pod differs. */
  key: string;
  /** Simulated time (ms); read in buckets. */
  at: number;
  /** When the pod's containers started (busy-then-idle counts from here). */
  startedAt: number;
}

/** Pure: the load of one unit held by a running pod at a moment. */
export function loadAt(a: LoadArgs): Load {
  const b = bucketOf(a.at);
  const u = (salt: string): number => unit(a.seed, `${a.key}|${salt}`);
  const ub = (salt: string): number => unit(a.seed, `${a.key}|${salt}|${b}`);
  // Memory is what the process allocated at start: stable for the pod, with a little jitter per bucket.
  const mem = (lo: number, hi: number): number => Math.min(0.99, Math.max(0, lo + (hi - lo) * u('mem') + (ub('memj') - 0.5) * 0.01));
  switch (a.profile) {
    case 'training':
      return { utilization: 88 + Math.floor(ub('util') * 12), memory: mem(0.7, 0.95) };
    case 'inference': {
      // Bursts: some minutes carry a wave of requests.
      const minute = Math.floor(b / 60_000);
      const burst = unit(a.seed, `${a.key}|burst|${minute}`) < 0.3;
      return { utilization: burst ? 70 + Math.floor(ub('util') * 26) : 15 + Math.floor(ub('util') * 21), memory: mem(0.55, 0.8) };
    }
    case 'idle':
      // Allocated and holding its weights in memory, computing nothing (a forgotten notebook, a stuck job).
      return { utilization: 0, memory: mem(0.1, 0.4) };
    case 'saturated':
      return { utilization: 99 + Math.floor(ub('util') * 2), memory: mem(0.85, 0.97) };
    case 'busy-then-idle':
      if (b - a.startedAt < BUSY_THEN_IDLE_MS) return loadAt({ ...a, profile: 'training' });
      return { utilization: 0, memory: mem(0.7, 0.95) };
  }
}
