import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkloadRow } from '../../contract/index.ts';
import { makeRow } from '../../lib/rows/test-rows.ts';
import { donePods, podsText } from './pods-text.ts';

test('a completed Job: every pod done, neutral, no ready count', () => {
  const t = podsText({ ready: 0, total: 4, done: 4 });
  assert.equal(t.ready, null);
  assert.equal(t.done, 4);
  assert.equal(t.warn, false);
  assert.equal(t.title, '0 ready of 4 pods, 4 finished successfully');
});

test('half-way: ready of the pods still running, and the done ones apart', () => {
  assert.deepEqual(podsText({ ready: 2, total: 4, done: 2 }), { ready: { ready: 2, of: 2 }, done: 2, warn: false, title: '2 ready of 4 pods, 2 finished successfully' });
  // One of the unfinished pods is not ready: that is the warning, not the finished ones.
  const t = podsText({ ready: 1, total: 4, done: 2 });
  assert.deepEqual(t.ready, { ready: 1, of: 2 });
  assert.equal(t.warn, true);
});

test('without done pods it is ready/total as before, warning when some are not ready', () => {
  assert.deepEqual(podsText({ ready: 3, total: 3 }), { ready: { ready: 3, of: 3 }, done: 0, warn: false, title: '3 ready of 3 pods' });
  assert.equal(podsText({ ready: 2, total: 3 }).warn, true);
  assert.deepEqual(podsText({ ready: 0, total: 0 }), { ready: { ready: 0, of: 0 }, done: 0, warn: false, title: '0 ready of 0 pods' });
  assert.equal(podsText({ ready: 0, total: 1 }).title, '0 ready of 1 pod');
});

test('done pods add up over the rows whose pods can be read', () => {
  const row = (pods: WorkloadRow['pods']) => ({ ...makeRow(), pods });
  assert.equal(donePods([row({ ready: 0, total: 4, done: 4 }), row({ ready: 2, total: 3 }), row({ ready: 0, total: 0, done: 2, unknown: true }), row({ ready: 1, total: 3, done: 1 })]), 5);
  assert.equal(donePods([]), 0);
});
