/**
 * The server side of the utilization benchmark, in its own process: the live index on the cluster of
 * KUBECONFIG with utilization read from PROMETHEUS (or off with `--no-usage`, the baseline). Reports
 * one JSON line `ready` once the rows settled and every GPU row has its figures, then on each `refresh`
 * line on stdin one refresh's cost: wall time, this process's CPU (the query, parsing, idle tracking
 * and the join into rows; all threads), the main thread's busy time, the CPU of as long a stretch
 * without a refresh (the baseline), bytes read and rows re-emitted; `memory` after a GC.
 *
 *   node --expose-gc --import tsx bench/usage-server.ts KUBECONFIG [PROMETHEUS_URL | --no-usage]
 */
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { loadClusterConfigs } from '../server/cluster/index.ts';
import { loadCatalog } from '../server/catalog/index.ts';
import { LiveWorkloads } from '../server/workloads/index.ts';

const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
const [kubeconfig, prometheus] = process.argv.slice(2);
const withUsage = prometheus !== '--no-usage';

const clusters = loadClusterConfigs({ kubeconfig });
const t0 = performance.now();
// A long interval: the benchmark triggers the refreshes it measures itself.
const live = new LiveWorkloads({
  clusters,
  catalog: LiveWorkloads.catalogEntries(loadCatalog()),
  initialSyncTimeoutMs: 600_000,
  usage: withUsage ? { prometheus: { '*': prometheus }, idle: { thresholdPercent: 5, windowSeconds: 900 }, intervalSeconds: 3600 } : undefined,
});
let deltas = 0;
live.index.subscribe((d) => (deltas += d.length));
live.start();
while (!live.clusters()[0]?.synced) await new Promise((r) => setTimeout(r, 5));
const tLists = performance.now();
let rows = -1;
let stableSince = performance.now();
let tRows = tLists;
const cluster = clusters[0].name;
const complete = () => {
  if (!withUsage) return true;
  const all = live.index.allRows();
  return all.length > 0 && all.every((r) => r.usage === null || r.usage.measured > 0 || r.usage.pods.gpu === 0);
};
let tFigures: number | null = null;
for (;;) {
  const n = live.index.allRows().length;
  if (n !== rows) { rows = n; tRows = performance.now(); stableSince = tRows; }
  if (tFigures === null && n > 0 && performance.now() - stableSince > 500 && complete()) tFigures = performance.now();
  if (performance.now() - stableSince > 1500 && (tFigures !== null || performance.now() - t0 > 300_000)) break;
  await new Promise((r) => setTimeout(r, 20));
}
const usage = live.clusters()[0].usage;
say({
  event: 'ready', rows, gpuRows: live.index.allRows().filter((r) => r.usage).length, listsMs: Math.round(tLists - t0), rowsMs: Math.round(tRows - t0),
  figuresMs: tFigures === null ? null : Math.round(tFigures - t0), coverage: usage?.coverage ?? null, source: usage?.source ?? 'off',
});

createInterface({ input: process.stdin }).on('line', (line) => {
  void (async () => {
    if (line === 'refresh') {
      const cpu = process.cpuUsage();
      const elu = performance.eventLoopUtilization();
      const before = deltas;
      const t = performance.now();
      await live.refreshUsage();
      const wall = performance.now() - t;
      const used = process.cpuUsage(cpu);
      const loop = performance.eventLoopUtilization(elu);
      // The same stretch of time without a refresh: what the process spends anyway (its watches, timers, GC).
      const idleCpu = process.cpuUsage();
      await new Promise((r) => setTimeout(r, wall));
      const idle = process.cpuUsage(idleCpu);
      const last = live.index.usage(cluster).snapshot?.lastRefresh ?? null;
      say({ event: 'refresh', wallMs: Math.round(wall), cpuMs: Math.round((used.user + used.system) / 1000), loopMs: Math.round(loop.active), idleCpuMs: Math.round((idle.user + idle.system) / 1000), bytes: last?.bytes ?? 0, readings: last?.readings ?? 0, deltas: deltas - before });
    } else if (line === 'memory') {
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      say({ event: 'memory', rss: m.rss, heapUsed: m.heapUsed });
    } else if (line === 'stop') {
      live.stop();
      process.exit(0);
    }
  })();
});
