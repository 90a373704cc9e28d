// JobSet (jobset.x-k8s.io/v1alpha2): one role per replicatedJob, one gang per replicatedJob.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangsInTreeOrder, resolveFixture } from './testing.ts';

const SLUG = 'jobset-x-k8s-io-jobset-v1alpha2';
/** metadata.uid of the llama-train JobSet in every fixture but running-multi. */
const LLAMA = '4d7f7660-738e-46ac-b99b-2a0e1b9b45db';
const NEMO = 'a299d467-0586-4186-90ac-848908c6a45c';
const GPU4 = { 'nvidia.com/gpu': 4 };

test('running: the canonical JobSet, leader x1 and worker x2 at 4 GPUs each, is one Running workload with 12 GPUs', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      // leader: 4 GPUs as a limit only (request = limit); its init container asks for none
      leader: { desired: 1, live: 1, ready: 1, gpusPerPod: GPU4 },
      worker: { desired: 2, live: 2, ready: 2, gpusPerPod: GPU4 },
    },
    pods: {
      'llama-train-leader-0-0-fswgq': 'replicatedjob/leader',
      'llama-train-worker-0-0-bqbdr': 'replicatedjob/worker',
      'llama-train-worker-1-0-jdqsj': 'replicatedjob/worker',
    },
    unmatched: [],
    gpus: { desired: 12, requested: 12, allocated: 12 },
    errors: [],
  });
  // The leader template has no parallelism: (.replicas // 1) * (.template.spec.parallelism // 1) = 1.
  assert.equal(tree.workload.kind, 'JobSet');
  assert.deepEqual(
    tree.pods.map((p) => [p.name, p.replica]),
    [
      ['llama-train-leader-0-0-fswgq', '0'],
      ['llama-train-worker-0-0-bqbdr', '0'],
      ['llama-train-worker-1-0-jdqsj', '1'],
    ],
  );
  assert.deepEqual(gangsInTreeOrder(tree), [
    { name: `pg-${LLAMA}-leader`, minMember: 1, pods: ['llama-train-leader-0-0-fswgq'] },
    { name: `pg-${LLAMA}-worker`, minMember: 2, pods: ['llama-train-worker-0-0-bqbdr', 'llama-train-worker-1-0-jdqsj'] },
  ]);
});

test('pending: Jobs active but no Job ready, pods unschedulable: Initializing, GPUs requested but none allocated', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: {
      leader: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU4 },
      worker: { desired: 2, live: 2, ready: 0, gpusPerPod: GPU4 },
    },
    pods: {
      'llama-train-leader-0-0-5hhkw': 'replicatedjob/leader',
      'llama-train-worker-0-0-q5nnf': 'replicatedjob/worker',
      'llama-train-worker-1-0-5b2t2': 'replicatedjob/worker',
    },
    unmatched: [],
    gpus: { desired: 12, requested: 12, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangsInTreeOrder(tree), [
    { name: `pg-${LLAMA}-leader`, minMember: 1, pods: ['llama-train-leader-0-0-5hhkw'] },
    { name: `pg-${LLAMA}-worker`, minMember: 2, pods: ['llama-train-worker-0-0-q5nnf', 'llama-train-worker-1-0-5b2t2'] },
  ]);
});

test('succeeded: Completed=True only (not also Running), finished pods hold no GPUs', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: {
      leader: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU4 },
      worker: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU4 },
    },
    pods: {
      'llama-train-leader-0-0-jkbdb': 'replicatedjob/leader',
      'llama-train-worker-0-0-ld45t': 'replicatedjob/worker',
      'llama-train-worker-1-0-7mx59': 'replicatedjob/worker',
    },
    unmatched: [],
    gpus: { desired: 12, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangsInTreeOrder(tree), [
    { name: `pg-${LLAMA}-leader`, minMember: 1, pods: ['llama-train-leader-0-0-jkbdb'] },
    { name: `pg-${LLAMA}-worker`, minMember: 2, pods: ['llama-train-worker-0-0-ld45t', 'llama-train-worker-1-0-7mx59'] },
  ]);
});

test('failed: Failed=True; the controller deleted the active Jobs, only the failed worker Job and pod remain', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: {
      leader: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU4 },
      worker: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU4 },
    },
    pods: { 'llama-train-worker-1-0-zwh9q': 'replicatedjob/worker' },
    unmatched: [],
    gpus: { desired: 12, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangsInTreeOrder(tree), [{ name: `pg-${LLAMA}-worker`, minMember: 2, pods: ['llama-train-worker-1-0-zwh9q'] }]);
});

test('suspended: Suspended=True, suspended Jobs and no pods; the templates still want 12 GPUs', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: {
      leader: { desired: 1, live: 0, ready: 0, gpusPerPod: GPU4 },
      worker: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU4 },
    },
    pods: {},
    unmatched: [],
    gpus: { desired: 12, requested: 0, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(gangsInTreeOrder(tree), []);
});

test('running-multi: 2 Jobs x parallelism 2 make 4 trainer pods; a CPU-only driver without parallelism', () => {
  const tree = resolveFixture(SLUG, 'running-multi');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: {
      driver: { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
      trainer: { desired: 4, live: 4, ready: 4, gpusPerPod: { 'nvidia.com/gpu': 8 } },
    },
    pods: {
      'nemo-pretrain-driver-0-0-vw422': 'replicatedjob/driver',
      'nemo-pretrain-trainer-0-0-prb7f': 'replicatedjob/trainer',
      'nemo-pretrain-trainer-0-1-h9n6b': 'replicatedjob/trainer',
      'nemo-pretrain-trainer-1-0-qn878': 'replicatedjob/trainer',
      'nemo-pretrain-trainer-1-1-fclrq': 'replicatedjob/trainer',
    },
    unmatched: [],
    gpus: { desired: 32, requested: 32, allocated: 32 },
    errors: [],
  });
  // replica = the Job (jobset.sigs.k8s.io/job-index) the pod belongs to
  assert.deepEqual(
    tree.pods.filter((p) => p.instance === 'trainer').map((p) => p.replica),
    ['0', '0', '1', '1'],
  );
  assert.deepEqual(gangsInTreeOrder(tree), [
    { name: `pg-${NEMO}-driver`, minMember: 1, pods: ['nemo-pretrain-driver-0-0-vw422'] },
    {
      name: `pg-${NEMO}-trainer`,
      minMember: 4,
      pods: ['nemo-pretrain-trainer-0-0-prb7f', 'nemo-pretrain-trainer-0-1-h9n6b', 'nemo-pretrain-trainer-1-0-qn878', 'nemo-pretrain-trainer-1-1-fclrq'],
    },
  ]);
});
