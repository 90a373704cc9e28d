/**
 * The server side of the live benchmark, in its own process as in real use: connects to the
 * cluster of KUBECONFIG, serves `/stream` (the SSE endpoint's stream) and `/rows-of-pods` on a loopback port, and
 * measures itself: when the lists arrived, when every row was resolved, its RSS, and for every pod
 * event the time from the event's arrival to the delta of its workload (the server's own share of the
 * latency). Prints one JSON line per report: `ready` once the rows settled, and on `report` read
 * from stdin the latency percentiles and RSS.
 *
 *   node --import tsx bench/live-server.ts KUBECONFIG
 */
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { loadClusterConfigs } from '../server/cluster/index.ts';
import { loadCatalog } from '../server/catalog/index.ts';
import type { KubeObject } from '../server/engine/index.ts';
import { LiveWorkloads } from '../server/workloads/index.ts';
import { streamResponse } from '../server/stream/index.ts';
import { DEFAULT_QUERY } from '../lib/rows/index.ts';
import { percentile } from './measure.ts';
import { createMetricsRegistry } from '../server/metrics/prometheus.ts';
import { setInstruments } from '../server/metrics/index.ts';
import { servedState } from '../server/workloads/index.ts';

const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

const clusters = loadClusterConfigs({ kubeconfig: process.argv[2] });
const tStart = performance.now();
const live = new LiveWorkloads({ clusters, catalog: LiveWorkloads.catalogEntries(loadCatalog()), initialSyncTimeoutMs: 600_000 });
// The metrics are on, as in `wmap serve`: their cost is part of what is measured.
const metrics = createMetricsRegistry(servedState(live));
setInstruments(metrics.instruments);

// Pod events after the initial sync: arrival time per row, matched to that row's next delta.
const arrived = new Map<string, number>();
const latencies: number[] = [];
let measuring = false;
const upsert = live.index.upsert.bind(live.index);
live.index.upsert = (cluster: string, obj: KubeObject) => {
  const t = performance.now();
  upsert(cluster, obj);
  if (!measuring || obj.kind !== 'Pod') return;
  const row = live.index.rowIdOf(cluster, obj.metadata?.uid ?? '');
  if (row && !arrived.has(row)) arrived.set(row, t);
};
live.index.subscribe((deltas) => {
  const now = performance.now();
  for (const d of deltas) {
    const t = arrived.get(d.id);
    if (t !== undefined) { latencies.push(now - t); arrived.delete(d.id); }
  }
});
live.start();

while (!live.clusters()[0]?.synced) await new Promise((r) => setTimeout(r, 5));
const tLists = performance.now();
let rows = -1;
let tRows = tLists;
let stableSince = performance.now();
for (;;) {
  const n = live.index.allRows().length;
  if (n !== rows) { rows = n; tRows = performance.now(); stableSince = tRows; }
  if (performance.now() - stableSince > 1500) break;
  await new Promise((r) => setTimeout(r, 5));
}
const server = createServer((req, res) => {
  if (req.url === '/rows-of-pods') {
    // Benchmark plumbing: which row each pod (by uid) counts towards, so the client can time deltas.
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const out: Record<string, string> = {};
      for (const [key, uid] of JSON.parse(body) as Array<[string, string]>) {
        const row = live.index.rowIdOf(clusters[0].name, uid);
        if (row) out[key] = row;
      }
      res.end(JSON.stringify(out));
    });
    return;
  }
  const abort = new AbortController();
  req.on('close', () => abort.abort());
  const r = streamResponse(live, DEFAULT_QUERY, null, abort.signal);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  Readable.fromWeb(r.body as WebReadableStream).pipe(res);
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  measuring = true;
  say({
    ready: true,
    port: typeof addr === 'object' && addr ? addr.port : 0,
    listsMs: tLists - tStart,
    rowsMs: tRows - tLists,
    rows,
    objects: live.index.objectCount(),
    rssBytes: process.memoryUsage().rss,
  });
});
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'report') continue;
  // One scrape of /metrics at this size: how long rendering takes, and how large it is.
  const t = performance.now();
  const scraped = await metrics.render();
  const scrapeMs = performance.now() - t;
  say({ p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: percentile(latencies, 100), timed: latencies.length, rssBytes: process.memoryUsage().rss, heapBytes: process.memoryUsage().heapUsed, scrapeMs, scrapeBytes: Buffer.byteLength(scraped.body) });
}
live.stop();
server.close();
process.exit(0);
