// StatefulSet (apps/v1): status from the replica counters (no standard conditions).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, resolveFixture } from './testing.ts';

const SLUG = 'apps-statefulset-v1';
// 1 GPU per pod in requests and limits; the init container asks for none
const GPU1 = { 'nvidia.com/gpu': 1 };

test('pending: OrderedReady, vector-db-0 unschedulable and the others not created yet: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: { statefulset: { desired: 3, live: 1, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'vector-db-0': 'statefulset/' },
    unmatched: [],
    gpus: { desired: 3, requested: 1, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(tree.gang, []);
});

test('running: 3/3 ready', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: { statefulset: { desired: 3, live: 3, ready: 3, gpusPerPod: GPU1 } },
    pods: { 'vector-db-0': 'statefulset/', 'vector-db-1': 'statefulset/', 'vector-db-2': 'statefulset/' },
    unmatched: [],
    gpus: { desired: 3, requested: 3, allocated: 3 },
    errors: [],
  });
});

test('degraded: every pod exists, vector-db-2 crash-loops: 2/3 ready', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: { statefulset: { desired: 3, live: 3, ready: 2, gpusPerPod: GPU1 } },
    pods: { 'vector-db-0': 'statefulset/', 'vector-db-1': 'statefulset/', 'vector-db-2': 'statefulset/' },
    unmatched: [],
    gpus: { desired: 3, requested: 3, allocated: 3 },
    errors: [],
  });
});
