import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodWhy, TreePod, WorkloadTree } from '../engine/index.ts';
import { rowWhy } from './row-why.ts';

const pod = (name: string, why: PodWhy | null, node: string | null = null): TreePod => ({
  name, namespace: 'ns', uid: name, component: 'worker', instance: '', replica: null, phase: why ? 'Pending' : 'Running', ready: !why, node, gpus: {}, allocated: node !== null, restarts: 0, why,
});
const unsched: PodWhy = { kind: 'unschedulable', reason: 'Unschedulable', message: '0/14 nodes are available: 8 Insufficient nvidia.com/gpu.' };
const crash: PodWhy = { kind: 'waiting', reason: 'CrashLoopBackOff', message: 'container main: CrashLoopBackOff' };
const tree = (pods: TreePod[], gang: WorkloadTree['gang'] = []) => ({ pods, unmatchedPods: [], gang }) as unknown as WorkloadTree;

test('the most frequent reason wins, with the others counted', () => {
  const w = rowWhy(tree([pod('a', unsched), pod('b', unsched), pod('c', crash), pod('d', null, 'n1')]));
  assert.deepEqual(w, { kind: 'unschedulable', reason: 'Unschedulable', message: unsched.message, pods: 2, otherPods: 1 });
});

test('on a tie the more telling reason wins; all ready is null', () => {
  assert.equal(rowWhy(tree([pod('a', crash), pod('b', unsched)]))?.reason, 'Unschedulable');
  assert.equal(rowWhy(tree([pod('a', null, 'n1')])), null);
});

test('pods waiting as a gang say how far their PodGroup is', () => {
  const gang = [{ name: 'pg-train', namespace: 'ns', minMember: 4, minSubGroup: null, subGroups: [], pods: ['a', 'b', 'c', 'd'], source: 'podGroup' as const }];
  const w = rowWhy(tree([pod('a', unsched), pod('b', unsched), pod('c', null, 'n1'), pod('d', null, 'n2')], gang));
  assert.deepEqual(w?.gang, { name: 'pg-train', scheduled: 2, minMember: 4 });
});
