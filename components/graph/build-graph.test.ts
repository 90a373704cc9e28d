import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY_TOGGLE, buildGraph, emptyParts, groupTone, podTone } from './build-graph.ts';
import type { TreeComponent, WorkloadTree } from '../../contract/index.ts';
import { layoutForest, layoutLeftToRight, layoutModel } from './layout.ts';
import { jobSetTree, jobSetUsage, lwsTree, podTree, pod } from './test-trees.ts';

test('a JobSet: workload → replicatedjob → leader/worker instances → pods, with GPUs', () => {
  const g = buildGraph(jobSetTree(1, 2), 'Running');
  const ids = g.nodes.map((n) => n.id);
  assert.deepEqual(ids.slice(0, 4), ['workload', 'c:replicatedjob', 'i:replicatedjob/leader', 'i:replicatedjob/worker']);
  assert.equal(g.nodes.filter((n) => n.type === 'pod').length, 3);
  const edges = g.edges.map((e) => `${e.source}->${e.target}`);
  assert.ok(edges.includes('workload->c:replicatedjob'));
  assert.ok(edges.includes('c:replicatedjob->i:replicatedjob/leader'));
  assert.ok(edges.includes('i:replicatedjob/worker->p:team-a/train-worker-1'));
  const worker = g.nodes.find((n) => n.id === 'i:replicatedjob/worker')!;
  assert.equal(worker.gpus, 8);
  assert.equal(worker.gpuHint, '8 nvidia.com/gpu · allocated 8, requested 8, desired 8');
  assert.match(worker.subtitle, /2\/2 pods · 4 GPU\/pod/);
  assert.equal(g.nodes[0].gpus, 12);
  assert.equal(g.nodes[0].tone, 'ok');
});

test('a plain Pod workload: the pod hangs off the workload node', () => {
  const g = buildGraph(podTree(), 'Running');
  assert.deepEqual(g.nodes.map((n) => n.type), ['workload', 'pod']);
  assert.deepEqual(g.edges.map((e) => e.source), ['workload']);
});

test('a role with hundreds of pods collapses into one node with a histogram, and expands one page at a time', () => {
  const tree = jobSetTree(1, 600);
  tree.pods[5] = { ...tree.pods[5], phase: 'Pending', ready: false, node: null, why: { kind: 'unschedulable', reason: 'Unschedulable', message: '0/14 nodes are available' } };
  const g = buildGraph(tree, 'Running');
  const summary = g.nodes.find((n) => n.type === 'pods')!;
  assert.equal(summary.id, 'pods:i:replicatedjob/worker');
  assert.equal(summary.title, '600 pods');
  assert.equal(summary.subtitle, '599 Running · 1 Pending (Unschedulable)');
  assert.equal(summary.counts?.pending, 1);
  assert.equal(summary.counts?.ready, 599);
  assert.equal(summary.gpus, 2400);
  assert.equal(summary.toggle, 'pods:i:replicatedjob/worker');
  assert.equal(summary.toggleLabel, 'Show 600 pods');
  assert.equal(summary.tone, 'wait');
  assert.equal(summary.expanded, false);
  assert.equal(g.nodes.filter((n) => n.type === 'pod').length, 1); // the leader
  // The holder keeps no control of its own: the list's node has it.
  assert.equal(g.nodes.find((n) => n.id === 'i:replicatedjob/worker')!.toggle, undefined);

  const open = buildGraph(tree, 'Running', { expanded: new Set(['pods:i:replicatedjob/worker']) });
  const list = open.nodes.find((n) => n.id === 'pods:i:replicatedjob/worker')!;
  assert.equal(list.expanded, true);
  assert.equal(list.toggleLabel, 'Collapse pods');
  assert.deepEqual(list.page, { index: 0, count: 25, from: 1, to: 24, total: 600, what: 'pods' });
  const page = open.nodes.filter((n) => n.parent === list.id);
  assert.equal(page.length, 24);
  // Problems first (the pending worker-4), then natural order: worker-0, worker-1, … worker-9, worker-10.
  assert.deepEqual(page.slice(0, 4).map((n) => n.title), ['train-worker-4', 'train-worker-0', 'train-worker-1', 'train-worker-2']);
  assert.deepEqual(page.slice(9, 12).map((n) => n.title), ['train-worker-9', 'train-worker-10', 'train-worker-11']);
  // Pods in a page are drawn inside it: no edges of their own.
  assert.ok(!open.edges.some((e) => page.some((n) => n.id === e.target)));
  // The last page holds the rest; a page past the end shows the last one.
  const last = buildGraph(tree, 'Running', { expanded: new Set([list.id]), pages: new Map([[list.id, 99]]) });
  assert.deepEqual(last.nodes.find((n) => n.id === list.id)!.page, { index: 24, count: 25, from: 577, to: 600, total: 600, what: 'pods' });
  assert.equal(last.nodes.filter((n) => n.parent === list.id).at(-1)!.title, 'train-worker-599');
});

test('unmatched pods stand apart, not connected to the workload', () => {
  const tree = jobSetTree(1, 1);
  tree.unmatchedPods = [pod('stray', null, null, 2)];
  tree.unmatchedGpus = { desired: { total: 0, byResource: {} }, requested: { total: 2, byResource: { 'nvidia.com/gpu': 2 } }, allocated: { total: 2, byResource: { 'nvidia.com/gpu': 2 } } };
  const g = buildGraph(tree, 'Degraded');
  assert.ok(g.nodes.some((n) => n.id === 'unmatched' && n.gpus === 2));
  assert.ok(g.edges.some((e) => e.source === 'unmatched' && e.target === 'u:team-a/stray'));
  assert.ok(!g.edges.some((e) => e.target === 'unmatched'));
  assert.equal(g.nodes[0].tone, 'warn');
});

test('every level shows the figures the tree gives: a finished pod is not summed back in', () => {
  const tree = jobSetTree(1, 2);
  // One worker finished: the engine no longer counts its GPUs as requested or allocated.
  tree.pods[2] = { ...tree.pods[2], phase: 'Succeeded', ready: false, allocated: false };
  const worker = tree.components[1].instances[1];
  worker.gpus = { ...worker.gpus, requested: { total: 4, byResource: { 'nvidia.com/gpu': 4 } }, allocated: { total: 4, byResource: { 'nvidia.com/gpu': 4 } } };
  const g = buildGraph(tree, 'Running');
  const node = g.nodes.find((n) => n.id === 'i:replicatedjob/worker')!;
  assert.equal(node.gpus, 4);
  assert.match(node.gpuHint, /allocated 4, requested 4, desired 8$/);
  // Nothing requested any more: the node shows what the templates ask for.
  worker.gpus = { ...worker.gpus, requested: { total: 0, byResource: {} }, allocated: { total: 0, byResource: {} } };
  assert.equal(buildGraph(tree, 'Running').nodes.find((n) => n.id === 'i:replicatedjob/worker')!.gpus, 8);
});

test('tones: failures dominate, not-ready is amber, all finished is done', () => {
  assert.equal(podTone(pod('a', 'x', 'y', 0, 'Running', false)), 'warn');
  assert.equal(groupTone([pod('a', 'x', 'y', 0, 'Succeeded', false), pod('b', 'x', 'y', 0, 'Failed', false)]), 'bad');
  assert.equal(groupTone([pod('a', 'x', 'y', 0, 'Succeeded', false)]), 'done');
  assert.equal(groupTone([], 3), 'wait');
  assert.equal(groupTone([pod('a', 'x', 'y', 0)], 2), 'warn');
});

test('layout puts owners left of what they own, keeps nodes apart and siblings in the model\'s order', () => {
  const g = buildGraph(jobSetTree(1, 2), 'Running');
  const sized = g.nodes.map((n) => ({ id: n.id, width: 180, height: 50 }));
  for (const layout of [layoutForest(sized, g.edges)!, layoutLeftToRight(sized, g.edges)]) {
    const { positions } = layout;
    for (const e of g.edges) assert.ok(positions.get(e.source)!.x < positions.get(e.target)!.x, e.id);
    const pods = g.nodes.filter((n) => n.type === 'pod').map((n) => positions.get(n.id)!);
    for (let i = 0; i < pods.length; i++) for (let j = i + 1; j < pods.length; j++) assert.ok(Math.abs(pods[i].y - pods[j].y) >= 50);
  }
  // The tree layout keeps siblings in order, top to bottom: leader before worker, -0 before -1.
  const { positions } = layoutForest(sized, g.edges)!;
  const y = (id: string) => positions.get(id)!.y;
  assert.ok(y('i:replicatedjob/leader') < y('i:replicatedjob/worker'));
  assert.ok(y('p:team-a/train-worker-0') < y('p:team-a/train-worker-1'));
  // Not a forest (a node with two parents): no tree layout, dagre's case.
  assert.equal(layoutForest(sized, [...g.edges, { source: 'workload', target: 'p:team-a/train-worker-0' }]), null);
});

test('containers are sized by the pods they hold, their pods on a grid inside them', () => {
  const g = buildGraph(lwsTree(2, 4), 'Running');
  const { positions, sizes } = layoutModel(g.nodes, g.edges);
  const group = sizes.get('g:c:group/0')!;
  const inGroup = g.nodes.filter((n) => n.parent === 'g:c:group/0');
  assert.equal(inGroup.length, 4);
  for (const n of inGroup) {
    const p = positions.get(n.id)!;
    const s = sizes.get(n.id)!;
    // Relative to the group, and within it.
    assert.ok(p.x >= 0 && p.y >= 0 && p.x + s.width <= group.width && p.y + s.height <= group.height, n.id);
  }
  assert.ok(positions.get('g:c:group/0')!.y < positions.get('g:c:group/1')!.y);
});

test('1,000 pods collapsed lay out fast', () => {
  const g = buildGraph(jobSetTree(1, 1000), 'Running');
  const t0 = performance.now();
  layoutModel(g.nodes, g.edges);
  assert.ok(g.nodes.length < 10);
  assert.ok(performance.now() - t0 < 1000);
});

const none = { desired: { total: 0, byResource: {} }, requested: { total: 0, byResource: {} }, allocated: { total: 0, byResource: {} } };
const deployment = (name: string, parent: string, instances: TreeComponent['instances'] = []): TreeComponent => ({ name, kind: 'apps/v1/Deployment', parent, hasPodDefinition: true, instances, gpus: none });

/** A Milvus in standalone mode: one standalone Deployment with its pod, the cluster-mode Deployments with no instance. */
function milvusStandalone(): WorkloadTree {
  const t = podTree();
  t.workload = { ...t.workload, apiVersion: 'milvus.io/v1beta1', kind: 'Milvus', name: 'vecdb-dev' };
  t.components = [
    { name: 'milvus', kind: 'milvus.io/v1beta1/Milvus', parent: null, hasPodDefinition: false, instances: [{ id: '', replicas: null, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 0, gpus: none }], gpus: none },
    { name: 'components', kind: '', parent: 'milvus', hasPodDefinition: false, instances: [{ id: '', replicas: null, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 0, gpus: none }], gpus: none },
    deployment('standalone', 'components', [{ id: 'standalone', replicas: 1, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 1, gpus: none }]),
    ...['proxy', 'mixcoord', 'datanode', 'querynode'].map((n) => deployment(n, 'components')),
    // A structural component whose children are all empty (a multi-node form not in use).
    { name: 'group', kind: 'leaderworkerset.x-k8s.io/v1/LeaderWorkerSet', parent: 'milvus', hasPodDefinition: false, instances: [{ id: '', replicas: null, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 0, gpus: none }], gpus: none },
    deployment('leader', 'group'),
  ];
  t.roles = [{ name: 'standalone', component: 'standalone', instance: 'standalone', desiredPods: 1, livePods: 1, readyPods: 1, gpusPerPod: {} }];
  t.pods = [pod('vecdb-dev-milvus-standalone-x', 'standalone', 'standalone', 0)];
  return t;
}

test('components with no object and no pods are hidden behind one node that shows them', () => {
  const tree = milvusStandalone();
  const parts = emptyParts(tree);
  assert.deepEqual([...parts.components].sort(), ['datanode', 'group', 'leader', 'mixcoord', 'proxy', 'querynode']);
  assert.deepEqual([...parts.instances], []);

  const g = buildGraph(tree, 'Running');
  const ids = g.nodes.map((n) => n.id);
  assert.deepEqual(ids, ['workload', 'c:components', 'c:standalone', 'p:team-a/vecdb-dev-milvus-standalone-x', EMPTY_TOGGLE]);
  const toggle = g.nodes.find((n) => n.id === EMPTY_TOGGLE)!;
  assert.equal(toggle.title, '6 empty components');
  assert.equal(toggle.toggleLabel, 'Show 6 empty components');
  assert.equal(toggle.toggle, EMPTY_TOGGLE);
  assert.equal(toggle.expanded, false);
  assert.match(toggle.subtitle, /proxy, mixcoord, datanode, querynode, group, leader$/);
  // Every edge joins nodes that are shown, and the toggle node is no part of the structure.
  for (const e of g.edges) assert.ok(ids.includes(e.source) && ids.includes(e.target), e.id);
  assert.ok(!g.edges.some((e) => e.source === EMPTY_TOGGLE || e.target === EMPTY_TOGGLE));

  const open = buildGraph(tree, 'Running', { expanded: new Set([EMPTY_TOGGLE]) });
  assert.ok(['c:proxy', 'c:group', 'c:leader'].every((id) => open.nodes.some((n) => n.id === id)));
  assert.ok(open.edges.some((e) => e.source === 'c:group' && e.target === 'c:leader'));
  assert.equal(open.nodes.find((n) => n.id === 'c:proxy')!.tone, 'idle');
  const shown = open.nodes.find((n) => n.id === EMPTY_TOGGLE)!;
  assert.equal(shown.expanded, true);
  assert.equal(shown.toggleLabel, 'Hide 6 empty components');
  assert.deepEqual(buildGraph(tree, 'Running', { showEmpty: true }).nodes.map((n) => n.id), open.nodes.map((n) => n.id));
});

test('what asks for pods or has one is never empty; nothing empty, no toggle node', () => {
  const tree = milvusStandalone();
  // A Deployment scaled to 0 whose pod is still there, and one that asks for a pod not created yet.
  tree.components.find((c) => c.name === 'proxy')!.instances = [{ id: 'proxy', replicas: 0, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 0, gpus: none }];
  tree.pods.push(pod('vecdb-dev-milvus-proxy-x', 'proxy', 'proxy', 0, 'Succeeded', false));
  tree.components.find((c) => c.name === 'datanode')!.instances = [{ id: 'datanode', replicas: 1, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 0, gpus: none }];
  tree.roles.push({ name: 'datanode', component: 'datanode', instance: 'datanode', desiredPods: 1, livePods: 0, readyPods: 0, gpusPerPod: {} });
  assert.deepEqual([...emptyParts(tree).components].sort(), ['group', 'leader', 'mixcoord', 'querynode']);

  // The JobSet of the other tests has nothing empty: the graph is as before.
  const g = buildGraph(jobSetTree(1, 2), 'Running');
  assert.ok(!g.nodes.some((n) => n.id === EMPTY_TOGGLE));
});

test('an instance that asks for no pods and has none is hidden in a component that is kept', () => {
  const tree = jobSetTree(1, 0);
  const parts = emptyParts(tree);
  assert.deepEqual([...parts.components], []);
  assert.deepEqual([...parts.instances], ['replicatedjob\u0000worker']);
  const g = buildGraph(tree, 'Running');
  assert.ok(!g.nodes.some((n) => n.id === 'i:replicatedjob/worker'));
  assert.equal(g.nodes.find((n) => n.id === EMPTY_TOGGLE)!.title, '1 empty component');
  assert.ok(buildGraph(tree, 'Running', { showEmpty: true }).nodes.some((n) => n.id === 'i:replicatedjob/worker'));
  // Every instance empty: the component itself is, and counts once.
  const idle = jobSetTree(0, 0);
  assert.deepEqual([...emptyParts(idle).components], ['replicatedjob']);
  assert.deepEqual(buildGraph(idle, 'Suspended').nodes.map((n) => n.id), ['workload', EMPTY_TOGGLE]);
});

test('utilization sits on the nodes that show GPUs: workload, component, instances, pods and a collapsed group', () => {
  const usage = jobSetUsage();
  const m = buildGraph(jobSetTree(1, 2), 'Running', { usage });
  const util = (id: string) => m.nodes.find((n) => n.id === id)?.usage?.figures.utilization;
  assert.equal(util('workload'), 66.7);
  assert.equal(util('i:replicatedjob/leader'), 0);
  assert.equal(util('i:replicatedjob/worker'), 100);
  // The component adds its instances up, weighted by what is measured.
  assert.equal(util('c:replicatedjob'), 66.7);
  assert.equal(util('p:team-a/train-leader-0'), 0);
  assert.equal(m.nodes.find((n) => n.id === 'p:team-a/train-leader-0')?.usage?.source, 'exporters');
  // Nothing without usage, and nothing on nodes that hold no GPUs.
  assert.equal(buildGraph(jobSetTree(1, 2), 'Running').nodes.some((n) => n.usage), false);
  const collapsed = buildGraph(jobSetTree(1, 20), 'Running', { usage });
  assert.equal(collapsed.nodes.find((n) => n.id === 'pods:i:replicatedjob/worker')?.usage?.figures.utilization, 100);
});

test('search: only the pods that match, wherever they are, their lists opened; a count and the first match', () => {
  const tree = lwsTree(100, 4);
  const g = buildGraph(tree, 'Running', { search: ' VLLM-405B-57-2 ' });
  assert.deepEqual(g.search, { query: 'vllm-405b-57-2', matches: 1, first: 'vllm-405b-57-2' });
  const pods = g.nodes.filter((n) => n.type === 'pod');
  assert.deepEqual(pods.map((n) => n.title), ['vllm-405b-57-2']);
  // The group holding it is shown with just that pod (a search shows no toggles: the lists are open).
  assert.equal(pods[0].parent, 'g:c:group/57');
  assert.ok(g.edges.some((e) => e.source === 'c:group' && e.target === 'g:c:group/57'));
  // By node name too; many matches are paged like any big list.
  const byNode = buildGraph(tree, 'Running', { search: 'node-vllm-405b-5' });
  assert.equal(byNode.search?.matches, 11 * 4); // groups 5 and 50–59
  assert.equal(byNode.nodes.filter((n) => n.type === 'group').length, 11);
  const all = buildGraph(tree, 'Running', { search: 'vllm-405b-' });
  const found = all.nodes.find((n) => n.id === 'groups:c:group')!;
  assert.equal(found.title, '100 groups · 400 pods found');
  assert.equal(found.toggle, undefined);
  // A page of groups holds about a page of pods: 6 groups of 4.
  assert.equal(all.nodes.filter((n) => n.type === 'group').length, 6);
  const none = buildGraph(tree, 'Running', { search: 'nothing-like-this' });
  assert.deepEqual(none.search, { query: 'nothing-like-this', matches: 0, first: null });
  assert.ok(!none.nodes.some((n) => n.type === 'pod' || n.type === 'group' || n.type === 'groups'));
  // Plain lists too: a 600-pod role finds its pod.
  const wide = buildGraph(jobSetTree(1, 600), 'Running', { search: 'worker-417' });
  assert.deepEqual(wide.nodes.filter((n) => n.type === 'pod').map((n) => n.title), ['train-worker-417']);
});

test('the selected pod is marked; a pod to reveal opens the lists that hold it at its page', () => {
  const tree = jobSetTree(1, 600);
  const sel = buildGraph(tree, 'Running', { selectedPod: 'train-leader-0' });
  assert.equal(sel.nodes.find((n) => n.pod === 'train-leader-0')?.selected, true);
  assert.equal(sel.nodes.filter((n) => n.selected).length, 1);
  const r = buildGraph(tree, 'Running', { selectedPod: 'train-worker-100', reveal: 'train-worker-100' });
  // Natural order: worker-0 … worker-99, worker-100 is the 101st, on page 5 of 24 each (index 4).
  assert.deepEqual(r.revealed, { expand: ['pods:i:replicatedjob/worker'], pages: [['pods:i:replicatedjob/worker', 4]] });
  assert.equal(r.nodes.find((n) => n.pod === 'train-worker-100')?.selected, true);
  // In groups: the aggregate and the group open where the pod is.
  const lws = buildGraph(lwsTree(100, 20), 'Running', { reveal: 'vllm-405b-70-19' });
  assert.deepEqual(lws.revealed, { expand: ['groups:c:group', 'g:c:group/70'], pages: [['groups:c:group', 2], ['g:c:group/70', 0]] });
  assert.ok(lws.nodes.some((n) => n.pod === 'vllm-405b-70-19'));
  assert.equal(buildGraph(tree, 'Running', { reveal: 'no-such-pod' }).revealed, undefined);
});

test('pods no component claims are listed, and paged, like any other', () => {
  const tree = jobSetTree(1, 1);
  tree.unmatchedPods = Array.from({ length: 30 }, (_, i) => pod(`stray-${i}`, null, null, 0));
  const g = buildGraph(tree, 'Degraded');
  assert.equal(g.nodes.find((n) => n.id === 'pods:unmatched')?.title, '30 pods');
  const open = buildGraph(tree, 'Degraded', { expanded: new Set(['pods:unmatched']) });
  assert.equal(open.nodes.filter((n) => n.parent === 'pods:unmatched')[0].id, 'u:team-a/stray-0');
});
