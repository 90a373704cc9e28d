/** One cluster's state in the workload index, and the index's options. Types and small helpers only. */
import type { KubeObject } from '../engine/index.ts';
import { OwnerGraph, type RootRule } from './owner-graph.ts';
import { groupKindOf } from './group-kind.ts';
import type { WorkloadRow } from './row.ts';
import type { KindHealth, MissingOwner } from './staleness.ts';
import { WorkQueue } from './work-queue.ts';
import type { NodeGpuInfo } from '../../lib/gpu/device-worth.ts';
import type { UsageSnapshot } from '../usage/index.ts';
import type { GpuHolder } from './usage-join.ts';

export const POD_GK = '/Pod';

/** Does a node's new GPU labels change what a unit of some GPU resource on it is worth? Plain GPU nodes never do. */
export function nodeWorthChanged(before: NodeGpuInfo | null, after: NodeGpuInfo): boolean {
  const matters = (i: NodeGpuInfo | null) => (i ? `${i.replicas ?? ''}|${/A30|-MIG-/i.test(i.product ?? '') ? i.product : ''}` : '|');
  return matters(before) !== matters(after);
}
export const NODE_GK = '/Node';

export interface ClusterState {
  graph: OwnerGraph;
  /** root uid → id of the row emitted for it */
  roots: Map<string, string>;
  /** Roots to resolve. */
  queue: WorkQueue<string>;
  /**
   * Rows resolved ahead while the cluster's initial lists are still arriving (root uid → row, or
   * null when the object is no workload); emitted, unless queued again, once the cluster is synced.
   */
  ahead: Map<string, Built | null>;
  /** root uid → its row as resolved (before staleness) and the kinds it was built from */
  built: Map<string, Built>;
  health: KindHealth;
  /** Tops of chains waiting for an owner that may still arrive in the initial lists; walked again at sync. */
  waiting: Set<string>;
  /** The cluster's latest GPU utilization readings (null until utilization reports). */
  usage: UsageSnapshot | null;
}

/** A root's row as resolved (before staleness), and the kinds it was built from. */
export interface Built {
  row: WorkloadRow;
  deps: ReadonlySet<string>;
  /** Its pods holding GPUs, for joining utilization readings without resolving again. */
  holders: readonly GpuHolder[];
  /** As resolved (Resolved.missingOwner): read against the kinds' health when the row is decorated. */
  missingOwner: MissingOwner | null;
}

/** `clock` stamps queued roots (the latency metric); NaN marks a root queued by the initial lists. */
export function newClusterState(clock?: () => number): ClusterState {
  return { graph: new OwnerGraph(), roots: new Map(), queue: new WorkQueue(clock), ahead: new Map(), built: new Map(), health: new Map(), waiting: new Set(), usage: null };
}

/** The objects of one kind a cluster's state holds. */
export function* objectsOfKind(c: ClusterState | undefined, gk: string): Iterable<KubeObject> {
  if (!c) return;
  for (const uid of c.graph.uidsOfKind(gk)) {
    const o = c.graph.get(uid);
    if (o) yield o;
  }
}

export interface IndexOptions {
  coalesceMs?: number;
  /** Deltas kept for resuming clients, at most (the byte bound applies too). */
  historySize?: number;
  /** Bytes of deltas kept for resuming clients (default 64 MiB). */
  historyBytes?: number;
  /** Which kinds are expected (watched and served): an owner of such a kind may still arrive. */
  isExpectedKind?: (cluster: string, gk: string) => boolean;
  /** Hold a cluster's deltas until this says it finished its initial lists. */
  isSynced?: (cluster: string) => boolean;
  /** Longest stretch of resolving ahead while a cluster's lists arrive, and the pause between stretches. */
  warmSliceMs?: number;
  warmIntervalMs?: number;
  /**
   * Longest stretch of resolving in one timer-driven flush; the rest continues on the next turn of
   * the event loop, so requests and signals are answered while thousands of workloads resolve.
   */
  flushSliceMs?: number;
  /** Which extended resources count as GPUs (gpu-resources.ts; default: the engine's). */
  gpuResources?: readonly string[];
}

/**
 * What makes a root in a cluster: an object a definition serves (a pod only when nothing owns it),
 * else the top of its ownership chain. While the cluster's initial lists arrive, an absent owner of
 * a kind being listed may still come, so its dependents wait.
 */
export function rootRule(served: { has(gk: string): boolean }, opts: IndexOptions, cluster: string): RootRule {
  const listing = opts.isSynced ? !opts.isSynced(cluster) : false;
  return {
    isServed: (o) => served.has(groupKindOf(o)),
    mayArrive: (ref) => listing && (opts.isExpectedKind?.(cluster, groupKindOf(ref)) ?? served.has(groupKindOf(ref))),
  };
}
