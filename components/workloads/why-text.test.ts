import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WHY_MESSAGE_MAX, whyShort } from './why-text.ts';

test('pods the scheduler cannot place: count, reason and the scheduler message', () => {
  assert.equal(
    whyShort({ kind: 'unschedulable', reason: 'Unschedulable', message: '0/14 nodes are available: 8 Insufficient nvidia.com/gpu', pods: 2, otherPods: 0 }),
    '2 pods Unschedulable: 0/14 nodes are available: 8 Insufficient nvidia.com/gpu',
  );
  assert.equal(whyShort({ kind: 'waiting', reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container', pods: 1, otherPods: 2 }), '1 pod CrashLoopBackOff: back-off 5m0s restarting failed container (+2 pods for other reasons)');
});

test('a gang waiting: the PodGroup and how far it is', () => {
  const gang = { name: 'pg-x', scheduled: 3, minMember: 8 };
  assert.equal(whyShort({ kind: 'gated', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates', pods: 5, otherPods: 0, gang }), 'waiting for its gang pg-x: 3 of 8 scheduled');
  assert.equal(whyShort({ kind: 'unscheduled', reason: 'Pending', message: '', pods: 5, otherPods: 1, gang: { ...gang, minMember: null } }), 'waiting for its gang pg-x: 3 scheduled (+1 pod for other reasons)');
});

test('unschedulable members of a gang: the scheduler message first, then the gang', () => {
  assert.equal(
    whyShort({ kind: 'unschedulable', reason: 'Unschedulable', message: '0/6 nodes are available: 6 Insufficient nvidia.com/gpu.', pods: 1, otherPods: 0, gang: { name: 'pg-w', scheduled: 0, minMember: 1 } }),
    '1 pod Unschedulable: 0/6 nodes are available: 6 Insufficient nvidia.com/gpu.; its gang pg-w: 0 of 1 scheduled',
  );
});

test('no why, no text; an empty message is left out; a long one is cut at a word', () => {
  assert.equal(whyShort(null), null);
  assert.equal(whyShort(undefined), null);
  assert.equal(whyShort({ kind: 'unscheduled', reason: 'Pending', message: '  ', pods: 3, otherPods: 0 }), '3 pods Pending');
  const long = `0/500 nodes are available: ${Array.from({ length: 40 }, (_, i) => `${i} node(s) had taint t${i}`).join(', ')}.`;
  const s = whyShort({ kind: 'unschedulable', reason: 'Unschedulable', message: `${long}\n\npreemption: …`, pods: 1, otherPods: 0 })!;
  assert.ok(s.endsWith('…'), s);
  assert.ok(s.length <= '1 pod Unschedulable: '.length + WHY_MESSAGE_MAX + 1, s);
  assert.doesNotMatch(s, /\n/);
});
