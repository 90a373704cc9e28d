import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { planComponentUpdate, planPodTemplateUpdate, planSuspend, templateContainers } from './updates.ts';
import { compileOne, JOBSET_DEFINITION, jobSetObjects } from './test-support.ts';
import { applyJsonPatch } from './json-patch.ts';
import type { KubeObject } from './k8s.ts';

const def = compileOne(JOBSET_DEFINITION);

test('labels and scheduler name on every instance: one patch with an optimistic-concurrency test', () => {
  const [root] = jobSetObjects();
  const r = planComponentUpdate(def, root, 'replicatedjob', { labels: { team: 'vision' }, schedulerName: 'kai-scheduler' });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.patch[0], { op: 'test', path: '/metadata/resourceVersion', value: '100' });
  const spec = r.object.spec as { replicatedJobs: Array<{ template: { spec: { template: { metadata: { labels: Record<string, string> }; spec: { schedulerName: string } } } } }> };
  for (const rj of spec.replicatedJobs) {
    assert.equal(rj.template.spec.template.metadata.labels.team, 'vision');
    assert.equal(rj.template.spec.template.metadata.labels.app, 'train', 'existing labels are kept');
    assert.equal(rj.template.spec.template.spec.schedulerName, 'kai-scheduler');
  }
  // The patch reproduces the object when applied to the original.
  assert.deepEqual(applyJsonPatch(root, r.patch), r.object);
  // The input is not mutated.
  assert.equal((root.spec as typeof spec).replicatedJobs[0].template.spec.template.spec.schedulerName, undefined);
});

test('per-instance changes never write null into the instances that have none', () => {
  const [root] = jobSetObjects();
  const r = planComponentUpdate(def, root, 'replicatedjob', { byInstance: { worker: { annotations: { 'kai.scheduler/topology': 'rack' } } } });
  assert.deepEqual(r.errors, []);
  const ops = r.patch.filter((o) => o.op !== 'test');
  assert.ok(ops.every((o) => o.path.startsWith('/spec/replicatedJobs/1/')), JSON.stringify(ops));
  assert.ok(ops.every((o) => 'value' in o && o.value !== null));
  const spec = r.object.spec as { replicatedJobs: Array<{ template: { spec: { template: { metadata: Record<string, unknown> } } } }> };
  assert.equal(spec.replicatedJobs[0].template.spec.template.metadata.annotations, undefined);
  assert.deepEqual(spec.replicatedJobs[1].template.spec.template.metadata.annotations, { 'kai.scheduler/topology': 'rack' });
});

test('a null label value removes the label; unknown instances and components are reported and nothing is planned', () => {
  const [root] = jobSetObjects();
  const r = planComponentUpdate(def, root, 'replicatedjob', { byInstance: { leader: { labels: { app: null } } } });
  assert.deepEqual(r.patch.filter((o) => o.op === 'remove').map((o) => o.path), ['/spec/replicatedJobs/0/template/spec/template/metadata/labels/app']);
  const ghost = planComponentUpdate(def, root, 'replicatedjob', { byInstance: { leader: { labels: { app: null } }, ghost: { labels: { a: 'b' } } } });
  assert.match(ghost.errors[0].message, /no instance "ghost" \(instances: leader, worker\)/);
  assert.deepEqual(ghost.patch, [], 'a plan with an error sends nothing');
  assert.match(planComponentUpdate(def, root, 'nope', { labels: {} }).errors[0].message, /component nope not found/);
});

test('suspend and resume patches follow the suspendDefinition', () => {
  const [root] = jobSetObjects();
  const s = planSuspend(def, root, 'suspend');
  assert.deepEqual(s.patch, [
    { op: 'test', path: '/metadata/resourceVersion', value: '100' },
    { op: 'add', path: '/spec/suspend', value: true },
  ]);
  assert.equal((s.object.spec as { suspend: boolean }).suspend, true);
  const r = planSuspend(def, s.object, 'resume');
  assert.equal((r.object.spec as { suspend: boolean }).suspend, false);
});

test('a definition without suspendDefinition says so', () => {
  const noSuspend = compileOne(JOBSET_DEFINITION.replace(/ {6}suspendDefinition:[\s\S]*?resumeActions: .*\n/, ''));
  const [root] = jobSetObjects();
  assert.match(planSuspend(noSuspend, root, 'suspend').errors[0].message, /does not have suspendDefinition/);
});

/** A JobSet whose worker template has two containers and an env list with a valueFrom entry. */
function twoContainerJobSet(): KubeObject {
  const [root] = jobSetObjects();
  const worker = (root.spec as { replicatedJobs: Array<{ template: { spec: { template: { spec: { containers: unknown[]; initContainers?: unknown[] } } } } }> }).replicatedJobs[1].template.spec.template.spec;
  worker.containers = [
    { name: 'trainer', image: 'img:v1', env: [{ name: 'A', value: '1' }, { name: 'SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, { name: 'B', value: '2' }], resources: { limits: { 'nvidia.com/gpu': 4 } } },
    { name: 'sidecar', image: 'side:v1' },
  ];
  worker.initContainers = [{ name: 'fetch', image: 'fetch:v1' }];
  return root;
}

const workerSpec = (o: KubeObject) =>
  (o.spec as { replicatedJobs: Array<{ template: { spec: { template: { spec: { containers: Array<Record<string, unknown>>; initContainers: Array<Record<string, unknown>> } } } } }> }).replicatedJobs[1].template.spec.template.spec;

test('a container is addressed by name: the sidecar and an init container, not the first one', () => {
  const root = twoContainerJobSet();
  const r = planPodTemplateUpdate(def, root, [{ component: 'replicatedjob', instance: 'worker' }], { containers: { sidecar: { image: 'side:v2' }, fetch: { image: 'fetch:v2' } } });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.patch.slice(1), [
    { op: 'add', path: '/spec/replicatedJobs/1/template/spec/template/spec/containers/1/image', value: 'side:v2' },
    { op: 'add', path: '/spec/replicatedJobs/1/template/spec/template/spec/initContainers/0/image', value: 'fetch:v2' },
  ]);
  assert.equal(workerSpec(r.object).containers[0].image, 'img:v1');
  assert.deepEqual(applyJsonPatch(root, r.patch), r.object);
});

test('an unknown container names the containers of that template', () => {
  const root = twoContainerJobSet();
  assert.deepEqual(templateContainers(def, root, { component: 'replicatedjob', instance: 'worker' }).containers, [{ name: 'trainer', init: false }, { name: 'sidecar', init: false }, { name: 'fetch', init: true }]);
  const r = planPodTemplateUpdate(def, root, [{ component: 'replicatedjob', instance: 'worker', role: 'worker' }], { containers: { main: { image: 'x:1' } } });
  assert.deepEqual(r.patch, []);
  assert.equal(r.errors[0].message, 'role worker has no container "main" (containers in its pod template: trainer, sidecar, fetch)');
});

test('env: set in place, append, remove; valueFrom entries not named are kept, order holds', () => {
  const root = twoContainerJobSet();
  const r = planPodTemplateUpdate(def, root, [{ component: 'replicatedjob', instance: 'worker' }], { containers: { trainer: { env: { B: '3', A: null, C: '4' } } } });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(workerSpec(r.object).containers[0].env, [
    { name: 'SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
    { name: 'B', value: '3' },
    { name: 'C', value: '4' },
  ]);
  assert.deepEqual(applyJsonPatch(root, r.patch), r.object);
  // A container without an env list gets one; setting what is there already changes nothing.
  const side = planPodTemplateUpdate(def, root, [{ component: 'replicatedjob', instance: 'worker' }], { containers: { sidecar: { env: { X: 'y' } } } });
  assert.deepEqual(workerSpec(side.object).containers[1].env, [{ name: 'X', value: 'y' }]);
  assert.deepEqual(planPodTemplateUpdate(def, root, [{ component: 'replicatedjob', instance: 'worker' }], { containers: { trainer: { env: { A: '1', Z: null } } } }).patch, []);
  // Asked by name, a valueFrom entry becomes a plain value.
  const plain = planPodTemplateUpdate(def, root, [{ component: 'replicatedjob', instance: 'worker' }], { containers: { trainer: { env: { SECRET: 'open' } } } });
  assert.deepEqual(workerSpec(plain.object).containers[0].env, [{ name: 'A', value: '1' }, { name: 'SECRET', value: 'open' }, { name: 'B', value: '2' }]);
});

test('resources merge key by key; invalid quantities and requests above limits are errors', () => {
  const root = twoContainerJobSet();
  const at = [{ component: 'replicatedjob', instance: 'worker' }];
  const r = planPodTemplateUpdate(def, root, at, { containers: { trainer: { resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { 'nvidia.com/gpu': '2' } } } } });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(workerSpec(r.object).containers[0].resources, { limits: { 'nvidia.com/gpu': '2' }, requests: { cpu: '1', memory: '2Gi' } });
  const same = planPodTemplateUpdate(def, root, at, { containers: { trainer: { resources: { limits: { 'nvidia.com/gpu': '4' } } } } });
  assert.deepEqual(same.patch, [], '"4" is the 4 that is there');
  const removed = planPodTemplateUpdate(def, root, at, { containers: { trainer: { resources: { limits: { 'nvidia.com/gpu': null } } } } });
  assert.deepEqual(workerSpec(removed.object).containers[0].resources, { limits: {} });
  assert.match(planPodTemplateUpdate(def, root, at, { containers: { trainer: { resources: { requests: { cpu: 'lots' } } } } }).errors[0].message, /invalid quantity "lots" for requests\.cpu: quantities must match/);
  assert.match(planPodTemplateUpdate(def, root, at, { containers: { trainer: { resources: { requests: { cpu: '-1' } } } } }).errors[0].message, /must not be negative/);
  const over = planPodTemplateUpdate(def, root, at, { containers: { trainer: { resources: { requests: { 'nvidia.com/gpu': '8' } } } } });
  assert.match(over.errors[0].message, /requests\.nvidia\.com\/gpu \(8\) would be more than limits\.nvidia\.com\/gpu \(4\)/);
  assert.deepEqual(over.patch, []);
});

test('label keys and values follow Kubernetes rules; replaced values are reported for --overwrite', () => {
  const [root] = jobSetObjects();
  const bad = planComponentUpdate(def, root, 'replicatedjob', { labels: { 'Bad_Prefix/x': 'a', ok: 'has space', '-lead': 'v', 'x/y/z': 'v' } });
  assert.deepEqual(bad.errors.map((e) => e.code), ['update.label', 'update.label', 'update.label', 'update.label']);
  assert.match(bad.errors[0].message, /invalid label Bad_Prefix\/x=a: the prefix "Bad_Prefix" must be a lowercase DNS subdomain/);
  assert.match(bad.errors[1].message, /invalid label ok=has space: a label value must be 63 characters or less/);
  assert.match(planComponentUpdate(def, root, 'replicatedjob', { labels: { v: 'x'.repeat(64) } }).errors[0].message, /label value must be 63/);
  assert.match(planComponentUpdate(def, root, 'replicatedjob', { annotations: { 'a b': 'anything goes in a value' } }).errors[0].message, /invalid annotation key "a b"/);
  assert.deepEqual(planComponentUpdate(def, root, 'replicatedjob', { annotations: { 'example.com/note': 'any value: at all, with spaces' }, labels: { 'example.com/team': '', team: 'a.b-c_d' } }).errors, []);
  const over = planComponentUpdate(def, root, 'replicatedjob', { labels: { app: 'other', fresh: 'x' } });
  assert.deepEqual(over.replaced, [{ field: 'labels', key: 'app', from: 'train', to: 'other' }]);
});

const catalogDef = (file: string) => compileOne(readFileSync(fileURLToPath(new URL(`../../catalog/${file}`, import.meta.url)), 'utf8'));

test('an LWS leader without a leaderTemplate runs the worker template: changing one says the other changes too', () => {
  const lws = catalogDef('leaderworkerset-x-k8s-io-leaderworkerset-v1.yaml');
  const root: KubeObject = {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: 'serve', namespace: 'default', resourceVersion: '7' },
    spec: { replicas: 2, leaderWorkerTemplate: { size: 4, workerTemplate: { spec: { containers: [{ name: 'vllm', image: 'vllm:1' }] } } } },
  };
  const r = planPodTemplateUpdate(lws, root, [{ component: 'leader', role: 'leader' }], { containers: { vllm: { image: 'vllm:2' } } });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.patch[1], { op: 'add', path: '/spec/leaderWorkerTemplate/workerTemplate/spec/containers/0/image', value: 'vllm:2' });
  assert.deepEqual(r.alsoChanged, [{ component: 'worker', instance: '' }]);
  // With a template of its own, the leader changes alone.
  const own = structuredClone(root);
  (own.spec as { leaderWorkerTemplate: Record<string, unknown> }).leaderWorkerTemplate.leaderTemplate = { spec: { containers: [{ name: 'vllm', image: 'vllm:1' }] } };
  const alone = planPodTemplateUpdate(lws, own, [{ component: 'leader' }], { containers: { vllm: { image: 'vllm:2' } } });
  assert.deepEqual(alone.patch[1].path, '/spec/leaderWorkerTemplate/leaderTemplate/spec/containers/0/image');
  assert.deepEqual(alone.alsoChanged, []);
  // Both roles at once (labels on every role): the shared template is written once.
  const both = planPodTemplateUpdate(lws, root, [{ component: 'leader' }, { component: 'worker' }], { labels: { team: 'a' } });
  assert.equal(both.patch.length, 2);
  assert.deepEqual(both.alsoChanged, []);
});

test("a fragmented spec: the main container by its name, its image at imagePath; a computed resourcesPath blocks only resources", () => {
  const dgd = catalogDef('nvidia-com-dynamographdeployment-v1alpha1.yaml');
  const root: KubeObject = {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'g', namespace: 'default', resourceVersion: '3' },
    spec: { services: { Frontend: { replicas: 1, extraPodSpec: { mainContainer: { name: 'main', image: 'dynamo:1' } } }, Worker: { replicas: 2, resources: { limits: { gpu: '1' } }, extraPodSpec: { mainContainer: { image: 'dynamo:1' } } } } },
  };
  const img = planPodTemplateUpdate(dgd, root, [{ component: 'service', instance: 'Worker' }], { containers: { main: { image: 'dynamo:2' } } });
  assert.deepEqual(img.errors, []);
  assert.deepEqual(img.patch[1], { op: 'add', path: '/spec/services/Worker/extraPodSpec/mainContainer/image', value: 'dynamo:2' });
  const labels = planPodTemplateUpdate(dgd, root, [{ component: 'service' }], { labels: { team: 'a' } });
  assert.deepEqual(labels.errors, []);
  assert.equal(labels.patch.length, 3);
  const res = planPodTemplateUpdate(dgd, root, [{ component: 'service', instance: 'Worker' }], { containers: { main: { resources: { limits: { cpu: '2' } } } } });
  assert.equal(res.patch.length, 0);
  assert.equal(res.errors[0].code, 'update.not-writable');
  assert.match(res.errors[0].message, /^resourcesPath of this definition computes a value rather than pointing at a field/);
});
