// RayCluster (ray.io/v1): head + one instance per worker group; one gang per cluster.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { devices, digest, gangOf, resolveFixture } from './testing.ts';

const SLUG = 'ray-io-raycluster-v1';
const UID = '27d9e313-7ba9-4e05-bc72-65f94ac767c8';
const PG = `pg-${UID}-rc-llm`;
// gpu-group: 4 GPUs as a limit only; the injected wait-gcs-ready init container asks for none
const GPU4 = { 'nvidia.com/gpu': 4 };
const MIG = { 'nvidia.com/mig-1g.10gb': 1 };

test('pending: head up, gpu-group workers unschedulable, not provisioned yet: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 2, ready: 0, gpusPerPod: GPU4 },
    },
    pods: {
      'rc-llm-head-hcmsg': 'head/',
      'rc-llm-gpu-group-worker-2nrdj': 'worker/gpu-group',
      'rc-llm-gpu-group-worker-lw4gk': 'worker/gpu-group',
    },
    unmatched: [],
    gpus: { desired: 8, requested: 8, allocated: 0 },
    errors: [],
  });
  // minMember = 1 head + gpu-group minReplicas 1
  assert.deepEqual(gangOf(tree), [{ name: PG, minMember: 2, pods: ['rc-llm-gpu-group-worker-2nrdj', 'rc-llm-gpu-group-worker-lw4gk', 'rc-llm-head-hcmsg'] }]);
});

test('running: two worker groups (full GPUs and MIG slices), all ready', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 2, ready: 2, gpusPerPod: GPU4 },
      'mig-group': { desired: 2, live: 2, ready: 2, gpusPerPod: MIG },
    },
    pods: {
      'rc-llm-head-q7pbf': 'head/',
      'rc-llm-gpu-group-worker-4qml2': 'worker/gpu-group',
      'rc-llm-gpu-group-worker-lkx2r': 'worker/gpu-group',
      'rc-llm-mig-group-worker-pm52r': 'worker/mig-group',
      'rc-llm-mig-group-worker-dsjzd': 'worker/mig-group',
    },
    unmatched: [],
    // 8 GPUs and two 1g.10gb slices (a seventh of a GPU each).
    gpus: { desired: devices(8 + 2 / 7), requested: devices(8 + 2 / 7), allocated: devices(8 + 2 / 7) },
    errors: [],
  });
  assert.deepEqual(tree.gpus.desired.byResource, { 'nvidia.com/gpu': 8, 'nvidia.com/mig-1g.10gb': 2 });
  assert.deepEqual(tree.gpus.allocated.byResource, { 'nvidia.com/gpu': 8, 'nvidia.com/mig-1g.10gb': 2 });
  const worker = tree.components.find((c) => c.name === 'worker');
  assert.deepEqual(
    worker?.instances.map((i) => [i.id, i.replicas, i.minReplicas, i.maxReplicas]),
    [
      ['gpu-group', 2, 1, 4],
      ['mig-group', 2, 0, 2],
    ],
  );
  // minMember = 1 head + gpu-group minReplicas 1 + mig-group replicas 2 (its minReplicas is 0)
  assert.deepEqual(gangOf(tree), [
    {
      name: PG,
      minMember: 4,
      pods: ['rc-llm-gpu-group-worker-4qml2', 'rc-llm-gpu-group-worker-lkx2r', 'rc-llm-head-q7pbf', 'rc-llm-mig-group-worker-dsjzd', 'rc-llm-mig-group-worker-pm52r'],
    },
  ]);
});

test('degraded: state stays ready but one of two desired workers is not ready: Degraded, not also Running', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-group': { desired: 2, live: 2, ready: 1, gpusPerPod: GPU4 },
    },
    pods: {
      'rc-llm-head-5sxb5': 'head/',
      'rc-llm-gpu-group-worker-5s867': 'worker/gpu-group',
      'rc-llm-gpu-group-worker-d5j2p': 'worker/gpu-group',
    },
    unmatched: [],
    gpus: { desired: 8, requested: 8, allocated: 8 },
    errors: [],
  });
});

test('suspended: spec.suspend, state suspended, all pods deleted', () => {
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
