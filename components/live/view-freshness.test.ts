import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterInfo } from '../../contract/index.ts';
import { makeRow } from '../../lib/rows/test-rows.ts';
import { clockTime } from './connection-label.ts';
import { rowIsStale, unreachableClusters, viewFreshness } from './view-freshness.ts';

const T0 = Date.parse('2026-12-02T10:00:00Z');

test('live, or not loaded yet: nothing to dim', () => {
  assert.deepEqual(viewFreshness({ status: 'live', since: T0, lastDataAt: T0, attempts: 0, error: null }, true), { stale: false, text: null });
  assert.deepEqual(viewFreshness({ status: 'reconnecting', since: T0, lastDataAt: T0, attempts: 1, error: 'x' }, false), { stale: false, text: null });
  assert.deepEqual(viewFreshness(null, true), { stale: false, text: null });
});

test('the stream down after data arrived: stale, saying since when and as of when', () => {
  const f = viewFreshness({ status: 'reconnecting', since: T0 + 5000, lastDataAt: T0, attempts: 2, error: 'network error' }, true);
  assert.equal(f.stale, true);
  assert.equal(f.text, `Not live: the connection to the server was lost at ${clockTime(T0 + 5000)} (network error). Showing the data as of ${clockTime(T0)}, dimmed, while it reconnects.`);
  assert.equal(viewFreshness({ status: 'connecting', since: T0, lastDataAt: null, attempts: 3, error: null }, true).stale, true);
});

test('a row is stale when its kinds cannot be read or its cluster cannot be reached', () => {
  const clusters = [{ name: 'a', state: 'connected' }, { name: 'b', state: 'unreachable' }] as ClusterInfo[];
  const down = unreachableClusters(clusters);
  assert.deepEqual([...down], ['b']);
  assert.equal(rowIsStale(makeRow({ cluster: 'a' }), down), false);
  assert.equal(rowIsStale(makeRow({ cluster: 'b' }), down), true);
  assert.equal(rowIsStale({ ...makeRow({ cluster: 'a' }), stale: { since: '2026-12-02T10:00:00Z', reason: 'pods: 500', kinds: ['pods'] } }, down), true);
});
