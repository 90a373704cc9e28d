/**
 * GPU accounting (DESIGN.md decision 4). The effective request of a pod follows the scheduler's rules:
 * per container the request, or the limit when only a limit is set (extended resources such as GPUs
 * may only be set as limits); init containers run one at a time, so the pod needs the larger of the
 * biggest init container and the sum of the app containers; sidecars (init containers with
 * `restartPolicy: Always`) keep running and add to both; pod overhead adds on top.
 */
import { deviceCount } from '../../lib/quantity/index.ts';
import type { GpuAmounts, GpuFigures, GpuTotal } from './tree.ts';

export type GpuResourceMatcher = (resourceName: string) => boolean;

/** `nvidia.com/gpu`, MIG slices, shared (time-sliced) GPUs, AMD and Intel GPUs. */
export const DEFAULT_GPU_RESOURCES: readonly string[] = [
  'nvidia.com/gpu',
  'nvidia.com/mig-*',
  'nvidia.com/gpu.shared',
  'amd.com/gpu',
  // Intel's device resources; not gpu.intel.com/memory.max (bytes) or /millicores (a share of the same GPU).
  'gpu.intel.com/i915',
  'gpu.intel.com/xe',
];

export function gpuResourceMatcher(patterns: readonly string[] = DEFAULT_GPU_RESOURCES): GpuResourceMatcher {
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  const cache = new Map<string, boolean>();
  return (name) => {
    let r = cache.get(name);
    if (r === undefined) {
      r = exact.has(name) || prefixes.some((p) => name.startsWith(p));
      cache.set(name, r);
    }
    return r;
  };
}

export const isDefaultGpuResource = gpuResourceMatcher();

interface ContainerLike {
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } | null;
  restartPolicy?: string;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Called with what cannot be counted (`container c: nvidia.com/gpu "1.5" must be an integer …`); the amount is left out. */
export type QuantityProblem = (message: string) => void;

function devices(raw: unknown, what: () => string, report?: QuantityProblem): number | null {
  const d = deviceCount(raw);
  if (d.ok) return d.value;
  report?.(`${what()} ${JSON.stringify(raw)} ${d.message}; not counted`);
  return null;
}

/**
 * GPU amounts one container asks for: request, else limit. GPU resources are extended resources:
 * whole devices, read exactly as the API server reads quantities; a value it would reject is
 * reported and not counted (never a silent 0, never a fraction).
 */
export function containerGpus(c: unknown, isGpu: GpuResourceMatcher = isDefaultGpuResource, report?: QuantityProblem): GpuAmounts {
  const out: GpuAmounts = {};
  if (!isObj(c)) return out;
  const res = (c as ContainerLike).resources;
  if (!isObj(res)) return out;
  const requests = isObj(res.requests) ? res.requests : null;
  const limits = isObj(res.limits) ? res.limits : null;
  const where = (field: string, name: string) => () => `container ${String((c as { name?: unknown }).name ?? '?')}: resources.${field}["${name}"]`;
  // Hot path (every pod of every workload): plain loops, no intermediate sets.
  if (requests) {
    for (const name in requests) {
      // A null request is an absent one (Kubernetes drops it), so the limit applies.
      if (requests[name] === null || requests[name] === undefined || !isGpu(name)) continue;
      const q = devices(requests[name], where('requests', name), report);
      if (q !== null && q > 0) out[name] = q;
    }
  }
  if (limits) {
    for (const name in limits) {
      if ((requests && requests[name] !== null && requests[name] !== undefined) || !isGpu(name)) continue;
      const q = devices(limits[name], where('limits', name), report);
      if (q !== null && q > 0) out[name] = q;
    }
  }
  return out;
}

function addInto(target: GpuAmounts, add: GpuAmounts, factor = 1): void {
  for (const [k, v] of Object.entries(add)) target[k] = (target[k] ?? 0) + v * factor;
}

function maxInto(target: GpuAmounts, other: GpuAmounts): void {
  for (const [k, v] of Object.entries(other)) if (v > (target[k] ?? 0)) target[k] = v;
}

/** Effective GPU request of a pod spec (`{containers, initContainers, overhead}`). */
export function podSpecGpus(spec: unknown, isGpu: GpuResourceMatcher = isDefaultGpuResource, report?: QuantityProblem): GpuAmounts {
  if (!isObj(spec)) return {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers : [];
  const app: GpuAmounts = {};
  for (const c of containers) addInto(app, containerGpus(c, isGpu, report));
  const sidecarsSoFar: GpuAmounts = {};
  const initPeak: GpuAmounts = {};
  for (const c of inits) {
    const g = containerGpus(c, isGpu, report);
    if (isObj(c) && c.restartPolicy === 'Always') {
      addInto(sidecarsSoFar, g);
      maxInto(initPeak, { ...sidecarsSoFar });
    } else {
      const during: GpuAmounts = { ...sidecarsSoFar };
      addInto(during, g);
      maxInto(initPeak, during);
    }
  }
  const steady: GpuAmounts = { ...app };
  addInto(steady, sidecarsSoFar);
  const out: GpuAmounts = { ...steady };
  maxInto(out, initPeak);
  if (isObj(spec.overhead)) {
    for (const [k, v] of Object.entries(spec.overhead)) {
      const q = isGpu(k) ? devices(v, () => `overhead["${k}"]`, report) : null;
      if (q !== null && q > 0 && out[k] !== undefined) out[k] += q;
    }
  }
  return out;
}

export function emptyTotal(): GpuTotal {
  return { total: 0, byResource: {} };
}

/** One unit of a resource in GPU devices (lib/gpu/device-worth.ts); null when it cannot be converted. */
export type Worth = (resource: string) => number | null;

/** Whole devices, the worth of every resource when nothing says otherwise. */
const WHOLE: Worth = () => 1;

/**
 * Adds amounts to a total: `byResource` keeps the raw counts, `total` counts devices' worth (a MIG
 * slice a fraction of its GPU); an amount whose worth is unknown goes to `apart`, not into `total`.
 */
export function addToTotal(t: GpuTotal, amounts: GpuAmounts, factor = 1, worth: Worth = WHOLE): void {
  for (const [k, v] of Object.entries(amounts)) {
    const n = v * factor;
    if (n === 0) continue;
    t.byResource[k] = (t.byResource[k] ?? 0) + n;
    const w = worth(k);
    if (w === null) {
      t.apart ??= {};
      t.apart[k] = (t.apart[k] ?? 0) + n;
    } else t.total += n * w;
  }
}

export function emptyFigures(): GpuFigures {
  return { desired: emptyTotal(), requested: emptyTotal(), allocated: emptyTotal() };
}

/** One pod's GPUs into every level's figures: requested while live, allocated while it holds them. */
export function addPodToFigures(figures: readonly GpuFigures[], gpus: GpuAmounts, live: boolean, allocated: boolean, worth: Worth = WHOLE): void {
  for (const f of figures) {
    if (live) addToTotal(f.requested, gpus, 1, worth);
    if (allocated) addToTotal(f.allocated, gpus, 1, worth);
  }
}

export function sumAmounts(a: GpuAmounts): number {
  let s = 0;
  for (const v of Object.values(a)) s += v;
  return s;
}
