import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimClock } from '../clock.ts';
import { startControllers } from '../controllers/index.ts';
import { settleUntilSteady } from '../controllers/testing.ts';
import type { Pod } from '../controllers/types.ts';
import { applyScenario } from '../scenarios/index.ts';
import { planScale } from '../scenarios/scale.ts';
import { MemoryStore } from '../store/memory-store.ts';
import { deviceTrackerFor, gpuAsks } from './device-tracker.ts';
import { groundTruthUsage } from './gpu-usage.ts';
import { BUSY_THEN_IDLE_MS } from './load-model.ts';
import { nodeDevices } from './node-devices.ts';

function cluster(seed: number) {
  const clock = SimClock.manual();
  const store = new MemoryStore({ now: () => clock.date(), initialResourceVersion: 1 });
  const ctl = startControllers(store, { clock, seed, autoDrain: false, maxReconcilesPerSettle: 2_000_000 });
  const tracker = deviceTrackerFor(store);
  const run = async (ms: number, step: number): Promise<void> => {
    for (let t = 0; t < ms; t += step) {
      clock.advance(step);
      await settleUntilSteady(store, ctl, 100);
    }
  };
  return { clock, store, ctl, tracker, run };
}

/** Every running pod holds exactly the units it asked for, and no node hands out more than it has. */
function assertConsistent(store: MemoryStore, tracker: ReturnType<typeof deviceTrackerFor>): number {
  let checked = 0;
  for (const p of store.list('v1', 'Pod') as Pod[]) {
    if (p.status?.phase !== 'Running' || !p.spec.nodeName) continue;
    const asks = gpuAsks(p);
    if (asks.length === 0) continue;
    const held = tracker.unitsOf(p.metadata.namespace!, p.metadata.name!);
    for (const a of asks) assert.equal(held.filter((u) => u.resource === a.resource && u.container === a.container).length, a.count, `${p.metadata.name} ${a.resource}`);
    checked++;
  }
  for (const name of tracker.gpuNodes()) {
    const n = tracker.node(name)!;
    const capacity = nodeDevices(store.get('v1', 'Node', undefined, name)!)!;
    for (const [r, holders] of n.holders) assert.equal(holders.length, capacity.units.get(r)!.length);
  }
  return checked;
}

test('demo: the marked workloads idle, saturate and stop as labelled; every running GPU pod holds what it asked for', async () => {
  const { clock, store, ctl, tracker, run } = cluster(7);
  const sc = applyScenario(store, 'demo', { clock, seed: 7 });
  try {
    await run(120_000, 5_000);
    assert.ok(assertConsistent(store, tracker) > 30);
    const gt = groundTruthUsage(store, 7, clock.now());
    const of = (re: RegExp) => gt.gpus.filter((g) => g.pod && re.test(`${g.namespace}/${g.pod}`));
    const notebook = of(/^research\/notebook-alice-0$/);
    assert.equal(notebook.length, 1);
    assert.equal(notebook[0].utilization, 0);
    assert.ok(notebook[0].memoryUsedMiB > 0.09 * notebook[0].memoryTotalMiB);
    const lora = of(/^team-llm\/llama-lora-/);
    assert.equal(lora.length, 3);
    assert.ok(lora.every((g) => g.utilization === 0), 'the stuck LoRA job computes nothing');
    const decode = of(/^dynamo\/vllm-disagg-.*vllmdecodeworker/);
    const prefill = of(/^dynamo\/vllm-disagg-.*vllmprefillworker/);
    assert.ok(decode.length >= 1 && decode.every((g) => g.utilization >= 99), 'decode saturated');
    assert.ok(prefill.length >= 1 && prefill.every((g) => g.utilization === 0), 'prefill idle');
    const training = of(/^team-llm\/llama-finetune-/);
    assert.ok(training.length > 0 && training.every((g) => g.utilization >= 88), 'a training job trains');
    const bert = of(/^team-vision\/bert-ft-/);
    assert.ok(bert.length === 4 && bert.every((g) => g.utilization >= 88), 'the stalling job trains first');
    await run(BUSY_THEN_IDLE_MS, 30_000);
    const stalled = groundTruthUsage(store, 7, clock.now()).gpus.filter((g) => g.namespace === 'team-vision' && g.pod?.startsWith('bert-ft-'));
    assert.ok(stalled.length === 4 && stalled.every((g) => g.utilization === 0), 'then stalls');
    assert.ok(assertConsistent(store, tracker) > 30, 'still consistent after churn');
    // Units no pod holds: nothing running, the driver's few hundred MiB.
    const free = gt.gpus.filter((g) => !g.pod);
    assert.ok(free.length > 0 && free.every((g) => g.utilization === 0 && g.memoryUsedMiB < 0.01 * g.memoryTotalMiB));
  } finally {
    sc.stop();
    ctl.stop();
    store.close();
  }
});

test('scale: about a tenth of the GPU workloads are idle (seeded), and the bulk-built cluster is consistent', async () => {
  const plan = planScale({ seed: 5, pods: 20_000, workloads: 2_000, nodes: 400 });
  const gpu = plan.filter((e) => e.shape.gpus > 0);
  const idle = gpu.filter((e) => e.shape.load === 'idle');
  assert.ok(idle.length > gpu.length * 0.05 && idle.length < gpu.length * 0.15, `${idle.length} of ${gpu.length}`);
  assert.deepEqual(planScale({ seed: 5, pods: 20_000, workloads: 2_000, nodes: 400 }).map((e) => e.shape.load), plan.map((e) => e.shape.load));

  const { clock, store, ctl, tracker } = cluster(3);
  const sc = applyScenario(store, 'scale', { clock, seed: 3, pods: 3000, workloads: 300, nodes: 80 });
  try {
    await settleUntilSteady(store, ctl, 100);
    assert.ok(assertConsistent(store, tracker) > 50);
    const gt = groundTruthUsage(store, 3, clock.now());
    const held = gt.gpus.filter((g) => g.pod);
    const zero = held.filter((g) => g.utilization === 0).length;
    assert.ok(zero > 0 && zero < held.length * 0.4, `${zero} of ${held.length} held GPUs idle`);
  } finally {
    sc.stop();
    ctl.stop();
    store.close();
  }
});
