import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, resolveFixture, devices } from './testing.ts';

const SLUG = 'serving-knative-dev-service-v1';
const MIG = { 'nvidia.com/mig-1g.10gb': 1 };
const REV1_POD_0 = 'bge-embedder-00001-deployment-fdkfxvcs47-mxkvx';
const REV1_POD_1 = 'bge-embedder-00001-deployment-fdkfxvcs47-lgcxj';
const REV2_POD_0 = 'bge-embedder-00002-deployment-46j5v4f56z-tmszf';
const REV2_POD_1 = 'bge-embedder-00002-deployment-46j5v4f56z-fs8x7';

function scale(tree: ReturnType<typeof resolveFixture>) {
  return tree.components.find((c) => c.name === 'revision')?.instances.map((i) => [i.replicas, i.minReplicas, i.maxReplicas]);
}

test('pending: the only pod waits for a free MIG slice (Knative says RevisionFailed)', () => {
  const tree = resolveFixture(SLUG, 'pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  assert.deepEqual(d.roles, { revision: { desired: 1, live: 1, ready: 0, gpusPerPod: MIG } });
  assert.deepEqual(d.pods, { [REV1_POD_0]: 'revision/' });
  assert.deepEqual(d.unmatched, []);
  // One 1g.10gb slice is a seventh of a GPU.
  assert.deepEqual(d.gpus, { desired: devices(1 / 7), requested: devices(1 / 7), allocated: 0 });
  assert.deepEqual(tree.gpus.requested.byResource, MIG);
  // Scale annotations are strings: "1" and "4" become integers.
  assert.deepEqual(scale(tree), [[1, 1, 4]]);
  assert.deepEqual(tree.gang, []);
});

test('running: canary split over two revisions, pods of both are the service\'s', () => {
  const tree = resolveFixture(SLUG, 'running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  // The template asks for min-scale 2; revisions 00001 and 00002 each run 2.
  assert.deepEqual(d.roles, { revision: { desired: 2, live: 4, ready: 4, gpusPerPod: MIG } });
  assert.deepEqual(d.pods, { [REV1_POD_0]: 'revision/', [REV1_POD_1]: 'revision/', [REV2_POD_0]: 'revision/', [REV2_POD_1]: 'revision/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: devices(2 / 7), requested: devices(4 / 7), allocated: devices(4 / 7) });
  assert.deepEqual(tree.gpus.allocated.byResource, { 'nvidia.com/mig-1g.10gb': 4 });
  assert.deepEqual(scale(tree), [[2, 2, 4]]);
});

test('failed: the revision crash-loops', () => {
  const tree = resolveFixture(SLUG, 'failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.deepEqual(d.roles, { revision: { desired: 1, live: 1, ready: 0, gpusPerPod: MIG } });
  assert.deepEqual(d.pods, { [REV1_POD_0]: 'revision/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: devices(1 / 7), requested: devices(1 / 7), allocated: devices(1 / 7) });
  assert.equal(tree.pods[0].restarts, 5);
});

test('scaled to zero: Ready, no pods, nothing desired', () => {
  const tree = resolveFixture(SLUG, 'scaled-to-zero');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, { revision: { desired: 0, live: 0, ready: 0, gpusPerPod: MIG } });
  assert.deepEqual(d.pods, {});
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.deepEqual(scale(tree), [[0, 0, 4]]);
});
