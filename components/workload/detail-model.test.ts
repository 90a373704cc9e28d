import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuByResource, perPodText, podRows, roleRows, visibleRoles } from './detail-model.ts';
import { jobSetTree, pod } from '../graph/test-trees.ts';

test('GPUs by resource, with MIG named as such', () => {
  const t = jobSetTree(1, 2);
  t.gpus.desired.byResource['nvidia.com/mig-1g.5gb'] = 2;
  const rows = gpuByResource(t);
  assert.deepEqual(rows.map((r) => `${r.label}:${r.desired}/${r.requested}/${r.allocated}`), ['GPU:12/12/12', 'MIG 1g.5gb:2/0/0']);
  assert.equal(perPodText({ 'nvidia.com/gpu': 4, 'nvidia.com/mig-1g.5gb': 1 }), '4 GPU + 1 MIG 1g.5gb');
  assert.equal(perPodText({}), '—');
});

test('roles table: instances, desired vs live, GPUs per pod', () => {
  const rows = roleRows(jobSetTree(1, 3));
  assert.deepEqual(rows.map((r) => `${r.name} ${r.instances} ${r.live}/${r.desired} ${r.gpusPerPod}`), ['leader 2 1/1 4 GPU', 'worker 2 3/3 4 GPU']);
  // Each role's GPUs are its instance's figures from the tree.
  assert.deepEqual(rows.map((r) => r.gpus), [{ allocated: 4, requested: 4, desired: 4 }, { allocated: 12, requested: 12, desired: 12 }]);
});

test('pods sorted by role then name, unmatched last', () => {
  const t = jobSetTree(1, 2);
  t.unmatchedPods = [pod('stray', null, null, 0)];
  assert.deepEqual(podRows(t).map((r) => `${r.role}:${r.pod.name}`), ['leader:train-leader-0', 'worker:train-worker-0', 'worker:train-worker-1', '(unmatched):stray']);
});

test('roles with no pod and none asked for are hidden unless asked for', () => {
  const rows = roleRows(jobSetTree(1, 0));
  assert.deepEqual(rows.map((r) => `${r.name} ${r.live}/${r.desired} ${r.empty}`), ['leader 1/1 false', 'worker 0/0 true']);
  const hidden = visibleRoles(rows, false);
  assert.deepEqual(hidden.rows.map((r) => r.name), ['leader']);
  assert.deepEqual([hidden.hidden, hidden.empty], [1, 1]);
  const all = visibleRoles(rows, true);
  assert.deepEqual(all.rows.map((r) => r.name), ['leader', 'worker']);
  assert.deepEqual([all.hidden, all.empty], [0, 1]);
  // A role that asks for pods not there yet, or has a pod left, stays.
  const t = jobSetTree(1, 0);
  t.pods.push(pod('train-worker-0', 'replicatedjob', 'worker', 4, 'Failed', false));
  assert.deepEqual(roleRows(t).map((r) => r.empty), [false, false]);
  assert.deepEqual(roleRows(jobSetTree(0, 0)).map((r) => r.empty), [true, true]);
  assert.deepEqual(roleRows(jobSetTree(1, 3)).map((r) => r.empty), [false, false]);
});
