/**
 * Time to build the `scale` scenario of the simulated cluster (nodes, root objects, and every child and
 * pod the simulated operators create, placed and running), then churn throughput.
 *
 *   node --import tsx bench/sim-scale-build.ts [--pods 100000] [--workloads 10000] [--nodes 2000] [--churn 1000]
 *
 * Runs itself again with a larger young generation (--max-semi-space-size=64) unless asked not to
 * (--default-gc): building a big cluster allocates many short-lived objects, and V8's default nursery
 * makes the build about a third slower.
 */

import { spawnSync } from 'node:child_process';

import { SimClock } from '../server/sim/clock.ts';
import { startControllers } from '../server/sim/controllers/index.ts';
import { applyScenario } from '../server/sim/scenarios/index.ts';
import { MemoryStore } from '../server/sim/store/memory-store.ts';
import { numberArg } from './measure.ts';


if (!process.execArgv.some((a) => a.startsWith('--max-semi-space-size')) && !process.argv.includes('--default-gc')) {
  const r = spawnSync(process.execPath, ['--max-semi-space-size=64', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const pods = numberArg('pods', 100_000);
const workloads = numberArg('workloads', 10_000);
const nodes = numberArg('nodes', 2_000);
const churn = numberArg('churn', 1_000);
const seed = numberArg('seed', 1);

const clock = SimClock.manual();
// History sized like the API server's default watch cache window.
const store = new MemoryStore({ now: () => clock.date(), historySize: 100_000 });
let events = 0;
store.subscribe(() => {
  events++;
});
const ctl = startControllers(store, { clock, seed, autoDrain: false });
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const scenario = applyScenario(store, 'scale', { seed, pods, workloads, nodes, churnPerSecond: churn, clock });
ctl.settle();
await store.idle();
ctl.settle();
const buildMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const podList = store.list('v1', 'Pod');
const running = podList.filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running').length;
const pending = podList.filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Pending').length;
const total = store.snapshot().objects.length;
console.log(`scale build: ${workloads} workloads, ${nodes} nodes → ${podList.length} pods (${running} Running, ${pending} Pending), ${total} objects`);
console.log(`  build ${(buildMs / 1000).toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU, ${events} store events, ${ctl.runtime.reconciles} reconciles, ${ctl.runtime.writes} controller writes, rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);

// Churn: 10 simulated seconds at the chosen rate, as fast as the machine can process it.
const e0 = events;
const t1 = performance.now();
for (let i = 0; i < 100; i++) {
  clock.advance(100);
  await store.idle();
  ctl.settle();
}
const churnMs = performance.now() - t1;
console.log(`  churn ${churn}/s for 10 simulated s: ${events - e0} store events in ${(churnMs / 1000).toFixed(2)} s wall (${Math.round(((events - e0) / churnMs) * 1000)} events/s sustained)`);
scenario.stop();
ctl.stop();
store.close();
