// PyTorchJob (kubeflow.org/v1): master / worker pods created by the operator, one gang for the job.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangOf, resolveFixture } from './testing.ts';

const SLUG = 'kubeflow-org-pytorchjob-v1';
const UID = 'f48eaf5c-dda4-4cb6-8a59-2ca07c8a0e85';
// master: 8 GPUs as a limit only; worker: 8 in requests and limits (the operator's init-pytorch container has none)
const GPU8 = { 'nvidia.com/gpu': 8 };
const ALL = ['bert-finetune-master-0', 'bert-finetune-worker-0', 'bert-finetune-worker-1', 'bert-finetune-worker-2'];
const PODS = {
  'bert-finetune-master-0': 'master/',
  'bert-finetune-worker-0': 'worker/',
  'bert-finetune-worker-1': 'worker/',
  'bert-finetune-worker-2': 'worker/',
};

/** The whole job is one PodGroup: minMember = 1 master + 3 workers, the same for every pod. */
const JOB_GANG = (pods: string[]) => [{ name: `pg-${UID}-bert-finetune`, minMember: 4, pods }];

test('pending: only Created=True, all four pods unschedulable: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      master: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU8 },
      worker: { desired: 3, live: 3, ready: 0, gpusPerPod: GPU8 },
    },
    pods: PODS,
    unmatched: [],
    gpus: { desired: 32, requested: 32, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(ALL));
});

test('running: Running=True, 1 master + 3 workers at 8 GPUs', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      master: { desired: 1, live: 1, ready: 1, gpusPerPod: GPU8 },
      worker: { desired: 3, live: 3, ready: 3, gpusPerPod: GPU8 },
    },
    pods: PODS,
    unmatched: [],
    gpus: { desired: 32, requested: 32, allocated: 32 },
    errors: [],
  });
  // replica = training.kubeflow.org/replica-index
  assert.deepEqual(tree.pods.map((p) => p.replica), ['0', '0', '1', '2']);
  assert.deepEqual(gangOf(tree), JOB_GANG(ALL));
});

test('degraded: Restarting (in place of Running) while worker 2, killed with exit 137, is recreated', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: {
      master: { desired: 1, live: 1, ready: 1, gpusPerPod: GPU8 },
      worker: { desired: 3, live: 2, ready: 2, gpusPerPod: GPU8 },
    },
    pods: PODS,
    unmatched: [],
    gpus: { desired: 32, requested: 24, allocated: 24 },
    errors: [],
  });
  assert.equal(tree.status.conditions.find((c) => c.type === 'Restarting')?.reason, 'PyTorchJobRestarting');
});

test('succeeded: Succeeded=True and Running flipped to False: Completed only', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: {
      master: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU8 },
      worker: { desired: 3, live: 0, ready: 0, gpusPerPod: GPU8 },
    },
    pods: PODS,
    unmatched: [],
    gpus: { desired: 32, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('failed: a worker failed; cleanPodPolicy None leaves the other pods running with 24 GPUs', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: {
      master: { desired: 1, live: 1, ready: 1, gpusPerPod: GPU8 },
      worker: { desired: 3, live: 2, ready: 2, gpusPerPod: GPU8 },
    },
    pods: PODS,
    unmatched: [],
    gpus: { desired: 32, requested: 24, allocated: 24 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(ALL));
});

test('suspended: runPolicy.suspend, the operator deleted pods and services', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: {
      master: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU8 },
      worker: { desired: 3, live: 0, ready: 0, gpusPerPod: GPU8 },
    },
    pods: {},
    unmatched: [],
    gpus: { desired: 32, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), []);
});
