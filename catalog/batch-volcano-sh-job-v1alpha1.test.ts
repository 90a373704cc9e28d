// Volcano Job (batch.volcano.sh/v1alpha1): one role per task, pods created by the job controller
// directly, replica = task index, one gang per job.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangsInTreeOrder, resolveFixture } from './testing.ts';

const SLUG = 'batch-volcano-sh-job-v1alpha1';
const UID = 'c3a9e5d1-7b2f-4e80-9a64-2f1d8b7c5e30';
const GPU1 = { 'nvidia.com/gpu': 1 };
const ALL = { 'mpi-hello-mpimaster-0': 'task/mpimaster', 'mpi-hello-mpiworker-0': 'task/mpiworker', 'mpi-hello-mpiworker-1': 'task/mpiworker' };
const roles = (master: [number, number], worker: [number, number]) => ({
  mpimaster: { desired: 1, live: master[0], ready: master[1], gpusPerPod: {} },
  mpiworker: { desired: 2, live: worker[0], ready: worker[1], gpusPerPod: GPU1 },
});

test('pending: the PodGroup waits in its queue, so no pods exist yet: Initializing, nothing requested', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), { status: ['Initializing'], roles: roles([0, 0], [0, 0]), pods: {}, unmatched: [], gpus: { desired: 2, requested: 0, allocated: 0 }, errors: [] });
  assert.deepEqual(tree.components.find((c) => c.name === 'task')!.instances.map((i) => [i.id, i.replicas, i.minReplicas]), [['mpimaster', 1, 1], ['mpiworker', 2, 2]]);
});

test('running: master + 2 workers, replica = volcano.sh/task-index, one gang of minAvailable 3', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), { status: ['Running'], roles: roles([1, 1], [2, 2]), pods: ALL, unmatched: [], gpus: { desired: 2, requested: 2, allocated: 2 }, errors: [] });
  assert.deepEqual(tree.pods.map((p) => p.replica), ['0', '0', '1']);
  assert.deepEqual(tree.pods.map((p) => p.node), ['cpu-node-02', 'a100-node-01', 'a100-node-02']);
  assert.deepEqual(gangsInTreeOrder(tree), [{ name: `pg-${UID}-mpi-hello`, minMember: 3, pods: Object.keys(ALL) }]);
});

test('restarting: PodFailed → RestartJob; terminating pods still hold their GPUs until they are gone', () => {
  const tree = resolveFixture(SLUG, 'restarting');
  assert.deepEqual(digest(tree), { status: ['Degraded'], roles: roles([1, 1], [1, 1]), pods: ALL, unmatched: [], gpus: { desired: 2, requested: 1, allocated: 1 }, errors: [] });
  assert.equal(tree.status.phase, 'Restarting');
});

test('failed: out of retries, the failed worker kept', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), { status: ['Failed'], roles: roles([0, 0], [0, 0]), pods: { 'mpi-hello-mpiworker-1': 'task/mpiworker' }, unmatched: [], gpus: { desired: 2, requested: 0, allocated: 0 }, errors: [] });
});

test('completed: TaskCompleted on the master → CompleteJob, workers killed, the master pod kept', () => {
  const tree = resolveFixture(SLUG, 'completed');
  assert.deepEqual(digest(tree), { status: ['Completed'], roles: roles([0, 0], [0, 0]), pods: { 'mpi-hello-mpimaster-0': 'task/mpimaster' }, unmatched: [], gpus: { desired: 2, requested: 0, allocated: 0 }, errors: [] });
});

test('aborted: suspended by an AbortJob command, no pods and no PodGroup', () => {
  const tree = resolveFixture(SLUG, 'aborted');
  assert.deepEqual(digest(tree), { status: ['Suspended'], roles: roles([0, 0], [0, 0]), pods: {}, unmatched: [], gpus: { desired: 2, requested: 0, allocated: 0 }, errors: [] });
  assert.deepEqual(gangsInTreeOrder(tree), []);
});
