/**
 * Grouping per framework, on trees resolved from the catalog's fixtures (as the server resolves
 * them) and on generated trees of the same shapes at scale.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveFixture } from '../../catalog/testing.ts';
import { buildGraph, type GraphModel, type GraphNode } from './build-graph.ts';
import { layoutModel } from './layout.ts';
import { jobSetJobsTree, lwsTree } from './test-trees.ts';
import { assertLinearTime } from '../../lib/testing/linear-time.ts';

const node = (g: GraphModel, id: string): GraphNode => {
  const n = g.nodes.find((x) => x.id === id);
  assert.ok(n, `no node ${id} in ${g.nodes.map((x) => x.id).join(', ')}`);
  return n;
};
const inside = (g: GraphModel, id: string) => g.nodes.filter((n) => n.parent === id).map((n) => n.title);
const children = (g: GraphModel, id: string) => g.edges.filter((e) => e.source === id).map((e) => e.target);

test('LeaderWorkerSet: each group is its leader and its workers together, under the group component', () => {
  const g = buildGraph(resolveFixture('leaderworkerset-x-k8s-io-leaderworkerset-v1', 'running'), 'Running');
  assert.deepEqual(children(g, 'workload'), ['c:group']);
  assert.deepEqual(children(g, 'c:group'), ['g:c:group/0', 'g:c:group/1']);
  assert.deepEqual(inside(g, 'g:c:group/0'), ['llama-405b-0', 'llama-405b-0-1', 'llama-405b-0-2', 'llama-405b-0-3']);
  assert.deepEqual(inside(g, 'g:c:group/1'), ['llama-405b-1', 'llama-405b-1-1', 'llama-405b-1-2', 'llama-405b-1-3']);
  const g0 = node(g, 'g:c:group/0');
  assert.equal(g0.title, 'group 0');
  // The real objects: the leader StatefulSet and this group's worker StatefulSet.
  assert.equal(g0.objects, 'StatefulSets llama-405b, llama-405b-0');
  assert.equal(g0.subtitle, '4 Running');
  assert.equal(g0.gpus, 32);
  // The leader and worker StatefulSets are in every group, not drawn beside them; the group component stands for them.
  assert.ok(!g.nodes.some((n) => n.id === 'c:leader' || n.id === 'c:worker'));
  assert.match(node(g, 'c:group').subtitle, /2 groups of leader \+ worker/);
  assert.equal(node(g, 'c:group').gpus, 64);
  // Pods say their role when a group mixes them.
  assert.match(node(g, 'p:llm-serving/llama-405b-0').subtitle, /^leader · Running/);
  assert.match(node(g, 'p:llm-serving/llama-405b-0-1').subtitle, /^worker · Running/);
});

test('LeaderWorkerSet pending: the group shows why its pods wait, each pod its reason', () => {
  const g = buildGraph(resolveFixture('leaderworkerset-x-k8s-io-leaderworkerset-v1', 'pending'), 'Initializing');
  assert.equal(node(g, 'g:c:group/0').subtitle, '4 Pending (Unschedulable)');
  assert.equal(node(g, 'g:c:group/0').tone, 'wait');
  assert.equal(node(g, 'p:llm-serving/llama-405b-0-1').subtitle, 'worker · Pending · Unschedulable');
});

test('JobSet: per replicated-job instance, a group per Job index named by its Job; one-pod Jobs are just pods', () => {
  const g = buildGraph(resolveFixture('jobset-x-k8s-io-jobset-v1alpha2', 'running-multi'), 'Running');
  assert.deepEqual(children(g, 'c:replicatedjob'), ['i:replicatedjob/driver', 'i:replicatedjob/trainer']);
  assert.deepEqual(children(g, 'i:replicatedjob/trainer'), ['g:i:replicatedjob/trainer/0', 'g:i:replicatedjob/trainer/1']);
  assert.equal(node(g, 'g:i:replicatedjob/trainer/0').objects, 'Job nemo-pretrain-trainer-0');
  assert.equal(node(g, 'g:i:replicatedjob/trainer/1').title, 'trainer 1');
  assert.deepEqual(inside(g, 'g:i:replicatedjob/trainer/1'), ['nemo-pretrain-trainer-1-0-qn878', 'nemo-pretrain-trainer-1-1-fclrq']);
  // The driver's single one-pod Job: the pod hangs off its instance, which names the Job.
  assert.deepEqual(children(g, 'i:replicatedjob/driver'), ['p:team-a/nemo-pretrain-driver-0-0-vw422']);
  assert.equal(node(g, 'i:replicatedjob/driver').objects, 'Job nemo-pretrain-driver-0');
  assert.equal(node(g, 'i:replicatedjob/trainer').objects, 'Jobs nemo-pretrain-trainer-0, nemo-pretrain-trainer-1');
  // Leader before workers, -0 before -1.
  const ok = buildGraph(resolveFixture('jobset-x-k8s-io-jobset-v1alpha2', 'succeeded'), 'Completed');
  assert.deepEqual(children(ok, 'c:replicatedjob'), ['i:replicatedjob/leader', 'i:replicatedjob/worker']);
  assert.deepEqual(children(ok, 'i:replicatedjob/worker'), ['p:team-a/llama-train-worker-0-0-ld45t', 'p:team-a/llama-train-worker-1-0-7mx59']);
  // A finished JobSet is done, not "0/3 ready" in warning colour.
  assert.equal(node(ok, 'i:replicatedjob/worker').tone, 'done');
  assert.match(node(ok, 'p:team-a/llama-train-worker-0-0-ld45t').subtitle, /^Succeeded/);
});

test('Ray: worker groups are instances, pods under them; the head first', () => {
  const g = buildGraph(resolveFixture('ray-io-raycluster-v1', 'running'), 'Running');
  assert.deepEqual(children(g, 'workload'), ['c:head', 'c:worker']);
  assert.deepEqual(children(g, 'c:worker'), ['i:worker/gpu-group', 'i:worker/mig-group']);
  assert.equal(children(g, 'i:worker/gpu-group').length, 2);
  assert.ok(!g.nodes.some((n) => n.type === 'group'));
});

test('Dynamo: services are instances; a multi-node service groups its leader and worker by replica', () => {
  for (const slug of ['nvidia-com-dynamographdeployment-v1beta1', 'nvidia-com-dynamographdeployment-v1alpha1']) {
    const g = buildGraph(resolveFixture(slug, slug.endsWith('v1beta1') ? 'component-running' : 'grove-running'), 'Running');
    assert.deepEqual(children(g, 'c:service'), ['i:service/Frontend', 'i:service/VllmDecodeWorker', 'i:service/VllmPrefillWorker'], slug);
    assert.equal(children(g, 'i:service/VllmDecodeWorker').length, 2, slug);
    assert.deepEqual(children(g, 'i:service/VllmPrefillWorker'), ['g:i:service/VllmPrefillWorker/0'], slug);
    assert.equal(inside(g, 'g:i:service/VllmPrefillWorker/0').length, 2, slug);
    assert.equal(node(g, 'g:i:service/VllmPrefillWorker/0').title, 'VllmPrefillWorker 0');
  }
});

test('PyTorchJob and MPIJob: a replica index per pod is no group; pods in natural order', () => {
  const g = buildGraph(resolveFixture('kubeflow-org-pytorchjob-v1', 'running'), 'Running');
  assert.deepEqual(children(g, 'workload'), ['c:master', 'c:worker']);
  assert.deepEqual(children(g, 'c:worker'), ['p:team-b/bert-finetune-worker-0', 'p:team-b/bert-finetune-worker-1', 'p:team-b/bert-finetune-worker-2']);
  // The PyTorchJob owns its pods itself: no object names repeat the workload's.
  assert.equal(node(g, 'c:worker').objects, undefined);
  const m = buildGraph(resolveFixture('kubeflow-org-mpijob-v2beta1', 'running'), 'Running');
  assert.ok(!m.nodes.some((n) => n.type === 'group'));
});

test('NIMService multi-node: its LeaderWorkerSet groups like one', () => {
  const g = buildGraph(resolveFixture('apps-nvidia-com-nimservice-v1alpha1', 'multi-node-running'), 'Running');
  assert.deepEqual(inside(g, 'g:c:group/0'), ['deepseek-r1-lws-0', 'deepseek-r1-lws-0-1']);
  assert.deepEqual(inside(g, 'g:c:group/1'), ['deepseek-r1-lws-1', 'deepseek-r1-lws-1-1']);
});

test('many LWS groups: one aggregate that pages through groups, problems first, each group with its pods', () => {
  const tree = lwsTree(100, 4);
  // Group 57's worker crashes.
  const i = tree.pods.findIndex((p) => p.name === 'vllm-405b-57-2');
  tree.pods[i] = { ...tree.pods[i], ready: false, why: { kind: 'waiting', reason: 'CrashLoopBackOff', message: '' } };
  const g = buildGraph(tree, 'Degraded');
  const agg = node(g, 'groups:c:group');
  assert.equal(agg.title, '100 groups · 400 pods');
  assert.equal(agg.subtitle, '399 Running · 1 Not ready (CrashLoopBackOff)');
  assert.equal(agg.gpus, 3200);
  assert.equal(agg.toggleLabel, 'Show 100 groups');
  assert.ok(!g.nodes.some((n) => n.type === 'pod' || n.type === 'group'));
  assert.ok(g.nodes.length < 10);

  const open = buildGraph(tree, 'Degraded', { expanded: new Set(['groups:c:group']) });
  // A page of groups holds about a page of pods (24): 6 groups of 4, drawn inside the page.
  const groups = open.nodes.filter((n) => n.parent === 'groups:c:group').map((n) => n.id);
  assert.equal(groups.length, 6);
  assert.deepEqual(children(open, 'groups:c:group'), []);
  // The group with a problem first, then 0, 1, 2 … in natural order.
  assert.deepEqual(groups, ['g:c:group/57', 'g:c:group/0', 'g:c:group/1', 'g:c:group/2', 'g:c:group/3', 'g:c:group/4']);
  assert.deepEqual(inside(open, 'g:c:group/57'), ['vllm-405b-57', 'vllm-405b-57-1', 'vllm-405b-57-2', 'vllm-405b-57-3']);
  assert.equal(node(open, 'p:team-a/vllm-405b-57-2').subtitle, 'worker · Running, not ready · CrashLoopBackOff · node-vllm-405b-57-2');
  assert.deepEqual(node(open, 'groups:c:group').page, { index: 0, count: 17, from: 1, to: 6, total: 100, what: 'groups' });
  const p2 = buildGraph(tree, 'Degraded', { expanded: new Set(['groups:c:group']), pages: new Map([['groups:c:group', 1]]) });
  assert.deepEqual(inside(p2, 'groups:c:group'), ['group 5', 'group 6', 'group 7', 'group 8', 'group 9', 'group 10']);
  const last = buildGraph(tree, 'Degraded', { expanded: new Set(['groups:c:group']), pages: new Map([['groups:c:group', 16]]) });
  assert.deepEqual(inside(last, 'groups:c:group'), ['group 96', 'group 97', 'group 98', 'group 99']);
  // Laid out as a grid of groups inside the page, each group's pods inside it.
  const { positions, sizes } = layoutModel(open.nodes, open.edges);
  const page = sizes.get('groups:c:group')!;
  for (const id of groups) {
    const p = positions.get(id)!;
    const s = sizes.get(id)!;
    assert.ok(p.x >= 0 && p.y >= 0 && p.x + s.width <= page.width && p.y + s.height <= page.height, id);
  }
  assert.ok(new Set(groups.map((id) => positions.get(id)!.x)).size > 1, 'more than one column of groups');
});

test('a JobSet of 500 four-pod Jobs and one of 10,000 one-pod Jobs stay a handful of nodes until opened', () => {
  const jobs = jobSetJobsTree(500, 4);
  const g = buildGraph(jobs, 'Running');
  assert.equal(node(g, 'groups:i:replicatedjob/worker').title, '500 groups · 2,000 pods');
  assert.equal(node(g, 'i:replicatedjob/worker').objects, '500 Jobs: llama-finetune-workers-0 … llama-finetune-workers-499');
  const open = buildGraph(jobs, 'Running', { expanded: new Set(['groups:i:replicatedjob/worker']) });
  assert.ok(open.nodes.length <= 5 + 6 * 5 + 2, String(open.nodes.length));
  assert.equal(node(open, 'g:i:replicatedjob/worker/3').objects, 'Job llama-finetune-workers-3');
  // Four pods of one Job never all read "llama-finetune-workers-3-…": the pod index and suffix stay.
  const labels = open.nodes.filter((n) => n.parent === 'g:i:replicatedjob/worker/3').map((n) => n.label ?? n.title);
  assert.equal(new Set(labels).size, 4);
  for (const [p, l] of labels.entries()) assert.match(l, new RegExp(`…${p}-q...z$`));

  const wide = jobSetJobsTree(10_000, 1);
  const w = buildGraph(wide, 'Running');
  assert.equal(node(w, 'pods:i:replicatedjob/worker').title, '10,000 pods');
  assert.ok(w.nodes.length < 10);
  const page3 = { expanded: new Set(['pods:i:replicatedjob/worker']), pages: new Map([['pods:i:replicatedjob/worker', 3]]) };
  const wOpen = buildGraph(wide, 'Running', page3);
  assert.equal(wOpen.nodes.filter((n) => n.parent === 'pods:i:replicatedjob/worker').length, 24);
  assert.equal(wOpen.nodes.filter((n) => n.parent === 'pods:i:replicatedjob/worker')[0].title.startsWith('llama-finetune-workers-72-'), true);
  // Built and opened in time proportional to the pods (the browser benchmark measures the figures).
  const trees = new Map<number, ReturnType<typeof jobSetJobsTree>>();
  const treeOf = (n: number) => trees.get(n) ?? trees.set(n, jobSetJobsTree(n, 1)).get(n)!;
  assertLinearTime((n) => void buildGraph(treeOf(n), 'Running'), 10_000, 'the graph of a JobSet of one-pod Jobs');
  assertLinearTime((n) => void buildGraph(treeOf(n), 'Running', page3), 10_000, 'the same graph with a page of its pods open');
});
