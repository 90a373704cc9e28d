/**
 * Utilization joined to workloads: the pods of a tree that hold GPUs (bound, not finished) and what
 * their devices are worth, matched by namespace/name to the cluster's readings, summed per
 * workload, role, instance and pod. Pure.
 *
 * Weights are devices' worth, so a MIG 1g slice counts 1/7 of a GPU and "used" adds up to GPUs; a
 * time-sliced GPU's readings are the device's, shared with the other pods on it, so its memory
 * counts by the pod's share. A pod younger than the idle window is not idle yet, whatever its
 * device was doing before it.
 */
import type { GpuReading, IdleRule, RowUsage, UsageFigures, WorkloadUsage } from '../../contract/index.ts';
import { deviceWorth, type NodeGpuInfo } from '../../lib/gpu/device-worth.ts';
import type { KubeObject, WorkloadTree } from '../engine/index.ts';
import type { ReadingState, UsageSnapshot } from '../usage/index.ts';

const MiB = 1024 * 1024;

export interface GpuHolder {
  /** `namespace/name` */
  key: string;
  name: string;
  /** Devices' worth of the GPUs it holds. */
  worth: number;
  shared: boolean;
  component: string | null;
  instance: string | null;
  role: string | null;
  /** Epoch ms of `status.startTime` (else creation); null when neither is known. */
  startedAt: number | null;
}

const time = (s: unknown): number | null => {
  const t = typeof s === 'string' ? Date.parse(s) : Number.NaN;
  return Number.isFinite(t) ? t : null;
};

/** The tree's pods that hold GPUs now, with their worth and role. */
export function gpuHoldersOf(tree: WorkloadTree, podObject: (uid: string) => KubeObject | undefined, nodeGpu: (node: string) => NodeGpuInfo | null): GpuHolder[] {
  const roleOf = new Map(tree.roles.map((r) => [`${r.component}\u0000${r.instance}`, r.name]));
  const out: GpuHolder[] = [];
  for (const p of [...tree.pods, ...tree.unmatchedPods]) {
    if (!p.allocated || !p.node) continue;
    let worth = 0;
    let shared = false;
    const info = nodeGpu(p.node);
    for (const [resource, n] of Object.entries(p.gpus)) {
      if (!(n > 0)) continue;
      worth += n * (deviceWorth(resource, info) ?? 0);
      if (resource.endsWith('.shared')) shared = true;
    }
    if (worth <= 0) continue;
    const obj = podObject(p.uid);
    const status = obj?.status as { startTime?: string } | undefined;
    out.push({
      key: `${p.namespace}/${p.name}`,
      name: p.name,
      worth,
      shared,
      component: p.component,
      instance: p.instance,
      role: p.component !== null ? (roleOf.get(`${p.component}\u0000${p.instance ?? ''}`) ?? p.component) : null,
      startedAt: time(status?.startTime) ?? time(obj?.metadata?.creationTimestamp),
    });
  }
  return out;
}

const round = (n: number, d = 1000) => Math.round(n * d) / d;

/** The figures of a set of GPU holders, from a cluster's readings (null: no source). */
export function figuresOf(holders: readonly GpuHolder[], snap: UsageSnapshot | null): UsageFigures {
  let allocated = 0;
  let measured = 0;
  let utilSum = 0;
  let memUsed = 0;
  let memTotal = 0;
  let memKnown = false;
  let idle = 0;
  let idleKnown = false;
  let idleSince: number | null = null;
  let withMetrics = 0;
  const windowMs = (snap?.idle.windowSeconds ?? 0) * 1000;
  const at = snap?.at ?? null;
  for (const h of holders) {
    allocated += h.worth;
    const readings = snap?.byPod.get(h.key);
    if (!readings || readings.length === 0) continue;
    withMetrics++;
    const weight = h.worth / readings.length;
    const young = h.startedAt !== null && at !== null && at - h.startedAt < windowMs;
    for (const r of readings) {
      if (r.utilization !== null) {
        measured += weight;
        utilSum += r.utilization * weight;
      }
      if (r.memUsedMiB !== null && r.memFreeMiB !== null) {
        const share = h.shared ? weight : 1;
        memKnown = true;
        memUsed += r.memUsedMiB * MiB * share;
        memTotal += (r.memUsedMiB + r.memFreeMiB) * MiB * share;
      }
      if (r.idle === null) continue;
      idleKnown = true;
      if (!r.idle || young) continue;
      idle += weight;
      const since = Math.max(r.since ?? Number.NEGATIVE_INFINITY, h.startedAt ?? Number.NEGATIVE_INFINITY);
      if (Number.isFinite(since) && (idleSince === null || since < idleSince)) idleSince = since;
    }
  }
  return {
    allocated: round(allocated),
    measured: round(measured),
    utilization: measured > 0 ? round(utilSum / measured, 10) : null,
    used: measured > 0 ? round(utilSum / 100) : null,
    memory: memKnown ? { usedBytes: Math.round(memUsed), totalBytes: Math.round(memTotal) } : null,
    idle: idleKnown ? round(idle) : null,
    idleSince: idleSince === null ? null : new Date(idleSince).toISOString(),
    pods: { gpu: holders.length, withMetrics },
  };
}

/** A row's figures; null when it holds no GPUs. */
export function rowUsageOf(holders: readonly GpuHolder[], snap: UsageSnapshot | null): RowUsage | null {
  if (holders.length === 0) return null;
  const f = figuresOf(holders, snap);
  return { ...f, source: snap?.source ?? 'none', at: f.measured > 0 && snap?.at ? new Date(snap.at).toISOString() : null };
}

export function readingOut(r: ReadingState, worth: number, shared: boolean): GpuReading {
  return {
    node: r.node,
    gpu: r.gpu,
    uuid: r.uuid,
    model: r.model,
    mig: r.mig,
    utilization: r.utilization,
    memory: r.memUsedMiB !== null && r.memFreeMiB !== null ? { usedBytes: r.memUsedMiB * MiB, totalBytes: (r.memUsedMiB + r.memFreeMiB) * MiB } : null,
    idle: r.idle,
    idleSince: r.idle && r.since !== null ? new Date(r.since).toISOString() : null,
    shared,
    worth: round(worth),
  };
}

const DEFAULT_RULE: IdleRule = { thresholdPercent: 5, windowSeconds: 900 };

/** The detail page's figures: workload, each role and instance, each GPU pod with its devices. */
export function workloadUsageOf(tree: WorkloadTree, holders: readonly GpuHolder[], snap: UsageSnapshot | null): WorkloadUsage | null {
  if (holders.length === 0) return null;
  const group = (key: (h: GpuHolder) => string | null) => {
    const m = new Map<string, GpuHolder[]>();
    for (const h of holders) {
      const k = key(h);
      if (k === null) continue;
      const a = m.get(k);
      if (a) a.push(h);
      else m.set(k, [h]);
    }
    return m;
  };
  const byRole = group((h) => h.role);
  const byInstance = group((h) => (h.component === null ? null : `${h.component}\u0000${h.instance ?? ''}`));
  const roleOrder = [...new Set([...tree.roles.map((r) => r.name), ...byRole.keys()])].filter((n) => byRole.has(n));
  const pods: WorkloadUsage['pods'] = {};
  for (const h of holders) {
    const readings = snap?.byPod.get(h.key) ?? [];
    pods[h.name] = { figures: figuresOf([h], snap), gpus: readings.map((r) => readingOut(r, h.worth / readings.length, h.shared)) };
  }
  return {
    source: snap?.source ?? 'none',
    at: snap?.at ? new Date(snap.at).toISOString() : null,
    idle: snap?.idle ?? DEFAULT_RULE,
    history: snap?.history ?? false,
    workload: figuresOf(holders, snap),
    roles: roleOrder.map((name) => ({ name, figures: figuresOf(byRole.get(name)!, snap) })),
    instances: [...byInstance.entries()].map(([k, hs]) => {
      const [component, instance] = k.split('\u0000');
      return { component, instance, figures: figuresOf(hs, snap) };
    }),
    pods,
  };
}
