/**
 * The workload index alone, on the simulated `scale` cluster's objects: time from the lists handed
 * over to every row resolved, and the heap the index holds. Objects go through JSON and the same
 * trimming as on the wire, so they look like what a list delivers. No HTTP: this isolates the
 * server's own work from the API server's serialization.
 *
 *   node --expose-gc --import tsx bench/index-bench.ts [--pods 100000] [--workloads 10000] [--nodes 2000] [--runs 3] [--profile FILE]
 *
 * `--profile` writes a CPU profile of the last run's indexing and resolving (for DevTools or speedscope).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { loadCatalog } from '../server/catalog/index.ts';
import { trimObject } from '../server/cluster/index.ts';
import type { KubeObject } from '../server/engine/index.ts';
import { SimClock } from '../server/sim/clock.ts';
import { startControllers } from '../server/sim/controllers/index.ts';
import { applyScenario } from '../server/sim/scenarios/index.ts';
import { MemoryStore } from '../server/sim/store/memory-store.ts';
import { DefinitionSet, WorkloadIndex, groupKindOf } from '../server/workloads/index.ts';
import { LiveWorkloads } from '../server/workloads/live.ts';
import { mib, numberArg } from './measure.ts';

const gc = () => (globalThis as { gc?: () => void }).gc?.();

const clock = SimClock.manual();
const store = new MemoryStore({ now: () => clock.date(), historySize: 1000 });
const ctl = startControllers(store, { clock, seed: 1, autoDrain: false });
const scenario = applyScenario(store, 'scale', { seed: 1, pods: numberArg('pods', 100_000), workloads: numberArg('workloads', 10_000), nodes: numberArg('nodes', 2_000), churnPerSecond: 0, clock });
ctl.settle();
await store.idle();
ctl.settle();
scenario.stop();
ctl.stop();
// The wire form, grouped by kind as the lists arrive.
const byKind = new Map<string, string[]>();
{
  const groups = new Map<string, KubeObject[]>();
  for (const o of store.snapshot().objects) {
    const gk = groupKindOf(o);
    let g = groups.get(gk);
    if (!g) groups.set(gk, (g = []));
    g.push(o);
  }
  // In pages, as a list arrives (one string for 100k pods would approach V8's string limit).
  for (const [gk, objs] of groups) {
    const pages: string[] = [];
    for (let i = 0; i < objs.length; i += 500) pages.push(JSON.stringify(objs.slice(i, i + 500)));
    byKind.set(gk, pages);
  }
}
store.close();
gc();

const profileFile = process.argv.includes('--profile') ? process.argv[process.argv.indexOf('--profile') + 1] : null;
const runs = numberArg('runs', 3);
const session = profileFile ? new Session() : null;
session?.connect();
const catalog = LiveWorkloads.catalogEntries(loadCatalog());
for (let run = 0; run < runs; run++) {
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const lists = [...byKind].map(([gk, json]) => [gk, json.flatMap((page) => (JSON.parse(page) as KubeObject[]).map((o) => trimObject(o) as KubeObject))] as const);
  gc();
  const heapLists = process.memoryUsage().heapUsed;
  const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
  const profiling = session && run === runs - 1;
  if (profiling) { await session.post('Profiler.enable'); await session.post('Profiler.start'); }
  const t0 = performance.now();
  for (const [gk, objs] of lists) index.replaceKind('scale', gk, objs);
  const t1 = performance.now();
  const deltas = index.flush();
  const t2 = performance.now();
  if (profiling) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileFile!, JSON.stringify(profile));
  }
  gc();
  const heapIndex = process.memoryUsage().heapUsed;
  const objects = lists.reduce((n, [, o]) => n + o.length, 0);
  console.log(`run ${run + 1}: ${objects} objects → ${index.allRows().length} rows (${deltas.length} deltas): indexing ${((t1 - t0) / 1000).toFixed(2)} s + resolving ${((t2 - t1) / 1000).toFixed(2)} s = ${((t2 - t0) / 1000).toFixed(2)} s; heap: objects ${mib(heapLists - heap0)}, index overhead ${mib(heapIndex - heapLists)}, rss ${mib(process.memoryUsage().rss)}`);
}
