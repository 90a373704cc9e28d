/**
 * Readings scraped from the DCGM exporter pods themselves, through the API server's pod proxy, when
 * no Prometheus has them: current values only (no history), as desktop tools do. The exporter pods
 * are found by the labels the GPU Operator and the exporter's Helm chart give them.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { getJson } from '../cluster/index.ts';
import { readingsOf, isDcgmMetric, type DcgmSample } from './dcgm.ts';
import { parseExposition } from './exposition.ts';
import type { SourceRead, UsageSource } from './source.ts';
import { podPrefix, proxyTransport } from './transport.ts';

export const EXPORTER_SELECTORS = ['app=nvidia-dcgm-exporter', 'app.kubernetes.io/name=dcgm-exporter'];
const DEFAULT_PORT = 9400;

export interface ExporterPod {
  namespace: string;
  name: string;
  node: string | null;
  port: number;
}

interface PodList {
  items?: Array<{
    metadata?: { name?: string; namespace?: string };
    spec?: { nodeName?: string; containers?: Array<{ ports?: Array<{ containerPort?: number; name?: string }> }> };
    status?: { phase?: string };
  }>;
}

/** The running exporter pods (one list call per selector, with a label selector: never all pods). */
export async function findExporters(kc: KubeConfig, signal?: AbortSignal): Promise<ExporterPod[]> {
  const seen = new Map<string, ExporterPod>();
  for (const sel of EXPORTER_SELECTORS) {
    const list = await getJson<PodList>(kc, `/api/v1/pods?labelSelector=${encodeURIComponent(sel)}`, signal);
    for (const p of list.items ?? []) {
      const name = p.metadata?.name;
      const namespace = p.metadata?.namespace;
      if (!name || !namespace || p.status?.phase !== 'Running') continue;
      const ports = (p.spec?.containers ?? []).flatMap((c) => c.ports ?? []);
      const port = ports.find((x) => x.name === 'metrics')?.containerPort ?? ports.find((x) => x.containerPort === DEFAULT_PORT)?.containerPort ?? DEFAULT_PORT;
      seen.set(`${namespace}/${name}`, { namespace, name, node: p.spec?.nodeName ?? null, port });
    }
  }
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export class ExporterSource implements UsageSource {
  readonly kind = 'exporters' as const;
  readonly history = false;
  readonly identity = 'exporters';
  private readonly kc: KubeConfig;
  private exporters: ExporterPod[];
  private readonly concurrency: number;
  private readonly timeoutMs: number;

  constructor(kc: KubeConfig, exporters: ExporterPod[], opts: { concurrency?: number; timeoutMs?: number } = {}) {
    this.kc = kc;
    this.exporters = exporters;
    this.concurrency = opts.concurrency ?? 16;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  get detail(): string {
    return `${this.exporters.length} DCGM exporter pod${this.exporters.length === 1 ? '' : 's'} (API server pod proxy; no history)`;
  }

  async read(_windowSeconds: number, _threshold: number, signal?: AbortSignal): Promise<SourceRead> {
    // The exporter pods follow the GPU nodes (a DaemonSet rolling out, nodes added): listed anew each
    // refresh, one label-selected list, so a new node's GPUs are read from its first refresh on.
    this.exporters = await findExporters(this.kc, signal);
    if (this.exporters.length === 0) throw new Error('no running DCGM exporter pods');
    const samples: DcgmSample[] = [];
    const failed: string[] = [];
    let bytes = 0;
    const at = Date.now();
    await eachLimited(this.exporters, this.concurrency, async (e) => {
      try {
        const t = proxyTransport(this.kc, podPrefix(e.namespace, e.name, e.port), `${e.namespace}/${e.name}`);
        const r = await t.get('/metrics', this.timeoutMs, signal);
        if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${r.body.slice(0, 120)}`);
        bytes += r.body.length;
        const parsed = parseExposition(r.body, isDcgmMetric);
        for (const s of parsed.samples) samples.push(s);
        if (parsed.malformed > 0) failed.push(`${e.namespace}/${e.name}: ${parsed.malformed} malformed line(s), first: ${parsed.firstMalformed}`);
      } catch (err) {
        failed.push(`${e.namespace}/${e.name}${e.node ? ` on ${e.node}` : ''}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    if (failed.length === this.exporters.length && failed.length > 0) throw new Error(`no DCGM exporter answered (${failed.slice(0, 3).join('; ')})`);
    const warnings = failed.length ? [`${failed.length} of ${this.exporters.length} exporters did not answer fully: ${failed.slice(0, 3).join('; ')}${failed.length > 3 ? ' …' : ''}`] : [];
    return { readings: readingsOf(samples), at, warnings, bytes };
  }
}
