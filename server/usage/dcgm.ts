/**
 * DCGM exporter series → one reading per (device or MIG instance, pod). The same samples come from
 * an exporter's `/metrics` or from a Prometheus instant query; Prometheus without `honor_labels`
 * renames the exporter's `pod`/`namespace`/`container` to `exported_*`, which is read as well.
 *
 * Utilization: a whole GPU's `DCGM_FI_DEV_GPU_UTIL` (percent), else its graphics-engine activity
 * (`DCGM_FI_PROF_GR_ENGINE_ACTIVE`, a 0–1 ratio) × 100; a MIG instance only by its engine activity,
 * because GPU_UTIL is the parent device's and not per instance.
 */

export const DCGM_METRICS = {
  util: 'DCGM_FI_DEV_GPU_UTIL',
  engine: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
  fbUsed: 'DCGM_FI_DEV_FB_USED',
  fbFree: 'DCGM_FI_DEV_FB_FREE',
} as const;

const WANTED = new Set<string>(Object.values(DCGM_METRICS));

export function isDcgmMetric(name: string): boolean {
  return WANTED.has(name);
}

/** A sample; `windowMax` marks the highest value over the idle window (Prometheus's max_over_time) rather than the current one. */
export interface DcgmSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  windowMax?: boolean;
  /** An identity of the sample's device and pod given by the source (Prometheus's joined labels): samples of a known one skip reading their labels. */
  key?: string;
}

export interface DeviceReading {
  /** Its identity across refreshes of one source (device or instance, and pod). */
  key: string;
  node: string;
  gpu: string;
  uuid: string;
  model: string | null;
  mig: { profile: string; instance: string } | null;
  namespace: string | null;
  pod: string | null;
  container: string | null;
  /** Percent 0–100, null when not reported. */
  utilization: number | null;
  memUsedMiB: number | null;
  memFreeMiB: number | null;
  /** Highest utilization over the idle window (percent) when the source keeps history; undefined otherwise. */
  windowMax?: number | null;
}

/** The key of one reading: device (or instance) and the pod holding it. */
export function readingKey(r: Pick<DeviceReading, 'node' | 'uuid' | 'mig' | 'namespace' | 'pod'>): string {
  // Not `mig.profile`: an instance is its id on its device.
  return `${r.node}\u0000${r.uuid}\u0000${r.mig?.instance ?? ''}\u0000${r.namespace ?? ''}\u0000${r.pod ?? ''}`;
}

function label(l: Record<string, string>, ...names: string[]): string | null {
  for (const n of names) {
    const v = l[n];
    if (v !== undefined && v !== '') return v;
  }
  return null;
}

interface Acc {
  reading: DeviceReading;
  util: number | null;
  engine: number | null;
  maxUtil: number | null;
  maxEngine: number | null;
  sawMax: boolean;
}

function finite(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

// Rounded to a hundredth: a ratio × 100 is not exact in floating point (0.29 × 100 = 28.999…).
const clampPercent = (v: number | null): number | null => (v === null ? null : Math.round(Math.min(100, Math.max(0, v)) * 100) / 100);

/** Groups samples into readings; samples without a device identity are skipped. */
export function readingsOf(samples: Iterable<DcgmSample>): DeviceReading[] {
  const acc = new Map<string, Acc>();
  for (const s of samples) {
    let a = s.key === undefined ? undefined : acc.get(s.key);
    if (!a) {
      const l = s.labels;
      const node = label(l, 'Hostname', 'kubernetes_node', 'node');
      const gpu = label(l, 'gpu');
      const uuid = label(l, 'UUID', 'uuid') ?? (node && gpu !== null ? `${node}/gpu${gpu}` : null);
      if (!node || gpu === null || !uuid) continue;
      const profile = label(l, 'GPU_I_PROFILE');
      const instance = label(l, 'GPU_I_ID');
      // The exporter's own labels win over the ones Prometheus renamed them from.
      const pod = label(l, 'exported_pod', 'pod');
      const namespace = pod ? label(l, 'exported_namespace', 'namespace') : null;
      const mig = instance !== null ? { profile: profile ?? '?', instance } : null;
      const key = s.key ?? readingKey({ node, uuid, mig, namespace, pod });
      a = acc.get(key);
      if (!a) {
        a = {
          reading: { key, node, gpu, uuid, model: label(l, 'modelName'), mig, namespace, pod, container: pod ? label(l, 'exported_container', 'container') : null, utilization: null, memUsedMiB: null, memFreeMiB: null },
          util: null, engine: null, maxUtil: null, maxEngine: null, sawMax: false,
        };
        acc.set(key, a);
      }
    }
    const v = finite(s.value);
    if (s.windowMax) {
      a.sawMax = true;
      if (s.name === DCGM_METRICS.util) a.maxUtil = v;
      else if (s.name === DCGM_METRICS.engine) a.maxEngine = v === null ? null : v * 100;
      continue;
    }
    if (s.name === DCGM_METRICS.util) a.util = v;
    else if (s.name === DCGM_METRICS.engine) a.engine = v === null ? null : v * 100;
    else if (s.name === DCGM_METRICS.fbUsed) a.reading.memUsedMiB = v;
    else if (s.name === DCGM_METRICS.fbFree) a.reading.memFreeMiB = v;
  }
  const out: DeviceReading[] = [];
  for (const a of acc.values()) {
    const r = a.reading;
    r.utilization = clampPercent(r.mig ? a.engine : (a.util ?? a.engine));
    if (a.sawMax) r.windowMax = clampPercent(r.mig ? a.maxEngine : (a.maxUtil ?? a.maxEngine));
    out.push(r);
  }
  return out;
}
