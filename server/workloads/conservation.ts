/**
 * The conservation check: per cluster and GPU resource, the GPUs the rows count against the GPUs
 * the cluster's live pods ask for, summed from the raw pod specs by this file's own code (not the
 * engine's), and the pods with GPUs that no row counts. Any difference is an error. Pure over the
 * index's objects and rows.
 */
import { DEFAULT_GPU_RESOURCES, type KubeObject } from '../engine/index.ts';
import type { WorkloadRow } from './row.ts';

export interface ResourceBalance {
  resource: string;
  /** Summed over the rows' `requested`. */
  rows: number;
  /** Summed over the live pods (not finished, not being deleted). */
  pods: number;
}

export interface ClusterBalance {
  cluster: string;
  resources: ResourceBalance[];
  /** Live pods with GPUs that no row counts (`namespace/name`). */
  uncounted: string[];
  /** Pods whose GPU quantity this check cannot read (`namespace/name: container resource value`). */
  unreadable: string[];
  ok: boolean;
}

export interface ConservationSource {
  /** The GPU resource names and prefixes counted (the same list the rows were built with). */
  readonly gpuResources?: readonly string[];
  clusterNames(): string[];
  pods(cluster: string): Iterable<KubeObject>;
  rowIdOf(cluster: string, uid: string): string | undefined;
  allRows(): WorkloadRow[];
}

/** Its own matcher, from the same list the rows use: the check shares data with the engine, not code. */
export function gpuNames(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (name: string) => exact.has(name) || prefixes.some((p) => name.startsWith(p));
}

type Amounts = Map<string, number>;
type Container = { name?: string; restartPolicy?: string; resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } };

/** Whole device counts as the API server accepts them for extended resources: a non-negative integer. */
function count(v: unknown): number | null {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v : null;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v.trim());
  return null;
}

function containerAmounts(c: Container, where: string, unreadable: string[], isGpuName: (name: string) => boolean): Amounts {
  const out: Amounts = new Map();
  const req = c.resources?.requests ?? {};
  const lim = c.resources?.limits ?? {};
  for (const name of new Set([...Object.keys(req), ...Object.keys(lim)])) {
    if (!isGpuName(name)) continue;
    // Kubernetes: a request, or the limit when no request is given (extended resources: equal).
    const raw = req[name] !== undefined && req[name] !== null ? req[name] : lim[name];
    if (raw === undefined || raw === null) continue;
    const n = count(raw);
    if (n === null) unreadable.push(`${where}: container ${c.name ?? '?'} ${name} ${JSON.stringify(raw)}`);
    else out.set(name, (out.get(name) ?? 0) + n);
  }
  return out;
}

function add(into: Amounts, from: Amounts): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

/**
 * A pod's GPUs by the scheduler's rule: app containers summed; an init container needs its own
 * amount plus the sidecars (init containers with restartPolicy Always) started before it; the pod
 * needs the larger of the two, per resource; overhead on top.
 */
export function podSpecDevices(pod: KubeObject, unreadable: string[] = [], isGpuName = gpuNames(DEFAULT_GPU_RESOURCES)): Amounts {
  const spec = (pod.spec ?? {}) as { containers?: Container[]; initContainers?: Container[]; overhead?: Record<string, unknown> };
  const where = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  const app: Amounts = new Map();
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) add(app, containerAmounts(c, where, unreadable, isGpuName));
  const sidecars: Amounts = new Map();
  const initPeak: Amounts = new Map();
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) {
    const own = containerAmounts(c, where, unreadable, isGpuName);
    if (c.restartPolicy === 'Always') {
      add(sidecars, own);
      continue;
    }
    for (const name of new Set([...own.keys(), ...sidecars.keys()])) {
      initPeak.set(name, Math.max(initPeak.get(name) ?? 0, (own.get(name) ?? 0) + (sidecars.get(name) ?? 0)));
    }
  }
  const out: Amounts = new Map();
  for (const name of new Set([...app.keys(), ...sidecars.keys(), ...initPeak.keys()])) {
    const v = Math.max((app.get(name) ?? 0) + (sidecars.get(name) ?? 0), initPeak.get(name) ?? 0);
    if (v > 0) out.set(name, v);
  }
  for (const [name, raw] of Object.entries(spec.overhead ?? {})) {
    if (!isGpuName(name)) continue;
    const n = count(raw);
    if (n !== null) out.set(name, (out.get(name) ?? 0) + n);
  }
  return out;
}

function isLive(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

export function conservation(src: ConservationSource): ClusterBalance[] {
  const isGpuName = gpuNames(src.gpuResources ?? DEFAULT_GPU_RESOURCES);
  const rowsByCluster = new Map<string, WorkloadRow[]>();
  for (const r of src.allRows()) {
    const list = rowsByCluster.get(r.cluster);
    if (list) list.push(r);
    else rowsByCluster.set(r.cluster, [r]);
  }
  return src.clusterNames().map((cluster) => {
    const byPods: Amounts = new Map();
    const uncounted: string[] = [];
    const unreadable: string[] = [];
    for (const pod of src.pods(cluster)) {
      if (!isLive(pod)) continue;
      const amounts = podSpecDevices(pod, unreadable, isGpuName);
      add(byPods, amounts);
      if (amounts.size > 0 && src.rowIdOf(cluster, String(pod.metadata?.uid ?? '')) === undefined) uncounted.push(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
    }
    const byRows: Amounts = new Map();
    for (const r of rowsByCluster.get(cluster) ?? []) add(byRows, new Map(Object.entries(r.gpus.byResource.requested)));
    const resources = [...new Set([...byPods.keys(), ...byRows.keys()])].sort().map((resource) => ({ resource, rows: round(byRows.get(resource) ?? 0), pods: round(byPods.get(resource) ?? 0) }));
    const ok = uncounted.length === 0 && unreadable.length === 0 && resources.every((b) => b.rows === b.pods);
    return { cluster, resources, uncounted: uncounted.sort(), unreadable, ok };
  });
}

const round = (n: number) => Math.round(n * 1000) / 1000;
