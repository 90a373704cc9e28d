// XGBoostJob (kubeflow.org/v1): master (Rabit tracker) and worker pods created by the operator, one gang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangOf, resolveEdited, resolveFixture } from './testing.ts';
import { specsOf } from './training-operator-testing.ts';

const SLUG = 'kubeflow-org-xgboostjob-v1';
const UID = '649eb3bf-fabb-4dc1-bcfc-d3251897c7ed';
const GPU1 = { 'nvidia.com/gpu': 1 };
const MASTER = 'churn-xgb-master-0';
const W0 = 'churn-xgb-worker-0';
const W1 = 'churn-xgb-worker-1';
const ALL = { [MASTER]: 'master/', [W0]: 'worker/', [W1]: 'worker/' };
const roles = (live: [number, number], ready: [number, number]) => ({
  master: { desired: 1, live: live[0], ready: ready[0], gpusPerPod: GPU1 },
  worker: { desired: 2, live: live[1], ready: ready[1], gpusPerPod: GPU1 },
});
const JOB_GANG = (pods: string[]) => [{ name: `pg-${UID}-churn-xgb`, minMember: 3, pods: [...pods].sort() }];

test('pending: a worker runs, the master pulls its image and the other worker waits for a GPU: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: roles([1, 2], [0, 1]),
    pods: ALL,
    unmatched: [],
    // The master is bound to a node (allocated); worker-1 is not.
    gpus: { desired: 3, requested: 3, allocated: 2 },
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
    gpus: { desired: 3, requested: 3, allocated: 3 },
    errors: [],
  });
  assert.deepEqual(Object.fromEntries(tree.pods.map((p) => [p.name, p.replica])), { [MASTER]: '0', [W0]: '0', [W1]: '1' });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL)));
});

test('degraded: Restarting while the OOM-killed worker-1 is recreated: Degraded', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: roles([1, 1], [1, 1]),
    pods: { [MASTER]: 'master/', [W0]: 'worker/' },
    unmatched: [],
    gpus: { desired: 3, requested: 2, allocated: 2 },
    errors: [],
  });
});

test('failed: the master failed; cleanPodPolicy None leaves both workers running on their GPUs', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: roles([0, 2], [0, 2]),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 3, requested: 2, allocated: 2 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL)));
});

test('succeeded: Succeeded=True, Running False: Completed; finished pods kept, no GPU held', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: roles([0, 0], [0, 0]),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 3, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended from creation: only Created and Suspended, nothing created', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: roles([0, 0], [0, 0]),
    pods: {},
    unmatched: [],
    gpus: { desired: 3, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), []);
});

test('more workers in the spec are wanted before the operator creates them', () => {
  const tree = resolveEdited(SLUG, 'running', (objects) => {
    (specsOf(objects[0], 'xgbReplicaSpecs').Worker as { replicas: number }).replicas = 4;
    return objects;
  });
  const d = digest(tree);
  assert.deepEqual(d.roles.worker, { desired: 4, live: 2, ready: 2, gpusPerPod: GPU1 });
  assert.deepEqual(d.gpus, { desired: 5, requested: 3, allocated: 3 });
  assert.equal(gangOf(tree)[0].minMember, 5);
});
