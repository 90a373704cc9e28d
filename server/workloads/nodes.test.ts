/**
 * GPU capacity per node (issue 12, "Capacity"): grouping by product and pool, capacity / allocatable
 * / allocated / free per GPU resource, MIG layout, taints, cordoned and NotReady nodes, the rows that
 * hold a node's GPUs, and "unknown" — never 0 — when nodes or pods cannot be listed.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { Listing } from '../../contract/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { jobSetObjects } from '../engine/test-support.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { clusterNodes, deviceWorth, listingOf, nodesOf, poolOf, type ClusterNodesInput } from './nodes.ts';
import { WorkloadIndex } from './workload-index.ts';

const LISTED: Listing = { state: 'listed', since: null, message: null };

function node(name: string, gpus: Record<string, string | number>, o: { labels?: Record<string, string>; allocatable?: Record<string, string | number>; ready?: 'True' | 'False' | 'Unknown' | null; unschedulable?: boolean; taints?: unknown[] } = {}): KubeObject {
  const ready = o.ready === undefined ? 'True' : o.ready;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-node-${name}`, labels: o.labels ?? {} },
    spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
    status: {
      capacity: { cpu: '96', memory: '1Ti', ...gpus },
      allocatable: { cpu: '95', memory: '1000Gi', ...(o.allocatable ?? gpus) },
      conditions: ready === null ? [] : [{ type: 'Ready', status: ready, reason: ready === 'True' ? 'KubeletReady' : 'NodeStatusUnknown', message: ready === 'True' ? '' : 'Kubelet stopped posting node status.' }],
    },
  };
}

function pod(name: string, nodeName: string | null, gpus: Record<string, number>, o: { phase?: string; namespace?: string; terminating?: boolean } = {}): KubeObject {
  const ns = o.namespace ?? 'team-a';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', resources: { limits: Object.fromEntries(Object.entries(gpus).map(([k, v]) => [k, String(v)])) } }] },
    status: { phase: o.phase ?? 'Running' },
  };
}

const H100 = { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' };

function input(nodes: KubeObject[], pods: KubeObject[], o: Partial<ClusterNodesInput> = {}): ClusterNodesInput {
  return { cluster: 'c1', nodes, pods, rowIdOf: () => undefined, nodesListing: LISTED, podsListing: LISTED, ...o };
}

test('GPU nodes are grouped by product, then pool; the pool is the first pool label a node has; CPU nodes are left out', () => {
  const nodes = [
    node('h-2', { 'nvidia.com/gpu': '8' }, { labels: { ...H100, 'node.kubernetes.io/instance-type': 'p5.48xlarge', 'karpenter.sh/nodepool': 'train' } }),
    node('h-10', { 'nvidia.com/gpu': '8' }, { labels: { ...H100, 'karpenter.sh/nodepool': 'train' } }),
    node('h-1', { 'nvidia.com/gpu': '8' }, { labels: { ...H100, 'node.kubernetes.io/instance-type': 'p5.48xlarge' } }),
    node('l4-0', { 'nvidia.com/gpu': '4' }, { labels: { 'nvidia.com/gpu.product': 'NVIDIA-L4', 'cloud.google.com/gke-nodepool': 'infer', 'node.kubernetes.io/instance-type': 'g2-standard-48' } }),
    node('odd-0', { 'amd.com/gpu': '8' }),
    node('cpu-0', {}),
  ];
  const c = clusterNodes(input(nodes, []));
  assert.equal(c.nodeCount, 6);
  assert.deepEqual(
    c.groups.map((g) => [g.product, g.pool?.label ?? null, g.pool?.value ?? null, g.nodes.map((n) => n.name)]),
    [
      ['NVIDIA-H100-80GB-HBM3', 'node.kubernetes.io/instance-type', 'p5.48xlarge', ['h-1']],
      ['NVIDIA-H100-80GB-HBM3', 'karpenter.sh/nodepool', 'train', ['h-2', 'h-10']],
      ['NVIDIA-L4', 'cloud.google.com/gke-nodepool', 'infer', ['l4-0']],
      // A node without the product label is still a GPU node (it advertises GPUs); unknown products last.
      [null, null, null, ['odd-0']],
    ],
  );
  assert.deepEqual(c.groups[1].total, { capacity: 16, allocatable: 16, allocated: 0, free: 16 });
  assert.deepEqual(c.total, { capacity: 36, allocatable: 36, allocated: 0, free: 36 });
  assert.deepEqual(poolOf({ 'eks.amazonaws.com/nodegroup': 'ng-1', 'node.kubernetes.io/instance-type': 'p4d' }), { label: 'eks.amazonaws.com/nodegroup', value: 'ng-1' });
});

test('allocated counts pods bound to the node and not finished (terminating ones too); free is allocatable − allocated', () => {
  const nodes = [node('n1', { 'nvidia.com/gpu': '8' }, { allocatable: { 'nvidia.com/gpu': '7' }, labels: H100 })];
  const pods = [
    pod('a', 'n1', { 'nvidia.com/gpu': 4 }),
    pod('b', 'n1', { 'nvidia.com/gpu': 2 }, { phase: 'Pending' }),
    pod('c', 'n1', { 'nvidia.com/gpu': 1 }, { terminating: true }),
    pod('done', 'n1', { 'nvidia.com/gpu': 8 }, { phase: 'Succeeded' }),
    pod('failed', 'n1', { 'nvidia.com/gpu': 8 }, { phase: 'Failed' }),
    pod('unscheduled', null, { 'nvidia.com/gpu': 8 }, { phase: 'Pending' }),
    pod('cpu', 'n1', {}),
  ];
  const c = clusterNodes(input(nodes, pods));
  const n = c.groups[0].nodes[0];
  assert.deepEqual(n.resources, [{ resource: 'nvidia.com/gpu', capacity: 8, allocatable: 7, allocated: 7, free: 0 }]);
  assert.deepEqual(n.total, { capacity: 8, allocatable: 7, allocated: 7, free: 0 });
  assert.equal(n.pods, 4, 'live pods bound to it, GPU or not');
  assert.equal(c.schedulableFree, 0);
  // More allocated than allocatable (a device plugin that lost devices): free is 0, not negative.
  const over = clusterNodes(input([node('n2', { 'nvidia.com/gpu': '8' }, { allocatable: { 'nvidia.com/gpu': '2' } })], [pod('x', 'n2', { 'nvidia.com/gpu': 4 })]));
  assert.deepEqual(over.total, { capacity: 8, allocatable: 2, allocated: 4, free: 0 });
});

test('MIG layout: the nvidia.com/mig-* resources a node advertises, with the strategy GPU feature discovery labels', () => {
  const mig = node('a100-mig', { 'nvidia.com/gpu': '4', 'nvidia.com/mig-1g.10gb': '14', 'nvidia.com/mig-3g.40gb': '4' }, { labels: { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB', 'nvidia.com/mig.strategy': 'mixed', 'nvidia.com/mig.config': 'custom-mixed', 'nvidia.com/mig.config.state': 'success' } });
  const c = clusterNodes(input([mig], [pod('embed', 'a100-mig', { 'nvidia.com/mig-1g.10gb': 1 }), pod('nim', 'a100-mig', { 'nvidia.com/mig-3g.40gb': 1 })]));
  const n = c.groups[0].nodes[0];
  assert.deepEqual(n.mig, {
    strategy: 'mixed',
    config: 'custom-mixed',
    state: 'success',
    slices: [
      { resource: 'nvidia.com/mig-1g.10gb', profile: '1g.10gb', capacity: 14, allocatable: 14, allocated: 1, free: 13 },
      { resource: 'nvidia.com/mig-3g.40gb', profile: '3g.40gb', capacity: 4, allocatable: 4, allocated: 1, free: 3 },
    ],
  });
  assert.deepEqual(c.resources?.map((r) => [r.resource, r.free]), [['nvidia.com/gpu', 4], ['nvidia.com/mig-1g.10gb', 13], ['nvidia.com/mig-3g.40gb', 3]]);
  // Totals are devices' worth: 4 whole GPUs + 14 × 1/7 + 4 × 3/7; allocated 1/7 + 3/7.
  assert.deepEqual(c.total, { capacity: 7.714, allocatable: 7.714, allocated: 0.571, free: 7.143 });
  assert.deepEqual(n.workloads.map((w) => w.total), [0.429, 0.143]);
  // Another weighting can be passed in (raw counts here).
  assert.equal(clusterNodes(input([mig], [], { unitWorth: () => 1 })).total?.capacity, 22);
});

test("devices' worth: MIG slices on A100/H100 (7 compute slices) and A30 (4), MIG's single strategy, shared GPUs with and without the replica count", () => {
  const on = (labels: Record<string, string>) => node('n', {}, { labels });
  assert.equal(deviceWorth('nvidia.com/gpu', on(H100)), 1);
  assert.equal(deviceWorth('amd.com/gpu', on({})), 1);
  assert.equal(deviceWorth('nvidia.com/mig-1g.10gb', on(H100)), 1 / 7);
  assert.equal(deviceWorth('nvidia.com/mig-3g.40gb', on({ 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' })), 3 / 7);
  assert.equal(deviceWorth('nvidia.com/mig-7g.80gb', on(H100)), 1);
  assert.equal(deviceWorth('nvidia.com/mig-1g.6gb', on({ 'nvidia.com/gpu.product': 'NVIDIA-A30' })), 1 / 4);
  assert.equal(deviceWorth('nvidia.com/mig-2g.12gb', on({})), 2 / 4, 'no product label: the A30 profile sizes tell');
  assert.equal(deviceWorth('nvidia.com/mig-2g.20gb', on({})), 2 / 7);
  assert.equal(deviceWorth('nvidia.com/gpu', on({ 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB-MIG-1g.5gb', 'nvidia.com/mig.strategy': 'single' })), 1 / 7);
  assert.equal(deviceWorth('nvidia.com/gpu.shared', on({ 'nvidia.com/gpu.replicas': '4' })), 1 / 4);
  assert.equal(deviceWorth('nvidia.com/gpu.shared', on({})), 0, 'without the replica count: only counted apart');
  const shared = clusterNodes(input([node('ts', { 'nvidia.com/gpu.shared': '8' })], []));
  assert.deepEqual([shared.resources?.[0].capacity, shared.total?.capacity], [8, 0]);
});

test('taints, cordoned and NotReady nodes; only Ready, uncordoned nodes count towards schedulable free GPUs', () => {
  const nodes = [
    node('ok', { 'nvidia.com/gpu': '8' }, { labels: H100, taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] }),
    node('cordoned', { 'nvidia.com/gpu': '8' }, { labels: H100, unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] }),
    node('down', { 'nvidia.com/gpu': '8' }, { labels: H100, ready: 'Unknown' }),
    node('new', { 'nvidia.com/gpu': '8' }, { labels: H100, ready: null }),
  ];
  const c = clusterNodes(input(nodes, []));
  const by = new Map(c.groups[0].nodes.map((n) => [n.name, n]));
  assert.deepEqual(by.get('ok')!.taints, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
  assert.equal(by.get('ok')!.schedulable, true);
  assert.deepEqual([by.get('cordoned')!.cordoned, by.get('cordoned')!.ready, by.get('cordoned')!.schedulable], [true, true, false]);
  assert.deepEqual(by.get('cordoned')!.taints, [{ key: 'node.kubernetes.io/unschedulable', value: null, effect: 'NoSchedule' }]);
  assert.equal(by.get('down')!.ready, false);
  assert.match(by.get('down')!.notReadyReason!, /Ready is Unknown \(NodeStatusUnknown: Kubelet stopped posting/);
  assert.equal(by.get('new')!.notReadyReason, 'no Ready condition reported');
  assert.equal(c.total?.free, 32);
  assert.equal(c.schedulableFree, 8);
});

test('the workloads holding a node: pods grouped by row, most GPUs first; pods no row counts are named', () => {
  const nodes = [node('n1', { 'nvidia.com/gpu': '8' }, { labels: H100 })];
  const pods = [pod('train-w-0', 'n1', { 'nvidia.com/gpu': 2 }), pod('train-w-1', 'n1', { 'nvidia.com/gpu': 2 }), pod('serve-0', 'n1', { 'nvidia.com/gpu': 1 }, { namespace: 'inference' }), pod('stray', 'n1', { 'nvidia.com/gpu': 1 }), pod('cpu-only', 'n1', {})];
  const rows: Record<string, string> = {
    'uid-team-a-train-w-0': 'my/cluster/team-a/JobSet.jobset.x-k8s.io/train',
    'uid-team-a-train-w-1': 'my/cluster/team-a/JobSet.jobset.x-k8s.io/train',
    'uid-inference-serve-0': 'my/cluster/inference/Deployment.apps/serve',
    'uid-team-a-cpu-only': 'my/cluster/team-a/Pod/cpu-only',
  };
  const c = clusterNodes(input(nodes, pods, { rowIdOf: (p) => rows[String(p.metadata?.uid)] }));
  assert.deepEqual(c.groups[0].nodes[0].workloads, [
    { id: 'my/cluster/team-a/JobSet.jobset.x-k8s.io/train', kind: 'JobSet.jobset.x-k8s.io', namespace: 'team-a', name: 'train', pods: 2, gpus: { 'nvidia.com/gpu': 4 }, total: 4 },
    { id: 'my/cluster/inference/Deployment.apps/serve', kind: 'Deployment.apps', namespace: 'inference', name: 'serve', pods: 1, gpus: { 'nvidia.com/gpu': 1 }, total: 1 },
    { id: null, kind: 'Pod', namespace: 'team-a', name: 'stray', pods: 1, gpus: { 'nvidia.com/gpu': 1 }, total: 1 },
  ]);
});

test('nodes that cannot be listed give no figures (null, never 0); pods that cannot be listed leave allocated and free unknown', () => {
  const nodes = [node('n1', { 'nvidia.com/gpu': '8' }, { labels: H100 })];
  const pods = [pod('a', 'n1', { 'nvidia.com/gpu': 4 })];
  for (const state of ['listing', 'forbidden', 'failing', 'unwatched'] as const) {
    const c = clusterNodes(input(nodes, pods, { nodesListing: { state, since: null, message: null } }));
    assert.deepEqual([c.nodeCount, c.groups, c.resources, c.total, c.schedulableFree], [null, [], null, null, null], state);
  }
  const stale = clusterNodes(input(nodes, pods, { nodesListing: { state: 'stale', since: '2026-01-01T00:00:00.000Z', message: 'watch failing' } }));
  assert.deepEqual(stale.total, { capacity: 8, allocatable: 8, allocated: 4, free: 4 }, 'stale: the last seen figures, marked by the listing');

  const noPods = clusterNodes(input(nodes, pods, { podsListing: { state: 'forbidden', since: null, message: 'pods is forbidden' } }));
  assert.deepEqual(noPods.total, { capacity: 8, allocatable: 8, allocated: null, free: null });
  assert.deepEqual(noPods.groups[0].nodes[0].resources, [{ resource: 'nvidia.com/gpu', capacity: 8, allocatable: 8, allocated: null, free: null }]);
  assert.deepEqual(noPods.groups[0].nodes[0].workloads, []);
  assert.equal(noPods.schedulableFree, null);
});

test('pods bound to a node the cluster does not list are named; unreadable capacity values are reported, not counted as 0', () => {
  const nodes = [node('n1', { 'nvidia.com/gpu': 'abc', 'amd.com/gpu': '1.5' }, { labels: H100 })];
  const c = clusterNodes(input(nodes, [pod('lost', 'gone-node', { 'nvidia.com/gpu': 2 }), pod('cpu', 'gone-node', {})]));
  assert.deepEqual(c.podsOnUnlistedNodes, { count: 1, examples: ['team-a/lost'] });
  const n = c.groups[0].nodes[0];
  assert.deepEqual(n.unreadable, ['capacity nvidia.com/gpu "abc"', 'capacity amd.com/gpu "1.5"', 'allocatable nvidia.com/gpu "abc"', 'allocatable amd.com/gpu "1.5"']);
  assert.deepEqual(n.resources, []);
});

test('the GPU resources counted follow the configured list', () => {
  const nodes = [node('n1', { 'nvidia.com/gpu': '8', 'example.com/npu': '4' }, { labels: H100 })];
  const pods = [pod('a', 'n1', { 'nvidia.com/gpu': 2, 'example.com/npu': 1 })];
  assert.deepEqual(clusterNodes(input(nodes, pods)).resources?.map((r) => r.resource), ['nvidia.com/gpu']);
  const custom = clusterNodes(input(nodes, pods, { gpuResources: ['nvidia.com/gpu', 'example.com/*'] }));
  assert.deepEqual(custom.resources?.map((r) => [r.resource, r.allocated]), [['example.com/npu', 1], ['nvidia.com/gpu', 2]]);
});

test('listing states from the list+watch: listed, stale, listing, failing, forbidden', () => {
  const kind = (o: Partial<{ state: string; synced: boolean; failingSince: number | null; message: string | null }>) => ({ gk: '/Node', state: 'watching', synced: true, failingSince: null, message: null, ...o });
  const info = (k: ReturnType<typeof kind> | null, unreachableSince: number | null = null) => ({ state: 'connected', unreachableSince, kinds: k ? [k] : [] });
  assert.equal(listingOf(info(kind({})), '/Node').state, 'listed');
  assert.deepEqual(listingOf(info(kind({ state: 'error', failingSince: Date.parse('2026-01-01T00:00:00Z'), message: '500' })), '/Node'), { state: 'stale', since: '2026-01-01T00:00:00.000Z', message: '500' });
  assert.equal(listingOf(info(kind({}), Date.parse('2026-01-01T00:00:00Z')), '/Node').state, 'stale', 'an unreachable cluster: the last seen nodes');
  assert.equal(listingOf(info(kind({ state: 'listing', synced: false })), '/Node').state, 'listing');
  assert.equal(listingOf(info(kind({ state: 'error', synced: false, failingSince: 1 })), '/Node').state, 'failing');
  assert.equal(listingOf(info(kind({ state: 'forbidden', synced: false, message: 'nodes is forbidden' })), '/Node').state, 'forbidden');
  assert.equal(listingOf(undefined, '/Node').state, 'listing');
  assert.equal(listingOf({ state: 'connecting', unreachableSince: null, kinds: [] }, '/Node').state, 'listing');
});

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

test('in the live index a Node is no workload (no row), is listed by nodes(), and its GPUs are held by the JobSet row', () => {
  const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
  open.push(index);
  const objects = jobSetObjects({ name: 'train', workers: 2, gpus: 4 });
  index.upsertMany('c1', [node('gpu-node-0', { 'nvidia.com/gpu': '8' }, { labels: H100 }), node('gpu-node-1', { 'nvidia.com/gpu': '8' }, { labels: H100 }), ...objects]);
  index.flush();
  assert.deepEqual(index.allRows().map((r) => r.id), ['c1/default/JobSet.jobset.x-k8s.io/train'], 'the nodes make no row');
  assert.deepEqual([...index.nodes('c1')].map((n) => n.metadata?.name).sort(), ['gpu-node-0', 'gpu-node-1']);
  assert.deepEqual([...index.nodes('elsewhere')], []);
  const payload = nodesOf({ clusterNames: () => ['c1'], nodes: (c) => index.nodes(c), pods: (c) => index.pods(c), rowIdOf: (c, uid) => index.rowIdOf(c, uid), info: () => ({ state: 'connected', unreachableSince: null, kinds: [{ gk: '/Node', state: 'watching', synced: true, failingSince: null, message: null }, { gk: '/Pod', state: 'watching', synced: true, failingSince: null, message: null }] }) });
  const [c] = payload.clusters;
  assert.deepEqual(c.total, { capacity: 16, allocatable: 16, allocated: 12, free: 4 });
  const n0 = c.groups[0].nodes[0];
  assert.equal(n0.name, 'gpu-node-0');
  assert.deepEqual(n0.workloads.map((w) => [w.id, w.pods, w.total]), [['c1/default/JobSet.jobset.x-k8s.io/train', 2, 8]]);
  // The rows' allocated GPUs equal what the nodes say is allocated.
  assert.equal(index.allRows().reduce((a, r) => a + r.gpus.allocated, 0), c.total?.allocated);
  // A node deleted: no longer listed.
  index.remove('c1', node('gpu-node-1', {}));
  index.flush();
  assert.deepEqual([...index.nodes('c1')].map((n) => n.metadata?.name), ['gpu-node-0']);
  assert.deepEqual(index.allRows().map((r) => r.id), ['c1/default/JobSet.jobset.x-k8s.io/train']);
});
