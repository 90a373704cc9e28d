import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterNodes, ListingState, NodesPayload } from '../../contract/index.ts';
import { capacityDetail, capacitySummary } from './capacity-summary.ts';

function cluster(name: string, state: ListingState, total: { capacity: number; allocatable: number; allocated: number | null; free: number | null } | null, podsState: ListingState = 'listed'): ClusterNodes {
  const known = state === 'listed' || state === 'stale';
  return {
    cluster: name,
    nodesListing: { state, since: null, message: state === 'forbidden' ? 'nodes is forbidden' : null },
    podsListing: { state: podsState, since: null, message: null },
    nodeCount: known ? 2 : null,
    groups: [],
    resources: known && total ? [{ resource: 'nvidia.com/gpu', ...total }] : null,
    total: known ? total : null,
    schedulableFree: null,
    podsOnUnlistedNodes: { count: 0, examples: [] },
  };
}

const payload = (...clusters: ClusterNodes[]): NodesPayload => ({ clusters, poolLabels: [] });

test('not loaded, or no cluster whose nodes are known: unknown, never 0', () => {
  assert.deepEqual(capacitySummary(undefined), { known: false, capacity: 0, allocatable: 0, allocated: null, free: null, unknown: [], stale: [], resources: [] });
  const s = capacitySummary(payload(cluster('a', 'forbidden', null), cluster('b', 'listing', null)));
  assert.equal(s.known, false);
  assert.deepEqual(s.unknown, [{ cluster: 'a', why: 'not allowed to list nodes: nodes is forbidden' }, { cluster: 'b', why: 'nodes not listed yet' }]);
  assert.equal(capacitySummary(payload()).known, false);
});

test('sums the known clusters, names the unknown ones, follows the table\'s cluster filter', () => {
  const p = payload(cluster('a', 'listed', { capacity: 16, allocatable: 16, allocated: 12, free: 4 }), cluster('b', 'stale', { capacity: 8, allocatable: 7, allocated: 1, free: 6 }), cluster('c', 'forbidden', null));
  const s = capacitySummary(p);
  assert.deepEqual([s.known, s.capacity, s.allocatable, s.allocated, s.free], [true, 24, 23, 13, 10]);
  assert.deepEqual(s.unknown.map((u) => u.cluster), ['c']);
  assert.deepEqual(s.stale, ['b']);
  assert.deepEqual(s.resources, [{ resource: 'nvidia.com/gpu', capacity: 24, allocatable: 23, allocated: 13, free: 10 }]);
  assert.match(capacityDetail(s), /nvidia\.com\/gpu: capacity 24, allocatable 23, allocated 13, free 10\n.*\nc: capacity unknown \(not allowed to list nodes/);
  assert.deepEqual([capacitySummary(p, ['a']).capacity, capacitySummary(p, ['a']).unknown], [16, []]);
  assert.equal(capacitySummary(p, ['c']).known, false);
});

test('pods that cannot be listed leave allocated and free unknown while capacity is known', () => {
  const s = capacitySummary(payload(cluster('a', 'listed', { capacity: 16, allocatable: 16, allocated: null, free: null }, 'forbidden'), cluster('b', 'listed', { capacity: 8, allocatable: 8, allocated: 0, free: 8 })));
  assert.deepEqual([s.capacity, s.allocated, s.free], [24, null, null]);
});
