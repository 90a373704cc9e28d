/**
 * `wmap top workloads` and the utilization columns of `get workloads` against the demo cluster, its
 * DCGM exporters scraped by a real Prometheus: the idle workloads first, n/a only where there is no
 * reading, and what stderr says about the readings.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startPrometheus, startSim, type PrometheusHandle, type SimHandle } from '../sim/index.ts';
import { runWmap } from './run-for-tests.ts';

let sim: SimHandle;
let prom: PrometheusHandle;

const run = runWmap;

before(async () => {
  sim = await startSim({ scenario: 'demo', seed: 7 });
  prom = await startPrometheus({ sim, scrapeIntervalSeconds: 1, exposeAs: false });
  await new Promise((r) => setTimeout(r, 3000));
  await prom.waitForSamples(sim.groundTruth().gpus.filter((g) => !g.mig).length, 60_000);
  await new Promise((r) => setTimeout(r, 2500));
});
after(async () => {
  await prom?.stop();
  await sim?.stop();
});

test('top workloads: the GPU holders, most idle GPUs first, with utilization, memory and idle time', async () => {
  const r = await run(['top', 'workloads', '-A', '--kubeconfig', sim.kubeconfigPath, '--prometheus', prom.url, '--idle-window', '3s', '--usage-interval', '1s']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.match(lines[0], /^NAMESPACE\s+KIND\s+NAME\s+GPUS\(ALLOC\)\s+UTIL\s+GPU-MEM\s+IDLE\(SINCE\)\s+ROLES/);
  const cells = lines.slice(1).map((l) => l.split(/ {3,}/));
  const names = cells.map((c) => c[2]);
  // The stuck LoRA job (3 GPUs) and the disaggregated graph's idle prefill (2) lead; the notebook (1) follows.
  assert.deepEqual(names.slice(0, 3), ['llama-lora', 'vllm-disagg', 'notebook-alice']);
  const lora = cells[0];
  assert.equal(lora[4], '0%');
  assert.match(lora[6], /^3 \(\d+[sm]/);
  assert.ok(cells.every((c) => c[4] !== 'n/a'), 'every GPU workload has a utilization');
  assert.ok(!names.includes('jupyter-hub'), 'workloads without GPUs are not listed');
  assert.match(r.err, /utilization: cluster wmap-sim from Prometheus http:\/\/127\.0\.0\.1:\d+ \(configured\), readings \d+s old, (\d+) of \1 GPU pods measured; idle means < 5% for 3s/);
});

test('get workloads -o wide adds UTIL, GPU-MEM and IDLE; --idle keeps the workloads holding idle GPUs', async () => {
  const wide = await run(['get', 'workloads', '-A', '-o', 'wide', '--kubeconfig', sim.kubeconfigPath, '--prometheus', prom.url, '--idle-window', '3s', '--usage-interval', '1s']);
  assert.equal(wide.code, 0, wide.err);
  assert.match(wide.out.split('\n')[0], /GPUS\(ALLOC\/REQ\/DESIRED\)\s+UTIL\s+GPU-MEM\s+IDLE\s+PODS/);
  const nccl = wide.out.split('\n').find((l) => /\bnccl-allreduce\b/.test(l))!;
  assert.match(nccl, /\s(8\d|9\d|100)%\s+\d+\/\d+Gi\s+0\s/);
  const idle = await run(['get', 'workloads', '-A', '--idle', '--kubeconfig', sim.kubeconfigPath, '--prometheus', prom.url, '--idle-window', '3s', '--usage-interval', '1s', '-o', 'json']);
  const rows = JSON.parse(idle.out) as Array<{ name: string; usage: { idle: number } }>;
  assert.ok(rows.every((x) => x.usage.idle > 0), 'only workloads holding idle GPUs');
  for (const n of ['llama-lora', 'notebook-alice', 'vllm-disagg']) assert.ok(rows.some((x) => x.name === n), n);
  assert.ok(!rows.some((x) => x.name === 'nccl-allreduce'));
  const bad = await run(['top', 'workloads', '--kubeconfig', sim.kubeconfigPath, '--idle-window', 'soon']);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--idle-window: "soon" is not a duration/);
});
