import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimClock } from '../clock.ts';
import { startControllers } from '../controllers/index.ts';
import { settleUntilSteady } from '../controllers/testing.ts';
import { MemoryStore } from '../store/memory-store.ts';
import type { KubeObject } from '../store/object-store.ts';
import { applyScenario } from './index.ts';
import { planScale } from './scale.ts';

const ROOTS: Array<[string, string]> = [
  ['apps/v1', 'Deployment'], ['apps/v1', 'StatefulSet'], ['batch/v1', 'Job'],
  ['jobset.x-k8s.io/v1alpha2', 'JobSet'], ['kubeflow.org/v1', 'PyTorchJob'], ['kubeflow.org/v2beta1', 'MPIJob'],
  ['ray.io/v1', 'RayCluster'], ['ray.io/v1', 'RayJob'], ['ray.io/v1', 'RayService'],
  ['serving.kserve.io/v1beta1', 'InferenceService'], ['serving.knative.dev/v1', 'Service'],
  ['apps.nvidia.com/v1alpha1', 'NIMService'], ['leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet'], ['milvus.io/v1beta1', 'Milvus'],
  ['grove.io/v1alpha1', 'PodCliqueSet'], ['nvidia.com/v1alpha1', 'DynamoGraphDeployment'],
  ['trainer.kubeflow.org/v1alpha1', 'TrainJob'],
  ['workload.codeflare.dev/v1beta2', 'AppWrapper'], ['batch.volcano.sh/v1alpha1', 'Job'],
  ['kubeflow.org/v1', 'TFJob'], ['kubeflow.org/v1', 'XGBoostJob'], ['kubeflow.org/v1', 'JAXJob'], ['kubeflow.org/v1', 'PaddleJob'],
  ['apps.nvidia.com/v1alpha1', 'NIMCache'],
  ['serving.kserve.io/v1alpha2', 'LLMInferenceService'], ['agents.x-k8s.io/v1beta1', 'Sandbox'],
  ['sparkoperator.k8s.io/v1beta2', 'SparkApplication'],
];

/** Top-level workloads: objects of a root kind that no other object controls. */
function workloads(store: MemoryStore): KubeObject[] {
  const out: KubeObject[] = [];
  for (const [av, k] of ROOTS) for (const o of store.list(av, k)) if (!o.metadata.ownerReferences?.some((r) => r.controller)) out.push(o);
  return out;
}

function setup(seed = 1): { store: MemoryStore; clock: SimClock; ctl: ReturnType<typeof startControllers>; settle: () => Promise<void> } {
  const clock = SimClock.manual();
  const store = new MemoryStore({ now: () => clock.date(), initialResourceVersion: 1 });
  const ctl = startControllers(store, { clock, seed, autoDrain: false, maxReconcilesPerSettle: 2_000_000 });
  const settle = async (): Promise<void> => {
    await settleUntilSteady(store, ctl, 100);
  };
  return { store, clock, ctl, settle };
}

async function run(clock: SimClock, settle: () => Promise<void>, ms: number, step: number): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    clock.advance(step);
    await settle();
  }
}

test('demo: 30–60 workloads of every framework, some Pending for lack of GPUs, states that keep changing', async () => {
  const { store, clock, ctl, settle } = setup();
  // States seen at any time during the run (the demo cycles through them).
  const seen = new Set<string>();
  // Writes of top-level Jobs and JobSets that have completed (any moment, not only the last one).
  let finishedBatch = 0;
  store.subscribe((e) => {
    const o = e.object;
    const st = (o.status ?? {}) as { conditions?: Array<{ type: string; status: string }>; jobDeploymentStatus?: string; state?: string };
    for (const c of st.conditions ?? []) if (c.status === 'True') seen.add(`${o.kind}:${c.type}`);
    if (!o.metadata.ownerReferences?.some((r) => r.controller) && st.conditions?.some((c) => c.status === 'True' && ((o.kind === 'Job' && c.type === 'Complete') || (o.kind === 'JobSet' && c.type === 'Completed')))) finishedBatch++;
    if (st.jobDeploymentStatus) seen.add(`${o.kind}:${st.jobDeploymentStatus}`);
    if (st.state) seen.add(`${o.kind}:${st.state}`);
  });
  const sc = applyScenario(store, 'demo', { clock, seed: 1 });
  try {
    await settle();
    await run(clock, settle, 90_000, 5_000);
    const w = workloads(store);
    assert.ok(w.length >= 30 && w.length <= 60, `${w.length} workloads`);
    const kinds = new Set(w.map((o) => o.kind));
    for (const k of ['JobSet', 'PyTorchJob', 'TFJob', 'XGBoostJob', 'JAXJob', 'PaddleJob', 'MPIJob', 'RayCluster', 'RayJob', 'RayService', 'InferenceService', 'Service', 'NIMService', 'LeaderWorkerSet', 'Milvus', 'PodCliqueSet', 'DynamoGraphDeployment', 'Job', 'Deployment', 'StatefulSet']) {
      assert.ok(kinds.has(k), `a ${k} workload`);
    }
    const isvcModes = new Set(store.list('serving.kserve.io/v1beta1', 'InferenceService').map((o) => (o.status as { deploymentMode?: string }).deploymentMode));
    assert.deepEqual([...isvcModes].sort(), ['Knative', 'Standard']);
    assert.ok(store.list('nvidia.com/v1beta1', 'DynamoGraphDeployment').some((o) => o.apiVersion === 'nvidia.com/v1beta1'));
    const pods = store.list('v1', 'Pod');
    const gpuPending = pods.filter((p) => (p.status as { conditions?: Array<{ reason?: string; message?: string }> }).conditions?.some((c) => c.reason === 'Unschedulable' && /Insufficient nvidia\.com\/gpu/.test(c.message ?? '')));
    assert.ok(gpuPending.length > 0, 'pods pending for lack of GPUs');
    const running = pods.filter((p) => (p.status as { phase?: string }).phase === 'Running');
    assert.ok(running.length > 60, `${running.length} running pods`);
    // Different states side by side (a few minutes in, the short failing jobs have failed).
    await run(clock, settle, 150_000, 5_000);
    const cond = (o: KubeObject, t: string): boolean => !!(o.status as { conditions?: Array<{ type: string; status: string }> }).conditions?.some((c) => c.type === t && c.status === 'True');
    const now = workloads(store);
    assert.ok(now.some((o) => o.kind === 'MPIJob' && cond(o, 'Suspended')), 'a suspended MPIJob');
    assert.ok(now.some((o) => o.kind === 'InferenceService' && cond(o, 'Stopped')), 'a stopped InferenceService');
    assert.ok(now.some((o) => o.kind === 'InferenceService' && cond(o, 'Ready')), 'a ready InferenceService');
    assert.ok(now.some((o) => o.kind === 'DynamoGraphDeployment' && (o.status as { state?: string }).state === 'successful'));
    assert.ok(now.some((o) => o.kind === 'DynamoGraphDeployment' && (o.status as { state?: string }).state === 'pending'));
    // Life: within a quarter of an hour jobs finish, get resubmitted, things get suspended and resumed.
    const before = new Set(now.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`));
    const rv = Number(store.resourceVersion());
    const finishedBefore = finishedBatch;
    await run(clock, settle, 15 * 60_000, 20_000);
    const after = workloads(store);
    assert.ok(after.some((o) => !before.has(`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)), 'new submissions');
    // Batch work completed during the quarter of an hour (it is cleaned up two minutes later, so the last
    // moment alone may hold none).
    assert.ok(finishedBatch > finishedBefore, 'completed batch work');
    assert.ok(Number(store.resourceVersion()) - rv > 200, 'a steady stream of changes');
    assert.ok(after.length >= 30 && after.length <= 60, `${after.length} workloads later`);
    for (const s of ['PyTorchJob:Failed', 'PyTorchJob:Running', 'RayJob:Failed', 'RayJob:Complete', 'Job:Complete', 'JobSet:Completed', 'JobSet:Suspended', 'RayCluster:ready', 'NIMService:Ready', 'Milvus:MilvusReady']) {
      assert.ok(seen.has(s), `seen ${s}`);
    }

  } finally {
    sc.stop();
    ctl.stop();
    store.close();
  }
});

function fingerprint(store: MemoryStore): string[] {
  return store
    .snapshot()
    .objects.map((o) => {
      // Event names hash the involved object's uid (the store's own, random): what they say must repeat.
      if (o.kind === 'Event') return `Event|${o.metadata.namespace ?? ''}|${(o.involvedObject as { name?: string }).name}|${String(o.reason)}|${String(o.message)}`;
      const st = (o.status ?? {}) as { phase?: string };
      // uids are the store's own (random); everything the simulation decides must repeat.
      return `${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name}|${JSON.stringify(o.metadata.labels ?? {})}|${(o.spec as { nodeName?: string } | undefined)?.nodeName ?? ''}|${st.phase ?? ''}`.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>');
    })
    .sort();
}

test('scale: deterministic per seed, close to the asked size, every framework; churn is deterministic too', async () => {
  const opts = { pods: 3000, workloads: 300, nodes: 60 };
  const plan = planScale({ seed: 7, ...opts });
  assert.equal(plan.length, 300);
  assert.equal(plan.reduce((n, e) => n + e.pods, 0), 3000);
  assert.ok(new Set(plan.map((e) => e.framework)).size >= 15, 'nearly every framework');
  assert.deepEqual(planScale({ seed: 7, ...opts }), plan);
  assert.notDeepEqual(planScale({ seed: 8, ...opts }), plan);

  const build = async (seed: number): Promise<{ fp: string[]; pods: number; after: string[] }> => {
    const { store, clock, ctl, settle } = setup(seed);
    const sc = applyScenario(store, 'scale', { seed, ...opts, churnPerSecond: 50, clock });
    await settle();
    const fp = fingerprint(store);
    const pods = store.list('v1', 'Pod').length;
    await run(clock, settle, 2_000, 100);
    const after = fingerprint(store);
    sc.stop();
    ctl.stop();
    store.close();
    return { fp, pods, after };
  };
  const a = await build(7);
  const b = await build(7);
  const c = await build(8);
  assert.ok(Math.abs(a.pods - 3000) <= 60, `${a.pods} pods`);
  assert.deepEqual(a.fp, b.fp);
  assert.notDeepEqual(a.fp, c.fp);
  assert.deepEqual(a.after, b.after, 'churn is seeded');
  assert.notDeepEqual(a.after, a.fp, 'churn changed something');
});
