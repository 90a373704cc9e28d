// RayJob (ray.io/v1): the RayCluster it creates (head + worker groups, two levels down) and the
// submitter Job's pod; the cluster is one gang, the submitter pod has a PodGroup of its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangOf, resolveFixture } from './testing.ts';

const SLUG = 'ray-io-rayjob-v1';
const UID = '84308798-26bd-430e-ab26-ae5f8b01a29a';
const CLUSTER_PG = `pg-${UID}-text-clf-x9tk7`;
const SUBMITTER_PG = `pg-${UID}`;
// gpu-workers: "2" GPUs as a limit only; head and submitter are CPU-only
const GPU2 = { 'nvidia.com/gpu': 2 };

test('pending: Initializing deployment, cluster workers unschedulable, no submitter yet', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-workers': { desired: 2, live: 2, ready: 0, gpusPerPod: GPU2 },
      submitter: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
    },
    pods: {
      'text-clf-x9tk7-head-lpdpt': 'head/',
      'text-clf-x9tk7-gpu-workers-worker-bmpb5': 'worker/gpu-workers',
      'text-clf-x9tk7-gpu-workers-worker-5jxqc': 'worker/gpu-workers',
    },
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 0 },
    errors: [],
  });
  // minMember = 1 head + 2 workers (minReplicas 2); the submitter is not part of the cluster's gang
  assert.deepEqual(gangOf(tree), [
    { name: CLUSTER_PG, minMember: 3, pods: ['text-clf-x9tk7-gpu-workers-worker-5jxqc', 'text-clf-x9tk7-gpu-workers-worker-bmpb5', 'text-clf-x9tk7-head-lpdpt'] },
  ]);
});

test('running: jobDeploymentStatus Running and jobStatus RUNNING; submitter pod under the Job named after the RayJob', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-workers': { desired: 2, live: 2, ready: 2, gpusPerPod: GPU2 },
      submitter: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
    },
    pods: {
      'text-clf-x9tk7-head-4h7hd': 'head/',
      'text-clf-x9tk7-gpu-workers-worker-2xnwn': 'worker/gpu-workers',
      'text-clf-x9tk7-gpu-workers-worker-qmr5v': 'worker/gpu-workers',
      'text-clf-97r4r': 'submitter/',
    },
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 4 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), [
    { name: SUBMITTER_PG, minMember: 1, pods: ['text-clf-97r4r'] },
    { name: CLUSTER_PG, minMember: 3, pods: ['text-clf-x9tk7-gpu-workers-worker-2xnwn', 'text-clf-x9tk7-gpu-workers-worker-qmr5v', 'text-clf-x9tk7-head-4h7hd'] },
  ]);
});

test('succeeded: Complete/SUCCEEDED; shutdownAfterJobFinishes deleted the cluster, the submitter pod remains', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: {
      head: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      'gpu-workers': { desired: 2, live: 0, ready: 0, gpusPerPod: GPU2 },
      submitter: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
    },
    pods: { 'text-clf-csdhz': 'submitter/' },
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), [{ name: SUBMITTER_PG, minMember: 1, pods: ['text-clf-csdhz'] }]);
});

test('failed: Failed/FAILED; without shutdownAfterJobFinishes the cluster keeps running and holds its GPUs', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: {
      head: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      'gpu-workers': { desired: 2, live: 2, ready: 2, gpusPerPod: GPU2 },
      submitter: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
    },
    pods: {
      'text-clf-x9tk7-head-h8pkh': 'head/',
      'text-clf-x9tk7-gpu-workers-worker-k5jh5': 'worker/gpu-workers',
      'text-clf-x9tk7-gpu-workers-worker-9mfwj': 'worker/gpu-workers',
      'text-clf-8vc47': 'submitter/',
    },
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 4 },
    errors: [],
  });
});

test('suspended: jobDeploymentStatus Suspended, no cluster and no submitter', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: {
      head: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      'gpu-workers': { desired: 2, live: 0, ready: 0, gpusPerPod: GPU2 },
      submitter: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
    },
    pods: {},
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), []);
});
