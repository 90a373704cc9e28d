// MPIJob (kubeflow.org/v2beta1): launcher pod through a batch Job, worker pods owned by the MPIJob,
// roles from training.kubeflow.org/job-role; one gang for launcher + workers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, fixtureObjects, gangOf, resolveFixture, resolveObjects } from './testing.ts';

const SLUG = 'kubeflow-org-mpijob-v2beta1';
const UID = '339414e2-4f32-40b2-8db3-0167e3f08d73';
const GPU8 = { 'nvidia.com/gpu': 8 };

/** minMember = 1 launcher + 2 workers. */
const JOB_GANG = (pods: string[]) => [{ name: `pg-${UID}-nccl-allreduce`, minMember: 3, pods }];

test('pending: the CPU-only launcher runs, both GPU workers unschedulable: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      launcher: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      worker: { desired: 2, live: 2, ready: 0, gpusPerPod: GPU8 },
    },
    pods: {
      'nccl-allreduce-launcher-pmrj2': 'launcher/',
      'nccl-allreduce-worker-0': 'worker/',
      'nccl-allreduce-worker-1': 'worker/',
    },
    unmatched: [],
    gpus: { desired: 16, requested: 16, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(['nccl-allreduce-launcher-pmrj2', 'nccl-allreduce-worker-0', 'nccl-allreduce-worker-1']));
});

test('running: Running=True; launcher two levels down (MPIJob -> Job -> Pod)', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      launcher: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      worker: { desired: 2, live: 2, ready: 2, gpusPerPod: GPU8 },
    },
    pods: {
      'nccl-allreduce-launcher-j9j4t': 'launcher/',
      'nccl-allreduce-worker-0': 'worker/',
      'nccl-allreduce-worker-1': 'worker/',
    },
    unmatched: [],
    gpus: { desired: 16, requested: 16, allocated: 16 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(['nccl-allreduce-launcher-j9j4t', 'nccl-allreduce-worker-0', 'nccl-allreduce-worker-1']));
});

test('succeeded: launcher Job complete, workers cleaned up (cleanPodPolicy Running): Completed', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: {
      launcher: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      worker: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU8 },
    },
    pods: { 'nccl-allreduce-launcher-qvfg5': 'launcher/' },
    unmatched: [],
    gpus: { desired: 16, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(['nccl-allreduce-launcher-qvfg5']));
});

test('failed: launcher Job hit its backoff limit: Failed', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: {
      launcher: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      worker: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU8 },
    },
    pods: { 'nccl-allreduce-launcher-r6q5g': 'launcher/' },
    unmatched: [],
    gpus: { desired: 16, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended: runPolicy.suspend; launcher Job suspended, workers deleted', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: {
      launcher: { desired: 1, live: 0, ready: 0, gpusPerPod: {} },
      worker: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU8 },
    },
    pods: {},
    unmatched: [],
    gpus: { desired: 16, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), []);
});

test('Restarting in place of Running (a failed launcher retried): Degraded, as the training operator\'s other kinds', () => {
  const objects = fixtureObjects(SLUG, 'running').map((o) => {
    if (o.kind !== 'MPIJob') return o;
    const conditions = (o.status as { conditions: Array<Record<string, string>> }).conditions.map((c) =>
      c.type === 'Running' ? { ...c, type: 'Restarting', reason: 'MPIJobRestarting', message: 'MPIJob hpc/nccl-allreduce is restarting because 1 launcher replica(s) failed.' } : c,
    );
    return { ...o, status: { ...(o.status as object), conditions } };
  });
  const tree = resolveObjects(SLUG, objects);
  assert.deepEqual(tree.status.matched, ['Degraded']);
  assert.deepEqual(tree.errors, []);
});
