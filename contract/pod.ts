/**
 * What the dashboard shows about one pod and about what happened to a workload: `GET
 * /api/pods/{cluster}/{namespace}/{name}`, `GET …/events` of a workload, and the log stream
 * `GET /api/pods/{cluster}/{namespace}/{name}/log`. Types only.
 */
import type { GpuAmounts, PodWhy } from './tree.ts';

export interface ContainerState {
  state: 'running' | 'waiting' | 'terminated' | 'unknown';
  reason: string | null;
  message: string | null;
  exitCode: number | null;
  /** ISO times, when the cluster says them. */
  startedAt: string | null;
  finishedAt: string | null;
}

export interface PodContainer {
  name: string;
  /** Init containers run first and to completion; sidecars (restartPolicy Always) keep running. */
  init: boolean;
  image: string;
  ready: boolean;
  restarts: number;
  /** What the container is doing now. */
  current: ContainerState;
  /** How it ended last time (OOMKilled, exit code 137), when it restarted. */
  last: ContainerState | null;
  /** Its own GPU request (limits where no request is given). */
  gpus: GpuAmounts;
}

export interface PodConditionInfo {
  type: string;
  status: string;
  reason: string | null;
  message: string | null;
  lastTransitionTime: string | null;
}

/** One Event, from core `v1` or `events.k8s.io/v1` alike. */
export interface EventItem {
  type: string;
  reason: string;
  message: string;
  /** How many times it happened (a repeated event is one object with a count). */
  count: number;
  /** ISO times of its first and last occurrence (null when the cluster does not say). */
  first: string | null;
  last: string | null;
  /** The object it is about. */
  object: { kind: string; name: string; uid: string | null };
  /** Who reported it: `default-scheduler`, `kubelet`, `job-controller`. */
  source: string;
}

export interface EventList {
  /** Newest first. */
  events: EventItem[];
  /** When the list was read (ISO). */
  at: string;
  /** Events left out (beyond the limit); 0 when all are there. */
  truncated: number;
  /** Why the events could not be read (forbidden, unreachable); then `events` is empty. */
  error: string | null;
}

/** `GET /api/pods/{cluster}/{namespace}/{name}` */
export interface PodDetail {
  cluster: string;
  namespace: string;
  name: string;
  uid: string;
  phase: string;
  ready: boolean;
  node: string | null;
  /** Pod IP and QoS class, start time, as the cluster reports them. */
  podIP: string | null;
  qosClass: string | null;
  startedAt: string | null;
  createdAt: string | null;
  why: PodWhy | null;
  conditions: PodConditionInfo[];
  containers: PodContainer[];
  gpus: GpuAmounts;
  /** The row the pod counts towards (its workload), when it has one. */
  workload: { id: string; kind: string; name: string } | null;
  /** The pod as the cluster holds it (the watch cache; managed fields dropped). */
  object: unknown;
  events: EventList;
}
