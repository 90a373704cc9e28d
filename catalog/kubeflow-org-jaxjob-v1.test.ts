// JAXJob (kubeflow.org/v1): worker pods created by the operator (worker 0 coordinates), one gang.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangOf, resolveEdited, resolveFixture } from './testing.ts';
import { specsOf } from './training-operator-testing.ts';

const SLUG = 'kubeflow-org-jaxjob-v1';
const UID = '109888f6-ce11-4790-93ce-888ec98d2a58';
const GPU8 = { 'nvidia.com/gpu': 8 };
const W0 = 'gemma-sft-jax-worker-0';
const W1 = 'gemma-sft-jax-worker-1';
const ALL = { [W0]: 'worker/', [W1]: 'worker/' };
const worker = (live: number, ready: number) => ({ worker: { desired: 2, live, ready, gpusPerPod: GPU8 } });
const JOB_GANG = (pods: string[]) => [{ name: `pg-${UID}-gemma-sft-jax`, minMember: 2, pods: [...pods].sort() }];

test('pending: no worker runs yet (one pulls its image on a node, one waits for 8 GPUs): Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: worker(2, 0),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 16, requested: 16, allocated: 8 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL)));
});

test('running: both processes run: Running; replica = replica-index', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: worker(2, 2),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 16, requested: 16, allocated: 16 },
    errors: [],
  });
  assert.deepEqual(tree.pods.map((p) => p.replica), ['0', '1']);
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL)));
});

test('degraded: Restarting, the evicted worker-1 replaced by a pod still creating: Degraded', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: worker(2, 1),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 16, requested: 16, allocated: 16 },
    errors: [],
  });
});

test('failed: past backoffLimit the operator deleted every pod: Failed, nothing held', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: worker(0, 0),
    pods: {},
    unmatched: [],
    gpus: { desired: 16, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.equal(tree.status.conditions.find((c) => c.type === 'Failed')?.reason, 'JAXJobFailed');
  assert.deepEqual(gangOf(tree), []);
});

test('succeeded: every worker exited 0: Completed', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: worker(0, 0),
    pods: ALL,
    unmatched: [],
    gpus: { desired: 16, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended: pods and Services deleted: Suspended', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: worker(0, 0),
    pods: {},
    unmatched: [],
    gpus: { desired: 16, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('Worker without replicas: one process, as the operator defaults it', () => {
  const tree = resolveEdited(SLUG, 'suspended', (objects) => {
    delete (specsOf(objects[0], 'jaxReplicaSpecs').Worker as { replicas?: number }).replicas;
    return objects;
  });
  assert.deepEqual(digest(tree).roles, { worker: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU8 } });
});
