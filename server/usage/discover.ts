/**
 * Which utilization source a cluster has: the configured Prometheus, else a Prometheus found among
 * the cluster's services that holds DCGM series (reached through the API server's service proxy),
 * else the DCGM exporter pods scraped directly, else none — with the reason, for people.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { getJson } from '../cluster/index.ts';
import { DCGM_METRICS } from './dcgm.ts';
import { ExporterSource, findExporters } from './exporter-source.ts';
import { PrometheusClient } from './prometheus.ts';
import { PrometheusSource } from './prometheus-source.ts';
import type { UsageSource } from './source.ts';
import { directTransport, proxyTransport, servicePrefix, type Transport } from './transport.ts';

/** Label selectors Prometheus services carry (kube-prometheus, the operator's governing service, the community chart). */
const PROMETHEUS_SELECTORS = ['app.kubernetes.io/name=prometheus', 'app=prometheus', 'operated-prometheus=true', 'app=kube-prometheus-stack-prometheus'];
const PORT_NAMES = ['web', 'http-web', 'http'];

export interface Discovered {
  source: UsageSource | null;
  /** Why there is no source, or notes on the choice (a Prometheus without DCGM series was passed over). */
  detail: string;
  /** A Prometheus was found that may soon hold DCGM series (just started, not scraped yet): look again sooner. */
  retrySoon?: boolean;
}

interface ServiceList {
  items?: Array<{ metadata?: { name?: string; namespace?: string }; spec?: { ports?: Array<{ name?: string; port?: number }> } }>;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** `http(s)://…` directly, or `service:namespace/name:port` through the API server. */
export function transportFor(kc: KubeConfig, target: string): Transport {
  const svc = /^service:([^/]+)\/([^:]+):(.+)$/.exec(target);
  if (svc) return proxyTransport(kc, servicePrefix(svc[1], svc[2], svc[3]), `service ${svc[1]}/${svc[2]}:${svc[3]} (API server proxy)`);
  if (/^https?:\/\//.test(target)) return directTransport(target);
  throw new Error(`a Prometheus is an http(s) URL or service:namespace/name:port, not ${JSON.stringify(target)}`);
}

/** How many DCGM utilization series a Prometheus holds (0: none; it scrapes no exporter). */
async function dcgmSeries(client: PrometheusClient, signal?: AbortSignal): Promise<number> {
  const { samples } = await client.query(`count({__name__=~"${DCGM_METRICS.util}|${DCGM_METRICS.engine}"})`, undefined, signal);
  return samples[0]?.value ?? 0;
}

async function prometheusServices(kc: KubeConfig, signal?: AbortSignal): Promise<Array<{ namespace: string; name: string; port: string }>> {
  const out = new Map<string, { namespace: string; name: string; port: string }>();
  for (const sel of PROMETHEUS_SELECTORS) {
    let list: ServiceList;
    try {
      list = await getJson<ServiceList>(kc, `/api/v1/services?labelSelector=${encodeURIComponent(sel)}`, signal);
    } catch {
      continue; // services may be forbidden; the exporters may still be readable
    }
    for (const s of list.items ?? []) {
      const name = s.metadata?.name;
      const namespace = s.metadata?.namespace;
      const ports = s.spec?.ports ?? [];
      const port = PORT_NAMES.map((n) => ports.find((p) => p.name === n)).find(Boolean) ?? ports.find((p) => p.port === 9090) ?? ports[0];
      if (!name || !namespace || !port) continue;
      out.set(`${namespace}/${name}`, { namespace, name, port: port.name || String(port.port) });
    }
  }
  return [...out.values()];
}

export async function discoverSource(kc: KubeConfig, configured: string | undefined, signal?: AbortSignal): Promise<Discovered> {
  const notes: string[] = [];
  if (configured) {
    const transport = transportFor(kc, configured);
    const client = new PrometheusClient(transport);
    // A configured Prometheus is used even while it has no DCGM series yet: the user said so.
    await client.ping(signal);
    return { source: new PrometheusSource(client, `Prometheus ${transport.describe} (configured)`), detail: '' };
  }
  for (const svc of await prometheusServices(kc, signal)) {
    const transport = proxyTransport(kc, servicePrefix(svc.namespace, svc.name, svc.port), `service ${svc.namespace}/${svc.name}:${svc.port} (API server proxy)`);
    const client = new PrometheusClient(transport);
    try {
      const n = await dcgmSeries(client, signal);
      if (n > 0) return { source: new PrometheusSource(client, `Prometheus ${transport.describe}, found in the cluster`), detail: '' };
      notes.push(`Prometheus ${svc.namespace}/${svc.name} has no DCGM series`);
    } catch (e) {
      notes.push(`Prometheus ${svc.namespace}/${svc.name} did not answer: ${message(e)}`);
    }
  }
  const retrySoon = notes.length > 0;
  let exporters;
  try {
    exporters = await findExporters(kc, signal);
  } catch (e) {
    return { source: null, detail: [...notes, `cannot list DCGM exporter pods: ${message(e)}`].join('; '), retrySoon };
  }
  if (exporters.length > 0) return { source: new ExporterSource(kc, exporters), detail: notes.join('; '), retrySoon };
  return { retrySoon, source: null, detail: [...notes, 'no Prometheus with DCGM series and no running DCGM exporter pods (labels app=nvidia-dcgm-exporter or app.kubernetes.io/name=dcgm-exporter) found'].join('; ') };
}
