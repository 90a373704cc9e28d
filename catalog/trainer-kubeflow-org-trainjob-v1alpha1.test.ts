// TrainJob (trainer.kubeflow.org/v1alpha1): the JobSet the trainer controller creates from the
// runtime (two levels down: JobSet -> Jobs -> pods), initializer and trainer steps told apart by the
// replicatedJob label, desired pods and GPUs from what the TrainJob says, the trainer's nodes one gang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkloadTree } from '../server/engine/tree.ts';
import { digest, fixtureObjects, gangOf, resolveFixture } from './testing.ts';

const SLUG = 'trainer-kubeflow-org-trainjob-v1alpha1';
const NO_INIT = { 'dataset-initializer': { desired: 0, live: 0, ready: 0, gpusPerPod: {} }, 'model-initializer': { desired: 0, live: 0, ready: 0, gpusPerPod: {} } };

/** The TrainJob's uid, which KAI's PodGroup names carry. */
function uidOf(state: string): string {
  const tj = fixtureObjects(SLUG, state).find((o) => o.kind === 'TrainJob');
  return String((tj?.metadata as { uid?: string } | undefined)?.uid);
}

function ranks(tree: WorkloadTree): Record<string, string | null> {
  return Object.fromEntries(tree.pods.map((p) => [p.name, p.replica]));
}

test('pending: torch-distributed, 2 nodes x 8 GPUs, one node scheduled and one waiting for GPUs', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: { ...NO_INIT, trainer: { desired: 2, live: 2, ready: 1, gpusPerPod: { 'nvidia.com/gpu': 8 } } },
    pods: { 'llama-pretrain-node-0-0-vbs99': 'trainer/', 'llama-pretrain-node-0-1-kvzp9': 'trainer/' },
    unmatched: [],
    gpus: { desired: 16, requested: 16, allocated: 8 },
    errors: [],
  });
  // The replica is the node rank (the Indexed Job's completion index).
  assert.deepEqual(ranks(tree), { 'llama-pretrain-node-0-0-vbs99': '0', 'llama-pretrain-node-0-1-kvzp9': '1' });
  assert.deepEqual(gangOf(tree), [
    { name: `pg-${uidOf('pending')}-llama-pretrain`, minMember: 2, pods: ['llama-pretrain-node-0-0-vbs99', 'llama-pretrain-node-0-1-kvzp9'] },
  ]);
  assert.deepEqual(tree.warnings, []);
});

test('initializing: both initializers run; the trainer\'s Job waits for them (dependsOn Complete)', () => {
  const tree = resolveFixture(SLUG, 'initializing');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      'dataset-initializer': { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'model-initializer': { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      trainer: { desired: 2, live: 0, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 2 } },
    },
    pods: { 'llama-sft-dataset-initializer-0-0-vbs99': 'dataset-initializer/', 'llama-sft-model-initializer-0-0-kvzp9': 'model-initializer/' },
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
  const uid = uidOf('initializing');
  assert.deepEqual(gangOf(tree), [
    { name: `pg-${uid}-dataset-initializer`, minMember: 1, pods: ['llama-sft-dataset-initializer-0-0-vbs99'] },
    { name: `pg-${uid}-model-initializer`, minMember: 1, pods: ['llama-sft-model-initializer-0-0-kvzp9'] },
  ]);
});

test('running: initializers succeeded, both nodes ready; every jobsStatus entry ready or succeeded', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      'dataset-initializer': { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      'model-initializer': { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      trainer: { desired: 2, live: 2, ready: 2, gpusPerPod: { 'nvidia.com/gpu': 2 } },
    },
    pods: {
      'llama-sft-dataset-initializer-0-0-vbs99': 'dataset-initializer/',
      'llama-sft-model-initializer-0-0-kvzp9': 'model-initializer/',
      'llama-sft-node-0-0-qrfnj': 'trainer/',
      'llama-sft-node-0-1-grcn2': 'trainer/',
    },
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 4 },
    errors: [],
  });
  assert.deepEqual(ranks(tree), { 'llama-sft-dataset-initializer-0-0-vbs99': null, 'llama-sft-model-initializer-0-0-kvzp9': null, 'llama-sft-node-0-0-qrfnj': '0', 'llama-sft-node-0-1-grcn2': '1' });
  // The JobSet is a structural component between the TrainJob and its steps.
  assert.deepEqual(tree.components.map((c) => [c.name, c.parent]), [['trainjob', null], ['jobset', 'trainjob'], ['dataset-initializer', 'jobset'], ['model-initializer', 'jobset'], ['trainer', 'jobset']]);
  const uid = uidOf('running');
  assert.deepEqual(gangOf(tree), [
    { name: `pg-${uid}-dataset-initializer`, minMember: 1, pods: ['llama-sft-dataset-initializer-0-0-vbs99'] },
    { name: `pg-${uid}-llama-sft`, minMember: 2, pods: ['llama-sft-node-0-0-qrfnj', 'llama-sft-node-0-1-grcn2'] },
    { name: `pg-${uid}-model-initializer`, minMember: 1, pods: ['llama-sft-model-initializer-0-0-kvzp9'] },
  ]);
});

test('succeeded: Complete (copied from the JobSet\'s Completed); finished pods ask for nothing', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: { ...NO_INIT, trainer: { desired: 2, live: 0, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 4 } } },
    pods: { 'bert-ft-node-0-0-vbs99': 'trainer/', 'bert-ft-node-0-1-kvzp9': 'trainer/' },
    unmatched: [],
    gpus: { desired: 8, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(tree.status.conditions.map((c) => [c.type, c.status, c.reason]), [['Complete', 'True', 'AllJobsCompleted']]);
});

test('failed: Failed with the JobSet\'s reason; the Job\'s backoff exceeded, its pods are gone', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: { ...NO_INIT, trainer: { desired: 2, live: 0, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 1 } } },
    pods: {},
    unmatched: [],
    gpus: { desired: 2, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(tree.status.conditions.map((c) => [c.type, c.reason]), [['Failed', 'FailedJobs']]);
  assert.deepEqual(gangOf(tree), []);
});

test('suspended: Suspended condition, the JobSet and its Job suspended, no pods', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: { ...NO_INIT, trainer: { desired: 2, live: 0, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 1 } } },
    pods: {},
    unmatched: [],
    gpus: { desired: 2, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('restarting: the JobSet recreated its Jobs after a node failed (restarts 1); the TrainJob mirrors no restart, so it is Initializing', () => {
  const objects = fixtureObjects(SLUG, 'restarting');
  const js = objects.find((o) => o.kind === 'JobSet') as { status: { restarts: number } };
  assert.equal(js.status.restarts, 1);
  const tree = resolveFixture(SLUG, 'restarting');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: { ...NO_INIT, trainer: { desired: 2, live: 2, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 4 } } },
    pods: { 'mixtral-ft-node-0-0-qrfnj': 'trainer/', 'mixtral-ft-node-0-1-grcn2': 'trainer/' },
    unmatched: [],
    gpus: { desired: 8, requested: 8, allocated: 8 },
    errors: [],
  });
});
