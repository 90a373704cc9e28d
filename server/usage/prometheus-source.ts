/**
 * Readings from a Prometheus that scrapes the DCGM exporters. One query per refresh for all the
 * cluster's GPUs (never per workload): the current values and the highest utilization over the idle
 * window, tagged apart by a label, with only the labels the join reads kept (the answer for 20,000
 * GPUs is megabytes otherwise).
 */
import { DCGM_METRICS, readingsOf, type DcgmSample, type DeviceReading } from './dcgm.ts';
import type { PrometheusClient, VectorSample } from './prometheus.ts';
import type { PodRef, PodSeries, SourceRead, UsageSource } from './source.ts';

/** The labels a reading is keyed and described by; the others (job, instance, driver, pci bus) are dropped. */
const KEEP = ['Hostname', 'kubernetes_node', 'node', 'gpu', 'UUID', 'modelName', 'GPU_I_PROFILE', 'GPU_I_ID', 'namespace', 'pod', 'container', 'exported_namespace', 'exported_pod', 'exported_container'];
const TAG = 'wmap_metric';
const KEY = 'wmap_k';
/** Joins the kept labels' values into one (no label value of these holds a unit separator). */
const SEP = '\u001f';
const MAX = 'max:';

/**
 * An expression's series with the kept labels' values joined into one label: the answer then names
 * each label once per query instead of once per series (20,000 GPUs: a third of the bytes, and a
 * fraction of the objects to parse).
 */
function packed(expr: string): string {
  return `max by (${KEY}, ${TAG}) (label_join(${expr}, "${KEY}", "\\x1f", ${KEEP.map((l) => `"${l}"`).join(', ')}))`;
}

/** The kept labels of a packed series (cached per key: a device's series share it); null when malformed. */
function unpacker(): (metric: Record<string, string>) => Record<string, string> | null {
  const cache = new Map<string, Record<string, string> | null>();
  return (metric) => {
    const k = metric[KEY];
    if (k === undefined) return metric;
    const known = cache.get(k);
    if (known !== undefined) return known;
    const parts = k.split(SEP);
    let labels: Record<string, string> | null = null;
    if (parts.length === KEEP.length) {
      labels = {};
      for (let i = 0; i < parts.length; i++) if (parts[i] !== '') labels[KEEP[i]] = parts[i];
    }
    cache.set(k, labels);
    return labels;
  };
}

const { util, engine, fbUsed, fbFree } = DCGM_METRICS;

/**
 * PromQL for the refresh: current values, and — for the GPUs below the idle threshold now (a busy one
 * is not idle, whatever its window holds) — the highest utilization over the window. Engine activity
 * is read only where no whole-GPU GPU_UTIL series stands for the same device (MIG instances, or
 * exporters without GPU_UTIL): with the profiling counters on, every GPU has both.
 */
export function refreshQuery(windowSeconds: number, threshold: number): string {
  const w = `${Math.max(1, Math.round(windowSeconds))}s`;
  const unlessUtil = `unless on (UUID, GPU_I_ID) ${util}{GPU_I_ID=""}`;
  // Each part is tagged before the `or`s: set operators match label sets without the metric name,
  // so an instance's engine series would otherwise be taken for its memory series and dropped.
  const tag = (expr: string, value: string) => packed(`label_replace(${expr}, "${TAG}", "${value}", "", "")`);
  const current = packed(`label_replace({__name__=~"${[util, fbUsed, fbFree].join('|')}"}, "${TAG}", "$1", "__name__", "(.+)")`);
  return [
    current,
    tag(`${engine} ${unlessUtil}`, engine),
    tag(`max_over_time(${util}[${w}]) and ${util} < ${threshold}`, `${MAX}${util}`),
    tag(`(max_over_time(${engine}[${w}]) ${unlessUtil}) and ${engine} < ${threshold / 100}`, `${MAX}${engine}`),
  ].join(' or ');
}

/** The last busy time of each series within the look-back, by subquery at one-minute resolution. */
export function lastBusyQuery(threshold: number, lookbackSeconds: number): string {
  const step = 60;
  const busy = (m: string, t: number) => packed(`label_replace(max_over_time(timestamp(${m} >= ${t})[${Math.round(lookbackSeconds)}s:${step}s]), "${TAG}", "${m}", "", "")`);
  return `${busy(util, threshold)} or ${busy(engine, threshold / 100)}`;
}

function samplesOf(vector: VectorSample[]): DcgmSample[] {
  const out: DcgmSample[] = [];
  const unpack = unpacker();
  for (const s of vector) {
    const tag = s.metric[TAG];
    const labels = unpack(s.metric);
    if (!tag || !labels) continue;
    const windowMax = tag.startsWith(MAX);
    out.push({ name: windowMax ? tag.slice(MAX.length) : tag, labels, value: s.value, windowMax, key: s.metric[KEY] });
  }
  return out;
}

function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

function escapeString(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** Above this many pods a range query selects the namespace and the pods are picked out here (a regex of thousands of names is slow to match). */
const POD_REGEX_LIMIT = 200;

export class PrometheusSource implements UsageSource {
  readonly kind = 'prometheus' as const;
  readonly history = true;
  readonly detail: string;
  readonly identity: string;
  private readonly client: PrometheusClient;

  constructor(client: PrometheusClient, detail: string) {
    this.client = client;
    this.detail = detail;
    this.identity = `prometheus ${client.transport.describe}`;
  }

  async read(windowSeconds: number, threshold: number, signal?: AbortSignal): Promise<SourceRead> {
    const { samples, warnings, bytes } = await this.client.query(refreshQuery(windowSeconds, threshold), undefined, signal);
    // Every sample of an instant query carries the query's evaluation time.
    const at = samples.length > 0 ? samples[0].time * 1000 : Date.now();
    const readings = readingsOf(samplesOf(samples));
    // Without a window figure (busy now, or no sample in the window) the refreshes' own readings decide.
    for (const r of readings) if (r.windowMax === undefined) r.windowMax = null;
    return { readings, at, warnings, bytes };
  }

  async lastBusy(threshold: number, lookbackSeconds: number, signal?: AbortSignal): Promise<Map<string, number>> {
    const { samples } = await this.client.query(lastBusyQuery(threshold, lookbackSeconds), undefined, signal);
    const out = new Map<string, number>();
    const unpack = unpacker();
    // Each sample's value is the timestamp (unix seconds) of the last busy point of its series.
    for (const s of samples) {
      const labels = unpack(s.metric);
      const [r] = labels ? readingsOf([{ name: s.metric[TAG] ?? util, labels, value: 0, key: s.metric[KEY] }]) : [];
      if (!r || !Number.isFinite(s.value)) continue;
      const key = r.key;
      out.set(key, Math.max(out.get(key) ?? 0, s.value * 1000));
    }
    return out;
  }

  async range(pods: readonly PodRef[], start: number, end: number, stepSeconds: number, signal?: AbortSignal): Promise<Map<string, PodSeries>> {
    const out = new Map<string, PodSeries>();
    if (pods.length === 0) return out;
    const wanted = new Set(pods.map((p) => `${p.namespace}/${p.pod}`));
    const namespaces = [...new Set(pods.map((p) => p.namespace))];
    const nsRe = namespaces.map(escapeRegex).join('|');
    const podRe = pods.length <= POD_REGEX_LIMIT ? `, POD=~"${escapeString(pods.map((p) => escapeRegex(p.pod)).join('|'))}"` : '';
    const sel = (nsLabel: string, podLabel: string, metric: string) => `${metric}{${nsLabel}=~"${escapeString(nsRe)}"${podRe.replace('POD', podLabel)}}`;
    const metricExpr = (m: string, scale: string) => [sel('namespace', 'pod', m), sel('exported_namespace', 'exported_pod', m)].map((x) => `label_replace(${x}${scale}, "${TAG}", "${m}", "", "")`).join(' or ');
    const expr = `${packed(metricExpr(util, ''))} or ${packed(metricExpr(engine, ' * 100'))}`;
    const series = await this.client.queryRange(expr, start, end, stepSeconds, signal);
    // Per reading: a whole GPU's GPU_UTIL, else its engine activity; a MIG instance's engine activity only.
    const chosen = new Map<string, { reading: DeviceReading; metric: string; values: Array<[number, number]> }>();
    const unpack = unpacker();
    for (const s of series) {
      const metric = s.metric[TAG] ?? util;
      const labels = unpack(s.metric);
      const [r] = labels ? readingsOf([{ name: metric, labels, value: 0, key: s.metric[KEY] }]) : [];
      if (!r || !r.pod || !r.namespace || !wanted.has(`${r.namespace}/${r.pod}`)) continue;
      const key = r.key;
      const prev = chosen.get(key);
      const preferred = r.mig ? engine : util;
      if (prev && (prev.metric === preferred || metric !== preferred)) continue;
      chosen.set(key, { reading: r, metric, values: s.values });
    }
    for (const [key, c] of chosen) {
      const podKey = `${c.reading.namespace}/${c.reading.pod}`;
      let m = out.get(podKey);
      if (!m) out.set(podKey, (m = new Map()));
      m.set(key, c.values.map(([t, v]) => [t, Math.min(100, Math.max(0, v))] as [number, number]));
    }
    return out;
  }
}
