// Deployment (apps/v1): the Deployment carries the pod template; pods hang off its ReplicaSets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, resolveFixture } from './testing.ts';

const SLUG = 'apps-deployment-v1';
// 1 GPU per pod as a limit only (the CPU and memory requests are set, the GPU request is not)
const GPU1 = { 'nvidia.com/gpu': 1 };

test('running: Available and rolled out, 2/2 pods ready', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: { deployment: { desired: 2, live: 2, ready: 2, gpusPerPod: GPU1 } },
    pods: { 'embedder-pbgk4nlqvc-pctnc': 'deployment/', 'embedder-pbgk4nlqvc-wkp87': 'deployment/' },
    unmatched: [],
    gpus: { desired: 2, requested: 2, allocated: 2 },
    errors: [],
  });
  assert.deepEqual(tree.gang, []);
});

test('pending: new rollout, both pods unschedulable: Initializing, nothing allocated', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: { deployment: { desired: 2, live: 2, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'embedder-pbgk4nlqvc-xzv9r': 'deployment/', 'embedder-pbgk4nlqvc-54r4k': 'deployment/' },
    unmatched: [],
    gpus: { desired: 2, requested: 2, allocated: 0 },
    errors: [],
  });
});

test('failed: progress deadline exceeded; the pod is bound but stuck in ImagePullBackOff, so its GPU is allocated', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: { deployment: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'embedder-kmn79mcl2q-n6h29': 'deployment/' },
    unmatched: [],
    gpus: { desired: 1, requested: 1, allocated: 1 },
    errors: [],
  });
});

test('degraded: rolled out once, now 2 of 3 pods ready (one crash-looping)', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: { deployment: { desired: 3, live: 3, ready: 2, gpusPerPod: GPU1 } },
    pods: { 'embedder-pbgk4nlqvc-bnsnh': 'deployment/', 'embedder-pbgk4nlqvc-flszt': 'deployment/', 'embedder-pbgk4nlqvc-ll5xm': 'deployment/' },
    unmatched: [],
    gpus: { desired: 3, requested: 3, allocated: 3 },
    errors: [],
  });
});

test('rolling-update: pods of two ReplicaSets; the terminating old pod still holds its GPU (allocated)', () => {
  const tree = resolveFixture(SLUG, 'rolling-update');
  const d = digest(tree);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.pods, {
    'embedder-pbgk4nlqvc-fzgkh': 'deployment/',
    'embedder-pbgk4nlqvc-r9kzg': 'deployment/',
    'embedder-vjr8vvpq5x-qvl9b': 'deployment/',
    'embedder-vjr8vvpq5x-6hflf': 'deployment/',
  });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.errors, []);
  assert.equal(d.roles.deployment.desired, 2);
  assert.equal(d.roles.deployment.ready, 2);
  // all 4 pods are bound and none has finished, the terminating one included
  assert.equal(d.gpus.desired, 2);
  assert.equal(d.gpus.allocated, 4);
});

// DESIGN.md decision 4: requested = live non-terminal pods, not Succeeded/Failed and not being deleted.
// The engine still counts embedder-pbgk4nlqvc-r9kzg (deletionTimestamp set) as live and requested.
test('rolling-update: the pod being deleted is neither live nor requested', () => {
  const d = digest(resolveFixture(SLUG, 'rolling-update'));
  // live: old running, new running, new ContainerCreating
  assert.deepEqual(d.roles, { deployment: { desired: 2, live: 3, ready: 2, gpusPerPod: GPU1 } });
  assert.deepEqual(d.gpus, { desired: 2, requested: 3, allocated: 4 });
});
