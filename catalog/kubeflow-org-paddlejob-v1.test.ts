// PaddleJob (kubeflow.org/v1): master (parameter server) and worker pods created by the operator, one gang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangOf, resolveEdited, resolveFixture } from './testing.ts';
import { isPod, nameOf, specsOf } from './training-operator-testing.ts';

const SLUG = 'kubeflow-org-paddlejob-v1';
const UID = 'b1ceb7d9-703f-46e0-af5c-1b296f4b7e4a';
const GPU2 = { 'nvidia.com/gpu': 2 };
const MASTER = 'ernie-ctr-master-0';
const W0 = 'ernie-ctr-worker-0';
const W1 = 'ernie-ctr-worker-1';
const ALL = { [MASTER]: 'master/', [W0]: 'worker/', [W1]: 'worker/' };
const roles = (live: [number, number], ready: [number, number]) => ({
  master: { desired: 1, live: live[0], ready: ready[0], gpusPerPod: {} },
  worker: { desired: 2, live: live[1], ready: ready[1], gpusPerPod: GPU2 },
});
const JOB_GANG = (pods: string[]) => [{ name: `pg-${UID}-ernie-ctr`, minMember: 3, pods: [...pods].sort() }];

test('pending: the CPU master pulls its image, the trainers wait for A100s: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: roles([1, 2], [0, 0]),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL)));
});

test('running: the master runs: Running; replica = replica-index', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: roles([1, 2], [1, 2]),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 4 },
    errors: [],
  });
  assert.deepEqual(Object.fromEntries(tree.pods.map((p) => [p.name, p.replica])), { [MASTER]: '0', [W0]: '0', [W1]: '1' });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL)));
});

test('degraded: Restarting while worker-1 is recreated: Degraded', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: roles([1, 2], [1, 1]),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 4 },
    errors: [],
  });
});

test('failed: a worker exited with a non-retryable code; cleanPodPolicy None leaves the master and worker-0 running', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: roles([1, 1], [1, 1]),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 4, requested: 2, allocated: 2 },
    errors: [],
  });
});

test('succeeded: the master exited 0: Completed', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: roles([0, 0], [0, 0]),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended: pods and Services deleted: Suspended, no gang', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: roles([0, 0], [0, 0]),
    pods: {},
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), []);
});

test('collective mode (Workers only) with an elastic policy: no master wanted, worker min / max from elasticPolicy', () => {
  const tree = resolveEdited(SLUG, 'running', (objects) => {
    delete specsOf(objects[0], 'paddleReplicaSpecs').Master;
    (objects[0].spec as Record<string, unknown>).elasticPolicy = { minReplicas: 1, maxReplicas: 4 };
    return objects.filter((o) => !(isPod(o) && nameOf(o) === MASTER));
  });
  const d = digest(tree);
  assert.deepEqual(d.roles.master, { desired: 0, live: 0, ready: 0, gpusPerPod: {} });
  assert.deepEqual(d.roles.worker, { desired: 2, live: 2, ready: 2, gpusPerPod: GPU2 });
  const worker = tree.components.find((c) => c.name === 'worker')!.instances[0];
  assert.deepEqual([worker.minReplicas, worker.maxReplicas], [1, 4]);
  assert.deepEqual(d.unmatched, []);
});
