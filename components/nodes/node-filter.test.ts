import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterNodes, NodeSummary } from '../../contract/index.ts';
import { EMPTY_FILTER, encodeNodeFilter, filterGroups, hasNodeFilters, parseNodeFilter, resourcesOf } from './node-filter.ts';

function summary(name: string, free: number | null, o: Partial<NodeSummary> = {}): NodeSummary {
  const c = { capacity: 8, allocatable: 8, allocated: free === null ? null : 8 - free, free };
  return {
    name, cluster: 'c1', product: 'NVIDIA-H100-80GB-HBM3', pool: { label: 'karpenter.sh/nodepool', value: 'train' },
    resources: [{ resource: 'nvidia.com/gpu', ...c }], total: c,
    mig: { strategy: null, config: null, state: null, slices: [] }, taints: [], cordoned: false, ready: true, notReadyReason: null, schedulable: true, unreadable: [], pods: 0, workloads: [], gpuReadings: null,
    ...o,
  };
}

function cluster(nodes: NodeSummary[]): ClusterNodes {
  const listed = { state: 'listed' as const, since: null, message: null };
  return { cluster: 'c1', nodesListing: listed, podsListing: listed, nodeCount: nodes.length, groups: [{ product: 'NVIDIA-H100-80GB-HBM3', pool: null, nodes, resources: [], total: { capacity: 0, allocatable: 0, allocated: 0, free: 0 } }], resources: [{ resource: 'nvidia.com/gpu', capacity: 8, allocatable: 8, allocated: 0, free: 8 }, { resource: 'nvidia.com/mig-1g.10gb', capacity: 7, allocatable: 7, allocated: 0, free: 7 }], total: null, schedulableFree: null, podsOnUnlistedNodes: { count: 0, examples: [] } };
}

test('the filter round-trips through the URL; defaults are left out; node names may be a comma list', () => {
  assert.equal(encodeNodeFilter(EMPTY_FILTER), '');
  assert.equal(hasNodeFilters(EMPTY_FILTER), false);
  const f = parseNodeFilter('minFree=8&resource=nvidia.com%2Fgpu&schedulable=1&node=a,b&node=c&cluster=x,y&q=h100');
  assert.deepEqual(f, { q: 'h100', minFree: 8, resource: 'nvidia.com/gpu', schedulable: true, node: ['a', 'b', 'c'], cluster: ['x,y'] });
  assert.deepEqual(parseNodeFilter(encodeNodeFilter(f)), f);
  assert.equal(parseNodeFilter('minFree=-1').minFree, null);
  assert.equal(parseNodeFilter('minFree=abc').minFree, null);
  assert.equal(parseNodeFilter('minFree=0').minFree, 0);
});

test('free GPUs ≥ N keeps the nodes with that many free; unknown free never matches; groups left empty are dropped', () => {
  const c = cluster([summary('a', 8), summary('b', 2), summary('c', null), summary('d', 8, { schedulable: false, cordoned: true })]);
  const names = (f: Parameters<typeof filterGroups>[1]) => filterGroups(c, f).flatMap((g) => g.nodes.map((n) => n.name));
  assert.deepEqual(names(EMPTY_FILTER), ['a', 'b', 'c', 'd']);
  assert.deepEqual(names({ ...EMPTY_FILTER, minFree: 8 }), ['a', 'd']);
  assert.deepEqual(names({ ...EMPTY_FILTER, minFree: 8, schedulable: true }), ['a']);
  assert.deepEqual(names({ ...EMPTY_FILTER, minFree: 1, resource: 'nvidia.com/mig-1g.10gb' }), [], 'nodes without the resource have 0 of it free');
  assert.deepEqual(names({ ...EMPTY_FILTER, node: ['b', 'zz'] }), ['b']);
  assert.deepEqual(names({ ...EMPTY_FILTER, q: 'H100 TRAIN' }), ['a', 'b', 'c', 'd']);
  assert.deepEqual(names({ ...EMPTY_FILTER, q: 'l4' }), []);
  assert.deepEqual(filterGroups(c, { ...EMPTY_FILTER, minFree: 100 }), []);
  assert.deepEqual(filterGroups(c, { ...EMPTY_FILTER, cluster: ['other'] }), []);
  assert.deepEqual(resourcesOf([c]), ['nvidia.com/gpu', 'nvidia.com/mig-1g.10gb']);
});

test('free text also finds the workloads on a node', () => {
  const w = { id: 'c1/team-a/JobSet.jobset.x-k8s.io/llama', kind: 'JobSet.jobset.x-k8s.io', namespace: 'team-a', name: 'llama', pods: 1, gpus: { 'nvidia.com/gpu': 4 }, total: 4 };
  const c = cluster([summary('a', 4, { workloads: [w] }), summary('b', 8)]);
  assert.deepEqual(filterGroups(c, { ...EMPTY_FILTER, q: 'team-a/llama' }).flatMap((g) => g.nodes.map((n) => n.name)), ['a']);
});
