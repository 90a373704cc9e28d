/**
 * The figures of every GPU unit of a node at a moment (pure over the tracker's state): one entry per
 * whole device, per MIG instance, and per (time-sliced device, sharing pod), with the holder's pod and
 * container, utilization, memory, power and temperature. The exporter renders these entries, and the
 * ground truth (`groundTruthUsage`, `GET /__sim/usage`) returns them, so both say the same for a bucket.
 */

import type { ObjectStore } from '../store/object-store.ts';
import type { Held, NodeGpus } from './device-tracker.ts';
import { deviceTrackerFor } from './device-tracker.ts';
import type { Load } from './load-model.ts';
import { bucketOf, loadAt, UNUSED, unit } from './load-model.ts';
import type { GpuDevice } from './node-devices.ts';

export interface UnitUsage {
  node: string;
  gpu: number;
  uuid: string;
  pciBusId: string;
  modelName: string;
  mig: { profile: string; instance: number } | null;
  namespace: string | null;
  pod: string | null;
  container: string | null;
  /** Percent 0..100 (for a MIG instance: its graphics engine activity × 100). */
  utilization: number;
  memoryUsedMiB: number;
  memoryTotalMiB: number;
  /** Device-level (a MIG instance reports its parent's). */
  powerW: number;
  temperatureC: number;
}

/** The ground truth's entry: what a consumer should have read for a unit. */
export type GroundTruthGpu = Pick<UnitUsage, 'node' | 'gpu' | 'uuid' | 'modelName' | 'mig' | 'namespace' | 'pod' | 'container' | 'utilization' | 'memoryUsedMiB' | 'memoryTotalMiB'>;

export interface GroundTruth {
  /** Start of the 10-second bucket the figures belong to (simulated time, ISO). */
  at: string;
  gpus: GroundTruthGpu[];
}

/** Idle and full-load board power per model (W). */
const POWER: Array<[RegExp, number, number]> = [
  [/H100|H200/, 72, 700],
  [/A100/, 58, 400],
  [/A30/, 33, 165],
  [/L40/, 36, 350],
  [/L4\b/, 16, 72],
  [/T4/, 10, 70],
];

function powerRange(model: string): [number, number] {
  for (const [re, idle, max] of POWER) if (re.test(model)) return [idle, max];
  return [50, 300];
}

function loadOf(held: Held | undefined, seed: number, at: number, key: string): Load {
  if (!held || !held.holder.running) return UNUSED;
  const h = held.holder;
  return loadAt({ seed, profile: h.profile, key: `${h.namespace}/${h.pod}/${key}`, at, startedAt: h.startedAt });
}

function compareHolders(a: Held, b: Held): number {
  const ka = `${a.holder.namespace}/${a.holder.pod}`;
  const kb = `${b.holder.namespace}/${b.holder.pod}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Pure: the entries of one node at simulated time `at` (ms), devices in index order. */
export function nodeUsage(n: NodeGpus, seed: number, at: number): UnitUsage[] {
  const b = bucketOf(at);
  const node = n.devices.node;
  // Per device: the units held on it, whatever resource they were advertised under.
  const perDevice = new Map<number, Array<{ unit: number | undefined; replica: number | undefined; held: Held | undefined }>>();
  for (const [resource, units] of n.devices.units) {
    const holders = n.holders.get(resource)!;
    units.forEach((u, i) => {
      let list = perDevice.get(u.device);
      if (!list) perDevice.set(u.device, (list = []));
      list.push({ unit: u.mig, replica: u.replica, held: holders[i] });
    });
  }
  const out: UnitUsage[] = [];
  for (const d of n.devices.devices) {
    const units = perDevice.get(d.index) ?? [];
    const base = { node, gpu: d.index, uuid: d.uuid, pciBusId: d.pciBusId, modelName: d.modelName };
    const physical = (util: number): { powerW: number; temperatureC: number } => devicePhysics(d, util, seed, node, b);
    if (d.mig) {
      const loads = d.mig.map((m, k) => {
        const held = units.find((u) => u.unit === k)?.held;
        return { m, held, load: loadOf(held, seed, at, `${d.uuid}/${m.instance}`) };
      });
      const slices = (p: string): number => Number(/^(\d+)g/.exec(p)?.[1] ?? 1);
      const total = Math.max(7, loads.reduce((s, x) => s + slices(x.m.profile), 0));
      const phys = physical(loads.reduce((s, x) => s + x.load.utilization * slices(x.m.profile), 0) / total);
      for (const x of loads) {
        out.push({ ...base, mig: { profile: x.m.profile, instance: x.m.instance }, ...owner(x.held), utilization: x.load.utilization, ...memory(x.load, x.m.memoryMiB), ...phys });
      }
      continue;
    }
    if (d.replicas) {
      // Time-slicing: one device, shared; every sharing pod sees the device's figures.
      const sharing = units.filter((u) => u.held).map((u) => u.held!);
      const pods = [...new Map(sharing.map((h) => [h.holder.uid, h])).values()].sort(compareHolders);
      const loads = pods.map((h) => loadOf(h, seed, at, d.uuid));
      const util = Math.min(100, loads.reduce((s, l) => s + l.utilization, 0));
      const mem = pods.length === 0 ? UNUSED.memory : Math.min(0.99, loads.reduce((s, l) => s + l.memory / d.replicas!, 0));
      const figures = { utilization: util, ...memory({ utilization: util, memory: mem }, d.memoryMiB), ...physical(util) };
      if (pods.length === 0) out.push({ ...base, mig: null, ...owner(undefined), ...figures });
      for (const h of pods) out.push({ ...base, mig: null, ...owner(h), ...figures });
      continue;
    }
    const held = units[0]?.held;
    const load = loadOf(held, seed, at, d.uuid);
    out.push({ ...base, mig: null, ...owner(held), utilization: load.utilization, ...memory(load, d.memoryMiB), ...physical(load.utilization) });
  }
  return out;
}

function owner(held: Held | undefined): Pick<UnitUsage, 'namespace' | 'pod' | 'container'> {
  return held ? { namespace: held.holder.namespace, pod: held.holder.pod, container: held.container } : { namespace: null, pod: null, container: null };
}

function memory(load: Load, totalMiB: number): Pick<UnitUsage, 'memoryUsedMiB' | 'memoryTotalMiB'> {
  return { memoryUsedMiB: Math.round(totalMiB * load.memory), memoryTotalMiB: totalMiB };
}

/** Board power and temperature follow the device's utilization (with a little noise per bucket). */
function devicePhysics(d: GpuDevice, util: number, seed: number, node: string, bucket: number): { powerW: number; temperatureC: number } {
  const [idle, max] = powerRange(d.modelName);
  const noise = unit(seed, `${node}/${d.index}|power|${bucket}`);
  const powerW = Math.round((idle + ((max - idle) * util) / 100 + noise * 4) * 1000) / 1000;
  const temperatureC = Math.round(31 + (util * 45) / 100 + unit(seed, `${node}/${d.index}|temp|${bucket}`) * 3);
  return { powerW, temperatureC };
}

/** The ground truth of every GPU node of a store at simulated time `simNow` (ms or Date), nodes by name. */
export function groundTruthUsage(store: ObjectStore, seed: number, simNow: number | Date): GroundTruth {
  const at = typeof simNow === 'number' ? simNow : simNow.getTime();
  const tracker = deviceTrackerFor(store);
  const gpus: GroundTruthGpu[] = [];
  for (const name of tracker.gpuNodes()) {
    for (const u of nodeUsage(tracker.node(name)!, seed, at)) {
      gpus.push({ node: u.node, gpu: u.gpu, uuid: u.uuid, modelName: u.modelName, mig: u.mig, namespace: u.namespace, pod: u.pod, container: u.container, utilization: u.utilization, memoryUsedMiB: u.memoryUsedMiB, memoryTotalMiB: u.memoryTotalMiB });
    }
  }
  return { at: new Date(bucketOf(at)).toISOString(), gpus };
}
