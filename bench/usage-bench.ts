/**
 * Utilization benchmark: the simulated `scale` cluster (default 10,000 workloads / 100,000 pods on
 * 4,350 nodes = 20,010 GPUs) with its DCGM exporters scraped by a real Prometheus (Debian's
 * `prometheus`), and the server in its own process reading them. Prints the time until every GPU
 * row has its figures after start, the cost of one refresh (query wall time, server CPU, bytes, rows
 * re-emitted; median of `--refreshes`), and the server's memory with utilization against without.
 *
 *   node --import tsx bench/usage-bench.ts [--pods N] [--workloads N] [--nodes N] [--refreshes N] [--scrape S] [--profile DIR]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mib, numberArg, percentile, startSimProcess } from './measure.ts';

const PODS = numberArg('pods', 100_000);
const WORKLOADS = numberArg('workloads', 10_000);
const NODES = numberArg('nodes', 4_350);
const REFRESHES = numberArg('refreshes', 5);
const SCRAPE = numberArg('scrape', 30);

type Report = Record<string, unknown> & { event: string };

function server(kubeconfig: string, arg: string): { child: ChildProcess; next: (event: string) => Promise<Report>; send: (line: string) => void } {
  // `--profile DIR`: a CPU profile of the server with utilization (open it in Chrome's DevTools).
  const profile = process.argv.includes('--profile') && arg !== '--no-usage' ? ['--cpu-prof', `--cpu-prof-dir=${process.argv[process.argv.indexOf('--profile') + 1]}`] : [];
  const child = spawn(process.execPath, [...profile, '--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', 'bench/usage-server.ts', kubeconfig, arg], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, WMAP_LOG_LEVEL: 'warn' } });
  process.on('exit', () => child.kill('SIGTERM'));
  const queue: Report[] = [];
  const waiting: Array<{ event: string; resolve: (r: Report) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (l) => {
    let r: Report;
    try { r = JSON.parse(l) as Report; } catch { return; }
    const w = waiting.findIndex((x) => x.event === r.event);
    if (w >= 0) waiting.splice(w, 1)[0].resolve(r);
    else queue.push(r);
  });
  return {
    child,
    send: (line) => child.stdin!.write(`${line}\n`),
    next: (event) => {
      const i = queue.findIndex((x) => x.event === event);
      if (i >= 0) return Promise.resolve(queue.splice(i, 1)[0]);
      return new Promise((resolve) => waiting.push({ event, resolve }));
    },
  };
}

async function gpuSeries(prometheus: string): Promise<number> {
  const r = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent('count(DCGM_FI_DEV_GPU_UTIL) or vector(0)')}`);
  const body = (await r.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
  return Number(body.data?.result?.[0]?.value[1] ?? 0);
}

async function main(): Promise<void> {
  console.log(`scale cluster: ${PODS} pods, ${WORKLOADS} workloads, ${NODES} nodes; Prometheus scraping every ${SCRAPE} s`);
  const t0 = Date.now();
  const { sim, kubeconfig, prometheus } = await startSimProcess(['--scenario', 'scale', '--pods', String(PODS), '--workloads', String(WORKLOADS), '--nodes', String(NODES), '--churn', '0', '--prometheus', '--scrape-interval', String(SCRAPE)], { ...process.env, WMAP_LOG_LEVEL: 'warn' });
  if (!prometheus) throw new Error('the simulator started no Prometheus');
  // Wait until a scrape round has covered (nearly) every exporter: the count stops growing.
  let last = -1;
  let series: number;
  for (;;) {
    series = await gpuSeries(prometheus);
    if (series > 0 && series === last) break;
    last = series;
    await new Promise((r) => setTimeout(r, SCRAPE * 1000 + 2000));
  }
  console.log(`cluster and Prometheus ready after ${((Date.now() - t0) / 1000).toFixed(0)} s: ${series} whole-GPU utilization series`);

  const base = server(kubeconfig, '--no-usage');
  const baseReady = await base.next('ready');
  base.send('memory');
  const baseMem = await base.next('memory');
  base.send('stop');
  await new Promise((r) => base.child.once('exit', r));

  const s = server(kubeconfig, prometheus);
  const ready = await s.next('ready');
  console.log(`rows: ${ready.rows} (${ready.gpuRows} holding GPUs); lists ${ready.listsMs} ms, rows ${ready.rowsMs} ms, every GPU row with figures ${ready.figuresMs} ms after start (baseline rows ${baseReady.rowsMs} ms); coverage ${JSON.stringify(ready.coverage)}`);
  const refreshes: Report[] = [];
  for (let i = 0; i < REFRESHES; i++) {
    s.send('refresh');
    refreshes.push(await s.next('refresh'));
  }
  const med = (k: string) => percentile(refreshes.map((r) => Number(r[k])), 50);
  console.log(`one refresh (median of ${REFRESHES}): wall ${med('wallMs')} ms, server CPU ${med('cpuMs')} ms (all threads; ${med('idleCpuMs')} ms in as long without a refresh), main thread busy ${med('loopMs')} ms, ${mib(med('bytes'))} read (${med('bytes')} bytes), ${med('readings')} readings, ${med('deltas')} rows re-emitted`);
  console.log(`  each: ${refreshes.map((r) => `${r.wallMs}/${r.cpuMs} ms`).join(', ')} (wall/CPU)`);
  s.send('memory');
  const mem = await s.next('memory');
  const grow = (Number(mem.heapUsed) / Number(baseMem.heapUsed) - 1) * 100;
  console.log(`server memory after GC: heap ${mib(Number(mem.heapUsed))} vs ${mib(Number(baseMem.heapUsed))} without utilization (${grow >= 0 ? '+' : ''}${grow.toFixed(1)} %), RSS ${mib(Number(mem.rss))} vs ${mib(Number(baseMem.rss))}`);
  s.send('stop');
  await new Promise((r) => s.child.once('exit', r));
  sim.kill('SIGTERM');
  await new Promise((r) => sim.once('exit', r));
}

await main();
