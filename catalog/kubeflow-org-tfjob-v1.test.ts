// TFJob (kubeflow.org/v1): chief / ps / worker / evaluator pods created by the operator, one gang for the job.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../server/engine/index.ts';
import { digest, gangOf, resolveEdited, resolveFixture } from './testing.ts';
import { isPod, labelsOf, nameOf, rename, specsOf } from './training-operator-testing.ts';

const SLUG = 'kubeflow-org-tfjob-v1';
const UID = 'd7129e90-cec9-4260-b76c-6701d39f1100';
const GPU1 = { 'nvidia.com/gpu': 1 };
const JOB = 'resnet50-tf';
const POD = {
  chief: `${JOB}-chief-0`,
  ps: `${JOB}-ps-0`,
  worker0: `${JOB}-worker-0`,
  worker1: `${JOB}-worker-1`,
  evaluator: `${JOB}-evaluator-0`,
};
const ALL_PODS = {
  [POD.chief]: 'chief/',
  [POD.ps]: 'ps/',
  [POD.worker0]: 'worker/',
  [POD.worker1]: 'worker/',
  [POD.evaluator]: 'evaluator/',
};
/** The roles with their desired pods and GPUs per pod (live and ready given per state). */
const roles = (live: [number, number, number, number], ready: [number, number, number, number]) => ({
  chief: { desired: 1, live: live[0], ready: ready[0], gpusPerPod: GPU1 },
  ps: { desired: 1, live: live[1], ready: ready[1], gpusPerPod: {} },
  worker: { desired: 2, live: live[2], ready: ready[2], gpusPerPod: GPU1 },
  evaluator: { desired: 1, live: live[3], ready: ready[3], gpusPerPod: GPU1 },
});
/** One PodGroup for the job, as the operator sizes its own: chief + ps + 2 workers + the evaluator. */
const JOB_GANG = (pods: string[]) => [{ name: `pg-${UID}-${JOB}`, minMember: 5, pods: [...pods].sort() }];

test('pending: the parameter server runs but the chief does not, so only Created: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: roles([1, 1, 2, 1], [0, 1, 0, 0]),
    pods: ALL_PODS,
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL_PODS)));
});

test('running: Running=True; every pod in its role, replica = replica-index', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: roles([1, 1, 2, 1], [1, 1, 2, 1]),
    pods: ALL_PODS,
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 4 },
    errors: [],
  });
  assert.deepEqual(Object.fromEntries(tree.pods.map((p) => [p.name, p.replica])), { [POD.chief]: '0', [POD.ps]: '0', [POD.worker0]: '0', [POD.worker1]: '1', [POD.evaluator]: '0' });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(ALL_PODS)));
});

test('degraded: Restarting (in place of Running) while worker-1 is recreated: Degraded, one GPU short', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  const pods = Object.fromEntries(Object.entries(ALL_PODS).filter(([name]) => name !== POD.worker1));
  assert.deepEqual(digest(tree), {
    status: ['Degraded'],
    roles: roles([1, 1, 1, 1], [1, 1, 1, 1]),
    pods,
    unmatched: [],
    gpus: { desired: 4, requested: 3, allocated: 3 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), JOB_GANG(Object.keys(pods)));
});

test('failed: the chief failed; cleanPodPolicy Running deleted the running pods, no GPU held', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: roles([0, 0, 0, 0], [0, 0, 0, 0]),
    pods: { [POD.chief]: 'chief/' },
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.equal(tree.status.conditions.find((c) => c.type === 'Failed')?.message, 'TFJob ml-research/resnet50-tf has failed because 1 Chief replica(s) failed.');
});

test('succeeded: Succeeded=True, Running flipped to False: Completed only; the finished chief and workers remain', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: roles([0, 0, 0, 0], [0, 0, 0, 0]),
    pods: { [POD.chief]: 'chief/', [POD.worker0]: 'worker/', [POD.worker1]: 'worker/' },
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended: runPolicy.suspend, pods and Services deleted: Suspended, no gang', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: roles([0, 0, 0, 0], [0, 0, 0, 0]),
    pods: {},
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangOf(tree), []);
});

test('the legacy Master type is the chief role: its pods (replica-type master) are chief pods', () => {
  const tree = resolveEdited(SLUG, 'running', (objects) => {
    const specs = specsOf(objects[0], 'tfReplicaSpecs');
    specs.Master = specs.Chief;
    delete specs.Chief;
    for (const o of objects.filter((x) => nameOf(x) === POD.chief)) {
      rename(o, `${JOB}-master-0`);
      labelsOf(o)['training.kubeflow.org/replica-type'] = 'master';
    }
    return objects;
  });
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.roles.chief, { desired: 1, live: 1, ready: 1, gpusPerPod: GPU1 });
  assert.equal(d.pods[`${JOB}-master-0`], 'chief/');
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(gangOf(tree)[0].minMember, 5);
});

test('without a chief: no chief pod wanted, the gang is ps + workers + evaluator', () => {
  const tree = resolveEdited(SLUG, 'running', (objects) => {
    delete specsOf(objects[0], 'tfReplicaSpecs').Chief;
    // The operator makes worker 0 the master role then.
    const kept = objects.filter((o) => nameOf(o) !== POD.chief);
    for (const o of kept.filter((x) => isPod(x) && nameOf(x) === POD.worker0)) labelsOf(o)['training.kubeflow.org/job-role'] = 'master';
    return kept;
  });
  const d = digest(tree);
  assert.deepEqual(d.roles.chief, { desired: 0, live: 0, ready: 0, gpusPerPod: {} });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 3, requested: 3, allocated: 3 });
  assert.deepEqual(gangOf(tree).map((g) => [g.minMember, g.pods.length]), [[4, 4]]);
});

test('a replica type written without replicas counts one, as the operator defaults it', () => {
  const tree = resolveEdited(SLUG, 'running', (objects: KubeObject[]) => {
    delete (specsOf(objects[0], 'tfReplicaSpecs').Worker as { replicas?: number }).replicas;
    return objects;
  });
  assert.equal(digest(tree).roles.worker.desired, 1);
});
