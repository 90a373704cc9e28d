import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, resolveFixture } from './testing.ts';

const SLUG = 'serving-kserve-io-inferenceservice-v1beta1';
const GPU1 = { 'nvidia.com/gpu': 1 };

// Standard (raw Deployment) mode: InferenceService -> Deployment -> ReplicaSet -> pods.
const RAW_PRED_0 = 'llama-31-8b-predictor-l7zjdxlkxw-ccflv';
const RAW_PRED_1 = 'llama-31-8b-predictor-l7zjdxlkxw-kplhj';
const RAW_TRANSFORMER = 'llama-31-8b-transformer-jk8dtdx6kj-x2wrh';
// Knative mode: InferenceService -> Knative Service -> Configuration -> Revision -> Deployment -> ReplicaSet -> pods.
const KN_POD_0 = 'mistral-7b-predictor-00001-deployment-xts4x84xpf-v455l';
const KN_POD_1 = 'mistral-7b-predictor-00001-deployment-xts4x84xpf-vkqzr';

test('standard mode, pending: the predictor pod cannot be scheduled', () => {
  const tree = resolveFixture(SLUG, 'standard-pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  // No transformer or explainer in the spec: no such roles.
  assert.deepEqual(d.roles, { predictor: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU1 } });
  assert.deepEqual(d.pods, { [RAW_PRED_0]: 'predictor/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 0 });
  assert.deepEqual(tree.gang, []);
});

test('standard mode, running: predictor x2 (1 GPU each) and a CPU-only transformer', () => {
  const tree = resolveFixture(SLUG, 'standard-running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, {
    predictor: { desired: 2, live: 2, ready: 2, gpusPerPod: GPU1 },
    transformer: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
  });
  assert.deepEqual(d.pods, { [RAW_PRED_0]: 'predictor/', [RAW_PRED_1]: 'predictor/', [RAW_TRANSFORMER]: 'transformer/transformer' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 2, requested: 2, allocated: 2 });
  const scale = Object.fromEntries(tree.components.flatMap((c) => c.instances.map((i) => [`${c.name}/${i.id}`, [i.replicas, i.minReplicas, i.maxReplicas]])));
  assert.deepEqual(scale, {
    'inferenceservice/': [null, null, null],
    'predictor/': [2, 2, 4],
    'transformer/transformer': [1, 1, 3],
  });
  // The storage initializer the KServe webhook adds to each pod asks for no GPU.
  assert.deepEqual(tree.pods.find((p) => p.name === RAW_PRED_0)?.gpus, GPU1);
});

test('standard mode, failed: the model server crash-loops (BlockedByFailedLoad)', () => {
  const tree = resolveFixture(SLUG, 'standard-failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.deepEqual(d.roles, { predictor: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU1 } });
  assert.deepEqual(d.pods, { [RAW_PRED_0]: 'predictor/' });
  assert.deepEqual(d.unmatched, []);
  // The crash-looping pod is bound and still holds its GPU.
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 1 });
  assert.equal(tree.pods[0].restarts, 7);
});

test('standard mode, stopped: Suspended, nothing desired, nothing running', () => {
  const tree = resolveFixture(SLUG, 'standard-stopped');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Suspended']);
  assert.deepEqual(d.roles, { predictor: { desired: 0, live: 0, ready: 0, gpusPerPod: GPU1 } });
  assert.deepEqual(d.pods, {});
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
});

test('knative mode, pending: pods four levels down, unschedulable', () => {
  const tree = resolveFixture(SLUG, 'knative-pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  // Knative says RevisionFailed for an unschedulable pod; KServe's model status is still Pending.
  assert.deepEqual(d.status, ['Initializing']);
  assert.deepEqual(d.roles, { predictor: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU1 } });
  assert.deepEqual(d.pods, { [KN_POD_0]: 'predictor/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 0 });
});

test('knative mode, running: autoscaled to 2 pods above minReplicas 1', () => {
  const tree = resolveFixture(SLUG, 'knative-running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  // Desired follows the spec (minReplicas); the autoscaler runs more.
  assert.deepEqual(d.roles, { predictor: { desired: 1, live: 2, ready: 2, gpusPerPod: GPU1 } });
  assert.deepEqual(d.pods, { [KN_POD_0]: 'predictor/', [KN_POD_1]: 'predictor/' });
  assert.deepEqual(d.unmatched, []);
  // GPU in limits only in the spec; the pods carry it as a request too.
  assert.deepEqual(d.gpus, { desired: 1, requested: 2, allocated: 2 });
  const pred = tree.components.find((c) => c.name === 'predictor');
  assert.deepEqual(pred?.instances.map((i) => [i.replicas, i.minReplicas, i.maxReplicas]), [[1, 1, 3]]);
});

test('knative mode, failed: crash loop, BlockedByFailedLoad', () => {
  const tree = resolveFixture(SLUG, 'knative-failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.deepEqual(d.roles, { predictor: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU1 } });
  assert.deepEqual(d.pods, { [KN_POD_0]: 'predictor/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 1 });
});

test('knative mode, scaled to zero: Running with no pods', () => {
  const tree = resolveFixture(SLUG, 'knative-scaled-to-zero');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, { predictor: { desired: 0, live: 0, ready: 0, gpusPerPod: GPU1 } });
  assert.deepEqual(d.pods, {});
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
});
