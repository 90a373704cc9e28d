// RayService (ray.io/v1): the serving RayCluster(s) it creates; one gang per RayCluster.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangOf, resolveFixture } from './testing.ts';

const SLUG = 'ray-io-rayservice-v1';
const UID = '9b70ff1b-1153-40a3-9e85-a451c7781542';
const ACTIVE_PG = `pg-${UID}-llm-serve-kkx22`;
const GPU4 = { 'nvidia.com/gpu': 4 };

// minMember = 1 head + gpu-group minReplicas 1

test('pending: Ready=False reason Initializing, workers unschedulable', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 2, ready: 0, gpusPerPod: GPU4 },
    },
    pods: {
      'llm-serve-kkx22-head-hv9qz': 'head/',
      'llm-serve-kkx22-gpu-group-worker-bnts5': 'worker/gpu-group',
      'llm-serve-kkx22-gpu-group-worker-dgszn': 'worker/gpu-group',
    },
    unmatched: [],
    gpus: { desired: 8, requested: 8, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), [
    { name: ACTIVE_PG, minMember: 2, pods: ['llm-serve-kkx22-gpu-group-worker-bnts5', 'llm-serve-kkx22-gpu-group-worker-dgszn', 'llm-serve-kkx22-head-hv9qz'] },
  ]);
});

test('running: Ready=True, the Serve application RUNNING', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 2, ready: 2, gpusPerPod: GPU4 },
    },
    pods: {
      'llm-serve-kkx22-head-fmz7m': 'head/',
      'llm-serve-kkx22-gpu-group-worker-pfqcr': 'worker/gpu-group',
      'llm-serve-kkx22-gpu-group-worker-zr7zg': 'worker/gpu-group',
    },
    unmatched: [],
    gpus: { desired: 8, requested: 8, allocated: 8 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), [
    { name: ACTIVE_PG, minMember: 2, pods: ['llm-serve-kkx22-gpu-group-worker-pfqcr', 'llm-serve-kkx22-gpu-group-worker-zr7zg', 'llm-serve-kkx22-head-fmz7m'] },
  ]);
});

test('degraded: still Ready, but the application is UNHEALTHY and a worker crash-loops: Degraded only', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 2, ready: 1, gpusPerPod: GPU4 },
    },
    pods: {
      'llm-serve-kkx22-head-fcndc': 'head/',
      'llm-serve-kkx22-gpu-group-worker-nwzjl': 'worker/gpu-group',
      'llm-serve-kkx22-gpu-group-worker-nnrq2': 'worker/gpu-group',
    },
    unmatched: [],
    gpus: { desired: 8, requested: 8, allocated: 8 },
    errors: [],
  });
});

test('failed: Ready=False reason InitializingTimeout, workers never scheduled', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 2, ready: 0, gpusPerPod: GPU4 },
    },
    pods: {
      'llm-serve-kkx22-head-x9rj7': 'head/',
      'llm-serve-kkx22-gpu-group-worker-q9f9j': 'worker/gpu-group',
      'llm-serve-kkx22-gpu-group-worker-zspff': 'worker/gpu-group',
    },
    unmatched: [],
    gpus: { desired: 8, requested: 8, allocated: 0 },
    errors: [],
  });
});

test('upgrading: active and pending RayCluster side by side; pods of both, one gang each', () => {
  const tree = resolveFixture(SLUG, 'upgrading');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      // desired comes from spec.rayClusterConfig (one cluster); live counts both clusters' pods
      head: { desired: 1, live: 2, ready: 2, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 4, ready: 2, gpusPerPod: GPU4 },
    },
    pods: {
      'llm-serve-kkx22-head-747d8': 'head/',
      'llm-serve-kkx22-gpu-group-worker-5h9n9': 'worker/gpu-group',
      'llm-serve-kkx22-gpu-group-worker-dvwcw': 'worker/gpu-group',
      'llm-serve-9rsdn-head-vmxm7': 'head/',
      'llm-serve-9rsdn-gpu-group-worker-j6mgb': 'worker/gpu-group',
      'llm-serve-9rsdn-gpu-group-worker-b8wvs': 'worker/gpu-group',
    },
    unmatched: [],
    gpus: { desired: 8, requested: 16, allocated: 8 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), [
    { name: `pg-${UID}-llm-serve-9rsdn`, minMember: 2, pods: ['llm-serve-9rsdn-gpu-group-worker-b8wvs', 'llm-serve-9rsdn-gpu-group-worker-j6mgb', 'llm-serve-9rsdn-head-vmxm7'] },
    { name: ACTIVE_PG, minMember: 2, pods: ['llm-serve-kkx22-gpu-group-worker-5h9n9', 'llm-serve-kkx22-gpu-group-worker-dvwcw', 'llm-serve-kkx22-head-747d8'] },
  ]);
});

test('suspended: Suspended=True (Ready=False SuspendComplete), clusters deleted', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: {
      head: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 0, ready: 0, gpusPerPod: GPU4 },
    },
    pods: {},
    unmatched: [],
    gpus: { desired: 8, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), []);
});
