import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventItem } from '../../contract/pod.ts';
import { groupEvents, objectsText } from './group-events.ts';

const ev = (name: string, last: string, reason = 'FailedScheduling', message = '0/2 nodes are available: 2 Insufficient nvidia.com/gpu.', count = 1, kind = 'Pod'): EventItem => ({ type: 'Warning', reason, message, count, first: last, last, object: { kind, name, uid: name }, source: 'default-scheduler' });

test('the same reason and message from several objects is one group with their count, newest first', () => {
  const g = groupEvents([ev('a', '2026-12-03T10:00:00Z', undefined, undefined, 2), ev('b', '2026-12-03T10:05:00Z', undefined, '0/2 nodes are available:\n2 Insufficient nvidia.com/gpu.'), ev('c', '2026-12-03T10:01:00Z', 'BackOff', 'Back-off'), ev('a', '2026-12-03T09:00:00Z')]);
  assert.equal(g.length, 2);
  assert.deepEqual(g[0].objects, ['pod/a', 'pod/b']);
  assert.equal(g[0].count, 4);
  assert.equal(g[0].newest.last, '2026-12-03T10:05:00Z');
  assert.equal(g[1].newest.reason, 'BackOff');
});

test('objects read as one name, N pods, or N objects', () => {
  assert.equal(objectsText(['pod/a']), 'pod/a');
  assert.equal(objectsText(['pod/a', 'pod/b']), '2 pods');
  assert.equal(objectsText(['pod/a', 'job/b']), '2 objects');
});
