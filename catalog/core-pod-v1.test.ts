// A bare Pod (v1): the workload is the pod itself; status from status.phase.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { devices, digest, resolveFixture } from './testing.ts';

const SLUG = 'core-pod-v1';
// one MIG slice as a limit only
const MIG = { 'nvidia.com/mig-1g.10gb': 1 };
const GPU1 = { 'nvidia.com/gpu': 1 };

test('pending: unschedulable notebook asking for a MIG slice: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: { pod: { desired: 1, live: 1, ready: 0, gpusPerPod: MIG } },
    pods: { 'notebook-alice': 'pod/' },
    unmatched: [],
    gpus: { desired: devices(1 / 7), requested: devices(1 / 7), allocated: 0 },
    errors: [],
  });
  assert.deepEqual(tree.gpus.requested.byResource, MIG);
  assert.deepEqual(tree.gang, []);
});

test('running: bound and ready', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: { pod: { desired: 1, live: 1, ready: 1, gpusPerPod: MIG } },
    pods: { 'notebook-alice': 'pod/' },
    unmatched: [],
    gpus: { desired: devices(1 / 7), requested: devices(1 / 7), allocated: devices(1 / 7) },
    errors: [],
  });
  assert.deepEqual(tree.gpus.allocated.byResource, MIG);
});

test('degraded: phase Running but the container crash-loops: Degraded, not also Running', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: { pod: { desired: 1, live: 1, ready: 0, gpusPerPod: MIG } },
    pods: { 'notebook-alice': 'pod/' },
    unmatched: [],
    gpus: { desired: devices(1 / 7), requested: devices(1 / 7), allocated: devices(1 / 7) },
    errors: [],
  });
});

test('succeeded: Completed, the GPU is free again', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: { pod: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'cuda-vectoradd': 'pod/' },
    unmatched: [],
    gpus: { desired: 1, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('failed: OOMKilled: Failed', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: { pod: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'cuda-vectoradd': 'pod/' },
    unmatched: [],
    gpus: { desired: 1, requested: 0, allocated: 0 },
    errors: [],
  });
});
