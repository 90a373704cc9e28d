/**
 * Resource quantities and effective pod requests, following the Kubernetes rules the scheduler applies:
 * a limit without a request means request = limit; the pod needs max(sum of app containers,
 * largest init container) plus overhead; sidecar init containers (restartPolicy Always) add up.
 */

import type { Container, PodSpec } from './types.ts';

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** Parses a quantity ("500m", "4Gi", "1.5", "2e3", 8) to a number in base units; NaN when malformed. */
export function parseQuantity(q: string | number | undefined): number {
  if (q === undefined) return 0;
  if (typeof q === 'number') return q;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(q.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  const suffix = m[2] ?? '';
  if (/[eE]/.test(m[1]) && suffix === 'E') return NaN;
  return n * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** Formats CPU as the API does for sums: whole cores as "12", else millicores "1500m". */
export function formatCpu(cores: number): string {
  const milli = Math.round(cores * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Formats bytes with the largest binary suffix that divides them ("48Gi", "512Mi", "1000"). */
export function formatBytes(bytes: number): string {
  const b = Math.round(bytes);
  for (const [suffix, f] of [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const) {
    if (b >= f && b % f === 0) return `${b / f}${suffix}`;
  }
  return String(b);
}

export function formatQuantity(resource: string, v: number): string {
  if (resource === 'cpu') return formatCpu(v);
  if (resource === 'memory' || resource.startsWith('hugepages-') || resource === 'ephemeral-storage') return formatBytes(v);
  return String(Math.round(v));
}

export type Resources = Record<string, number>;

/** A container's effective requests: requests, with limits filling in what is not requested. */
export function containerRequests(c: Container): Resources {
  const out: Resources = {};
  const limits = c.resources?.limits ?? {};
  const requests = c.resources?.requests ?? {};
  for (const k in limits) out[k] = parseQuantity(limits[k]);
  for (const k in requests) out[k] = parseQuantity(requests[k]);
  for (const k in out) if (!(out[k] > 0)) delete out[k];
  return out;
}

function add(into: Resources, r: Resources): void {
  for (const k in r) into[k] = (into[k] ?? 0) + r[k];
}

/** The pod's effective request per resource, as the scheduler computes it. */
export function podRequests(spec: PodSpec): Resources {
  const total: Resources = {};
  for (const c of spec.containers ?? []) add(total, containerRequests(c));
  // Sidecars (restartable init containers) run alongside the app containers; others run one at a time.
  const sidecars: Resources = {};
  let initMax: Resources = {};
  for (const c of spec.initContainers ?? []) {
    const r = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      add(sidecars, r);
      continue;
    }
    const withSidecars: Resources = { ...sidecars };
    add(withSidecars, r);
    const next: Resources = { ...initMax };
    for (const k in withSidecars) next[k] = Math.max(next[k] ?? 0, withSidecars[k]);
    initMax = next;
  }
  add(total, sidecars);
  for (const k in initMax) total[k] = Math.max(total[k] ?? 0, initMax[k]);
  for (const k in spec.overhead ?? {}) total[k] = (total[k] ?? 0) + parseQuantity(spec.overhead![k]);
  return total;
}

/** GPU-like extended resources (what the simulated nodes advertise and the scenarios request). */
export function isGpuResource(name: string): boolean {
  return name === 'nvidia.com/gpu' || name.startsWith('nvidia.com/mig-') || name === 'nvidia.com/gpu.shared' || name === 'amd.com/gpu' || name.startsWith('gpu.intel.com/');
}

export function gpuCount(r: Resources): number {
  let n = 0;
  for (const k in r) if (isGpuResource(k)) n += r[k];
  return n;
}
