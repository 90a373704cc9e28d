import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countPods, histogramText, naturalPodOrder, pageOf, podMatches, problemsFirst } from './pod-order.ts';
import { pod } from './test-trees.ts';

const why = (kind: 'unschedulable' | 'waiting' | 'failed', reason: string) => ({ kind, reason, message: '' });

test('problems first: failed, then pending, then not ready, then the rest in natural order', () => {
  const pods = [
    pod('w-10', 'c', 'w'),
    pod('w-2', 'c', 'w'),
    pod('w-1', 'c', 'w', 1, 'Running', false),
    pod('w-3', 'c', 'w', 1, 'Pending', false),
    pod('w-11', 'c', 'w', 1, 'Failed', false),
    pod('w-0', 'c', 'w', 1, 'Succeeded', false),
    pod('w-4', 'c', 'w', 1, 'Unknown', false),
  ];
  assert.deepEqual([...pods].sort(problemsFirst).map((p) => p.name), ['w-11', 'w-3', 'w-1', 'w-4', 'w-0', 'w-2', 'w-10']);
  assert.deepEqual([...pods].sort(naturalPodOrder).map((p) => p.name), ['w-0', 'w-1', 'w-2', 'w-3', 'w-4', 'w-10', 'w-11']);
});

test('natural order puts the leader before its workers, whatever the names', () => {
  const pods = [pod('g-0-1', 'worker', ''), pod('g-0', 'leader', ''), pod('g-0-10', 'worker', ''), pod('g-0-2', 'worker', '')];
  assert.deepEqual(pods.sort(naturalPodOrder).map((p) => p.name), ['g-0', 'g-0-1', 'g-0-2', 'g-0-10']);
});

test('the histogram: running, not ready, pending and failed with their commonest reason; finished pods are done, not not-ready', () => {
  const pods = [
    ...Array.from({ length: 1940 }, (_, i) => pod(`r-${i}`, 'c', 'w')),
    ...Array.from({ length: 3 }, (_, i) => ({ ...pod(`p-${i}`, 'c', 'w', 1, 'Pending', false), why: why('unschedulable', 'Unschedulable') })),
    { ...pod('f-0', 'c', 'w', 1, 'Failed', false), why: why('failed', 'OOMKilled') },
    { ...pod('f-1', 'c', 'w', 1, 'Failed', false), why: why('failed', 'OOMKilled') },
    { ...pod('f-2', 'c', 'w', 1, 'Failed', false), why: why('failed', 'Error') },
    { ...pod('n-0', 'c', 'w', 1, 'Running', false), why: { kind: 'waiting' as const, reason: 'CrashLoopBackOff', message: '' } },
  ];
  const c = countPods(pods);
  assert.equal(histogramText(c), '1,940 Running · 1 Not ready (CrashLoopBackOff) · 3 Pending (Unschedulable) · 3 Failed (OOMKilled)');
  assert.equal(histogramText(countPods([pod('a', 'c', 'w', 1, 'Succeeded', false), pod('b', 'c', 'w', 1, 'Succeeded', false)])), '2 Succeeded');
  assert.equal(countPods([pod('a', 'c', 'w', 1, 'Succeeded', false)]).notReady, 0);
  assert.equal(histogramText(countPods([])), 'no pods');
});

test('pages: fixed size, clamped to the pages there are', () => {
  const items = Array.from({ length: 50 }, (_, i) => i);
  assert.deepEqual(pageOf(items, 0, 24), { items: items.slice(0, 24), index: 0, count: 3, from: 1, to: 24, total: 50 });
  assert.deepEqual(pageOf(items, 2, 24).items, [48, 49]);
  assert.equal(pageOf(items, 7, 24).index, 2);
  assert.equal(pageOf(items, -1, 24).index, 0);
  assert.deepEqual(pageOf([], 3, 24), { items: [], index: 0, count: 1, from: 0, to: 0, total: 0 });
});

test('search matches a substring of the pod name or its node, case-insensitively', () => {
  const p = pod('Train-Worker-17', 'c', 'w');
  assert.ok(podMatches(p, 'worker-17'));
  assert.ok(podMatches(p, 'node-train'));
  assert.ok(!podMatches(p, 'worker-18'));
  assert.ok(!podMatches(pod('x', 'c', 'w', 1, 'Pending', false), 'node'));
  assert.ok(podMatches(p, ''));
});
