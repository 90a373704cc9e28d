import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podWhyTitle, rowWhyText } from './why-text.ts';

test('a row\'s why on the page reads as one line with the whole message: pods, reason, message, gang, the rest', () => {
  const long = 'x '.repeat(200).trim();
  assert.ok(rowWhyText({ kind: 'unschedulable', reason: 'Unschedulable', message: long, pods: 1, otherPods: 0 }).endsWith(long));
  assert.equal(
    rowWhyText({ kind: 'unschedulable', reason: 'Unschedulable', message: '0/14 nodes are available: 8 Insufficient nvidia.com/gpu.', pods: 2, otherPods: 1, gang: { name: 'pg-train', scheduled: 3, minMember: 8 } }),
    '2 pods Unschedulable: 0/14 nodes are available: 8 Insufficient nvidia.com/gpu.; its gang pg-train: 3 of 8 scheduled (+1 pod for other reasons)',
  );
  assert.equal(rowWhyText({ kind: 'waiting', reason: 'CrashLoopBackOff', message: 'container main: CrashLoopBackOff', pods: 1, otherPods: 0 }), '1 pod CrashLoopBackOff: container main: CrashLoopBackOff');
});

test('a pod\'s why title says whose word it is', () => {
  assert.equal(podWhyTitle({ kind: 'gated', reason: 'SchedulingGated', message: '' }), 'SchedulingGated: held by scheduling gates');
});
