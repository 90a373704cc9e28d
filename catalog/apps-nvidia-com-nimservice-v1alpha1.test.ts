import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangsInTreeOrder, resolveFixture } from './testing.ts';

const SLUG = 'apps-nvidia-com-nimservice-v1alpha1';
const SINGLE_UID = 'e3a52c1d-7b75-4f22-8475-9430734be41d';
const MULTI_UID = '7514e1f8-9395-4740-aabb-95719f9f8925';
const POD_0 = 'llama-3-1-8b-mp4qvcggpt-mpphc';
const POD_1 = 'llama-3-1-8b-mp4qvcggpt-xt2gd';

test('single node, pending: the Deployment pod waits for a GPU', () => {
  const tree = resolveFixture(SLUG, 'single-node-pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  // Only the single-node role exists; no leader/worker roles.
  assert.deepEqual(d.roles, { server: { desired: 1, live: 1, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 1 } } });
  assert.deepEqual(d.pods, { [POD_0]: 'server/server' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 0 });
  assert.deepEqual(gangsInTreeOrder(tree), [{ name: `pg-${SINGLE_UID}-${POD_0}`, minMember: 1, pods: [POD_0] }]);
});

test('single node, running: 2 replicas, each its own gang of one', () => {
  const tree = resolveFixture(SLUG, 'single-node-running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, { server: { desired: 2, live: 2, ready: 2, gpusPerPod: { 'nvidia.com/gpu': 1 } } });
  assert.deepEqual(d.pods, { [POD_0]: 'server/server', [POD_1]: 'server/server' });
  assert.deepEqual(d.unmatched, []);
  // GPU in limits only in the NIMService; the pods carry it as a request too.
  assert.deepEqual(d.gpus, { desired: 2, requested: 2, allocated: 2 });
  assert.deepEqual(gangsInTreeOrder(tree), [
    { name: `pg-${SINGLE_UID}-${POD_0}`, minMember: 1, pods: [POD_0] },
    { name: `pg-${SINGLE_UID}-${POD_1}`, minMember: 1, pods: [POD_1] },
  ]);
});

test('single node, failed: past the progress deadline, the operator only says NotReady', () => {
  const tree = resolveFixture(SLUG, 'single-node-failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.equal(tree.status.phase, 'NotReady');
  assert.deepEqual(d.roles, { server: { desired: 1, live: 1, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 1 } } });
  assert.deepEqual(d.pods, { [POD_0]: 'server/server' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 1 });
  assert.equal(tree.pods[0].restarts, 9);
});

test('multi node, pending: one LWS group of 2, both pods unschedulable', () => {
  const tree = resolveFixture(SLUG, 'multi-node-pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  assert.deepEqual(d.roles, {
    leader: { desired: 1, live: 1, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 8 } },
    worker: { desired: 1, live: 1, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 8 } },
  });
  assert.deepEqual(d.pods, { 'deepseek-r1-lws-0': 'leader/leader', 'deepseek-r1-lws-0-1': 'worker/worker' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 16, requested: 16, allocated: 0 });
  assert.deepEqual(gangsInTreeOrder(tree), [{ name: `pg-${MULTI_UID}-deepseek-r1-lws-0`, minMember: 2, pods: ['deepseek-r1-lws-0', 'deepseek-r1-lws-0-1'] }]);
});

test('multi node, running: 2 groups x 2 pods, one gang per group', () => {
  const tree = resolveFixture(SLUG, 'multi-node-running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, {
    leader: { desired: 2, live: 2, ready: 2, gpusPerPod: { 'nvidia.com/gpu': 8 } },
    worker: { desired: 2, live: 2, ready: 2, gpusPerPod: { 'nvidia.com/gpu': 8 } },
  });
  assert.deepEqual(d.pods, {
    'deepseek-r1-lws-0': 'leader/leader',
    'deepseek-r1-lws-0-1': 'worker/worker',
    'deepseek-r1-lws-1': 'leader/leader',
    'deepseek-r1-lws-1-1': 'worker/worker',
  });
  assert.deepEqual(d.unmatched, []);
  // 4 pods x 8 GPUs
  assert.deepEqual(d.gpus, { desired: 32, requested: 32, allocated: 32 });
  assert.deepEqual(Object.fromEntries(tree.pods.map((p) => [p.name, p.replica])), {
    'deepseek-r1-lws-0': '0',
    'deepseek-r1-lws-0-1': '0',
    'deepseek-r1-lws-1': '1',
    'deepseek-r1-lws-1-1': '1',
  });
  assert.deepEqual(gangsInTreeOrder(tree), [
    { name: `pg-${MULTI_UID}-deepseek-r1-lws-0`, minMember: 2, pods: ['deepseek-r1-lws-0', 'deepseek-r1-lws-0-1'] },
    { name: `pg-${MULTI_UID}-deepseek-r1-lws-1`, minMember: 2, pods: ['deepseek-r1-lws-1', 'deepseek-r1-lws-1-1'] },
  ]);
});
