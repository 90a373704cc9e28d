import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GangPodGroup } from '../../contract/index.ts';
import { GANG_LIST_LIMIT, gangRows, gangSize, sizesText, summariseGangs, summaryText } from './gang-summary.ts';
import { jobSetTree, pod } from '../graph/test-trees.ts';

const group = (name: string, minMember: number | null, pods: string[], subGroups: GangPodGroup['subGroups'] = []): GangPodGroup => ({
  name,
  namespace: 'team-a',
  minMember,
  minSubGroup: subGroups.length > 0 ? subGroups.length : null,
  subGroups,
  pods,
  source: 'podGroups',
});

test('a gang\'s size is its minMember, else the sum of its sub-groups\', else unknown', () => {
  assert.equal(gangSize(group('a', 3, [])), 3);
  assert.equal(gangSize(group('b', null, [], [{ name: 'x', minMember: 1, podsReferences: [] }, { name: 'y', minMember: 2, podsReferences: [] }])), 3);
  assert.equal(gangSize(group('c', null, [])), null);
});

test('rows count the members bound to a node; a group is satisfied when they reach its size', () => {
  const t = jobSetTree(1, 2);
  t.pods.push(pod('train-worker-2', 'replicatedjob', 'worker', 4, 'Pending', false));
  t.gang = [group('pg-leader', 1, ['train-leader-0']), group('pg-worker', 3, ['train-worker-0', 'train-worker-1', 'train-worker-2'])];
  assert.deepEqual(gangRows(t).map((r) => [r.name, r.size, r.pods, r.scheduled, r.satisfied]), [['pg-leader', 1, 1, 1, true], ['pg-worker', 3, 3, 2, false]]);
});

test('many one-pod gangs are one summary: count, sizes, members scheduled', () => {
  const t = jobSetTree(0, 1945);
  t.pods[7] = pod(t.pods[7].name, 'replicatedjob', 'worker', 4, 'Pending', false);
  t.gang = t.pods.map((p, i) => group(`pg-uid-${i}`, 1, [p.name]));
  const s = summariseGangs(gangRows(t));
  assert.deepEqual(s, { groups: 1945, sizes: [{ size: 1, groups: 1945 }], pods: 1945, scheduled: 1944, satisfied: 1944, collapsed: true });
  assert.equal(summaryText(s), '1,945 PodGroups · size 1 × 1,945 · 1,944 of 1,945 pods scheduled · 1,944 of 1,945 groups fully scheduled');
});

test('a few gangs are listed as they are; sizes are sorted, unknown last, and capped in words', () => {
  const t = jobSetTree(1, 2);
  t.gang = [group('w', 2, ['train-worker-0', 'train-worker-1']), group('l', 1, ['train-leader-0'])];
  const s = summariseGangs(gangRows(t));
  assert.equal(s.collapsed, false);
  assert.deepEqual(s.sizes, [{ size: 1, groups: 1 }, { size: 2, groups: 1 }]);
  assert.equal(summaryText(s), '2 PodGroups · sizes 1 × 1, 2 × 1 · 3 of 3 pods scheduled · 2 of 2 groups fully scheduled');
  assert.equal(summariseGangs(gangRows({ ...t, gang: Array.from({ length: GANG_LIST_LIMIT }, (_, i) => group(`g${i}`, 1, [])) })).collapsed, false);
  assert.equal(summariseGangs(gangRows({ ...t, gang: Array.from({ length: GANG_LIST_LIMIT + 1 }, (_, i) => group(`g${i}`, 1, [])) })).collapsed, true);
  const many = [null, 9, 8, 7, 6, 5, 4, 3, 2, 1].map((size) => ({ size, groups: 1 }));
  assert.equal(sizesText(summariseGangs(many.map((m, i) => ({ name: `g${i}`, namespace: '', size: m.size, pods: 0, scheduled: 0, satisfied: true, group: group(`g${i}`, m.size, []) }))).sizes), 'sizes 1 × 1, 2 × 1, 3 × 1, 4 × 1, 5 × 1, 6 × 1, 4 more sizes');
  assert.equal(sizesText([{ size: null, groups: 2 }]), 'size unset × 2');
});
