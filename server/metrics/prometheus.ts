/**
 * The server's `/metrics`: prom-client's registry behind the plain instruments (instruments.ts),
 * plus gauges read at scrape time from what the server holds (cluster connections, objects, rows,
 * GPUs per namespace and kind). Reading at scrape time keeps the hot paths free of bookkeeping for
 * figures that only a scrape needs.
 *
 * Honest figures: a cluster that has not synced reports `wmap_cluster_synced 0`, and idle or used
 * GPUs are exported only for the groups where readings exist — "no readings" is an absent series,
 * never a 0 that an alert would take for "nothing idle".
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkloadRow } from '../../contract/row.ts';
import type { Instruments, WatchInstruments, WatchRestartReason } from './instruments.ts';

/** One cluster as the scrape sees it. */
export interface ClusterFacts {
  name: string;
  state: 'connecting' | 'connected' | 'unreachable';
  synced: boolean;
  kinds: Array<{ resource: string; state: string }>;
  /** Objects held, by group-kind. */
  objects: Array<{ kind: string; count: number }>;
}

/** What the scrape reads from the running server. */
export interface ServedState {
  clusters(): ClusterFacts[];
  rows(): Iterable<WorkloadRow>;
}

export interface MetricsRegistry {
  registry: Registry;
  instruments: Instruments;
  /** The text exposition (format 0.0.4), and its content type. */
  render(): Promise<{ body: string; contentType: string }>;
}

const CONNECTION_STATES = ['connecting', 'connected', 'unreachable'] as const;
// Seconds: list calls take from milliseconds (a few objects) to tens of seconds (100k pods over a slow link).
const LIST_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// Event → delta is milliseconds when healthy; the coalescing window is 5 ms.
const DELTA_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const RESOLVE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1];
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface GpuGroup { cluster: string; namespace: string; kind: string; workloads: number; allocated: number; requested: number; desired: number; idle: number | null; used: number | null }

/** Rows summed per cluster, namespace and kind (`kind.group`, as row ids name kinds). */
export function gpuGroups(rows: Iterable<WorkloadRow>): GpuGroup[] {
  const groups = new Map<string, GpuGroup>();
  for (const r of rows) {
    const group = r.apiVersion.includes('/') ? r.apiVersion.split('/')[0] : '';
    const kind = group ? `${r.kind}.${group}` : r.kind;
    const key = `${r.cluster}\0${r.namespace}\0${kind}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { cluster: r.cluster, namespace: r.namespace, kind, workloads: 0, allocated: 0, requested: 0, desired: 0, idle: null, used: null }));
    g.workloads++;
    g.allocated += r.gpus.allocated;
    g.requested += r.gpus.requested;
    g.desired += r.gpus.desired;
    if (r.usage?.idle != null) g.idle = (g.idle ?? 0) + r.usage.idle;
    if (r.usage?.used != null) g.used = (g.used ?? 0) + r.usage.used;
  }
  return [...groups.values()];
}

export function createMetricsRegistry(state: ServedState, o: { prefix?: string } = {}): MetricsRegistry {
  const registry = new Registry();
  const p = o.prefix ?? 'wmap_';
  collectDefaultMetrics({ register: registry });
  const reg = [registry];

  // ----- the cluster layer -----
  const watchRestarts = new Counter({ name: `${p}watch_restarts_total`, help: 'Watches started again, by reason: expired (410 Gone), silent (watchdog), ended (server timeout), error, forbidden.', labelNames: ['cluster', 'resource', 'reason'], registers: reg });
  const relists = new Counter({ name: `${p}relists_total`, help: 'Lists after the first (a 410 Gone, a failed watch).', labelNames: ['cluster', 'resource'], registers: reg });
  const apiErrors = new Counter({ name: `${p}apiserver_errors_total`, help: 'Failed list or watch calls by HTTP status (410 Gone, 429 Too Many Requests, 5xx; 0 = no answer).', labelNames: ['cluster', 'resource', 'code'], registers: reg });
  const retryAfter = new Counter({ name: `${p}retry_after_wait_seconds_total`, help: 'Seconds waited because a Retry-After asked for more than the backoff would have.', labelNames: ['cluster', 'resource'], registers: reg });
  const listDuration = new Histogram({ name: `${p}list_duration_seconds`, help: 'Time to list one resource in full (every page).', labelNames: ['cluster', 'resource'], buckets: LIST_BUCKETS, registers: reg });
  const events = new Counter({ name: `${p}watch_events_total`, help: 'Object events received from watches (rate() gives events/s).', labelNames: ['cluster', 'resource'], registers: reg });

  // ----- the live index and the stream -----
  const resolveDuration = new Histogram({ name: `${p}resolve_duration_seconds`, help: 'Time to resolve one workload root into its tree and row.', buckets: RESOLVE_BUCKETS, registers: reg });
  const deltaLatency = new Histogram({ name: `${p}delta_latency_seconds`, help: 'From a watch event queuing a workload to its row delta being emitted.', buckets: DELTA_BUCKETS, registers: reg });
  const streamClients = new Gauge({ name: `${p}stream_clients`, help: 'Open row streams (SSE).', registers: reg });
  const framesDropped = new Counter({ name: `${p}stream_frames_dropped_total`, help: 'Frames not delivered to stream clients too slow to take them (the client is disconnected and resumes).', registers: reg });
  const requests = new Counter({ name: `${p}http_requests_total`, help: 'Requests answered, by route template, method and status.', labelNames: ['route', 'method', 'code'], registers: reg });
  const requestDuration = new Histogram({ name: `${p}http_request_duration_seconds`, help: 'Time to answer a request (a stream: how long it stayed open).', labelNames: ['route'], buckets: REQUEST_BUCKETS, registers: reg });

  // ----- read at scrape time -----
  const clusterState = new Gauge({ name: `${p}cluster_connection_state`, help: 'The cluster connection\'s state: 1 for the current one.', labelNames: ['cluster', 'state'], registers: reg });
  const clusterSynced = new Gauge({ name: `${p}cluster_synced`, help: '1 when every watched kind of the cluster has completed its first list (or is forbidden).', labelNames: ['cluster'], registers: reg });
  const watchState = new Gauge({ name: `${p}watch_state`, help: 'Each watched resource\'s state (listing, watching, forbidden, error): 1 for the current one.', labelNames: ['cluster', 'resource', 'state'], registers: reg });
  const objects = new Gauge({ name: `${p}objects`, help: 'Objects held in memory, by kind.', labelNames: ['cluster', 'kind'], registers: reg });
  const rows = new Gauge({ name: `${p}rows`, help: 'Workload rows, by cluster.', labelNames: ['cluster'], registers: reg });
  const workloads = new Gauge({ name: `${p}workloads`, help: 'Workloads by namespace and kind.', labelNames: ['cluster', 'namespace', 'kind'], registers: reg });
  const gpusAllocated = new Gauge({ name: `${p}gpus_allocated`, help: 'GPUs (devices\' worth) held by pods bound to a node and not finished.', labelNames: ['cluster', 'namespace', 'kind'], registers: reg });
  const gpusRequested = new Gauge({ name: `${p}gpus_requested`, help: 'GPUs requested by live pods (requested − allocated are waiting).', labelNames: ['cluster', 'namespace', 'kind'], registers: reg });
  const gpusDesired = new Gauge({ name: `${p}gpus_desired`, help: 'GPUs the workloads\' templates × replicas ask for.', labelNames: ['cluster', 'namespace', 'kind'], registers: reg });
  const gpusIdle = new Gauge({ name: `${p}gpus_idle`, help: 'Allocated GPUs idle by the idle rule; absent where no readings say.', labelNames: ['cluster', 'namespace', 'kind'], registers: reg });
  const gpusUsed = new Gauge({ name: `${p}gpus_used`, help: 'GPUs\' worth in use (utilization × worth); absent where no readings say.', labelNames: ['cluster', 'namespace', 'kind'], registers: reg });

  // One collect fills every scrape-time gauge: the rows are walked once per scrape.
  const scrapeGauges = [clusterState, clusterSynced, watchState, objects, rows, workloads, gpusAllocated, gpusRequested, gpusDesired, gpusIdle, gpusUsed];
  const fill = () => {
    for (const g of scrapeGauges) g.reset();
    for (const c of state.clusters()) {
      for (const s of CONNECTION_STATES) clusterState.set({ cluster: c.name, state: s }, c.state === s ? 1 : 0);
      clusterSynced.set({ cluster: c.name }, c.synced ? 1 : 0);
      for (const k of c.kinds) watchState.set({ cluster: c.name, resource: k.resource, state: k.state }, 1);
      for (const ob of c.objects) objects.set({ cluster: c.name, kind: ob.kind }, ob.count);
      rows.set({ cluster: c.name }, 0);
    }
    const all = [...state.rows()];
    for (const r of all) rows.inc({ cluster: r.cluster });
    for (const g of gpuGroups(all)) {
      const l = { cluster: g.cluster, namespace: g.namespace, kind: g.kind };
      workloads.set(l, g.workloads);
      gpusAllocated.set(l, g.allocated);
      gpusRequested.set(l, g.requested);
      gpusDesired.set(l, g.desired);
      if (g.idle !== null) gpusIdle.set(l, g.idle);
      if (g.used !== null) gpusUsed.set(l, g.used);
    }
  };

  const instruments: Instruments = {
    watch(cluster, resource): WatchInstruments {
      const l = { cluster, resource };
      const ev = events.labels(l);
      const dur = listDuration.labels(l);
      return {
        listed(seconds, relist) {
          dur.observe(seconds);
          if (relist) relists.inc(l);
        },
        restarted(reason: WatchRestartReason) { watchRestarts.inc({ ...l, reason }); },
        failed(status) { apiErrors.inc({ ...l, code: String(status) }); },
        retryAfterHonoured(seconds) { retryAfter.inc(l, seconds); },
        event() { ev.inc(); },
      };
    },
    resolved(seconds) { resolveDuration.observe(seconds); },
    deltaLatency(seconds) { deltaLatency.observe(seconds); },
    streamClients(change) { streamClients.inc(change); },
    streamFramesDropped(frames) { framesDropped.inc(frames); },
    request(route, method, status, seconds) {
      requests.inc({ route, method, code: String(status) });
      requestDuration.observe({ route }, seconds);
    },
  };

  return {
    registry,
    instruments,
    async render() {
      fill();
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
