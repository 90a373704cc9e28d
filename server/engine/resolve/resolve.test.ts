import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveWorkload } from './resolve.ts';
import { compileOne, JOBSET_DEFINITION, jobSetObjects } from '../test-support.ts';
import type { KubeObject } from '../k8s.ts';

const def = compileOne(JOBSET_DEFINITION);
const resolve = (objects: KubeObject[]) => resolveWorkload(def, objects[0], objects, { cluster: 'test' });

test('canonical example: JobSet with a leader and two workers at 4 GPUs each is one Running workload with 12 GPUs', () => {
  const tree = resolve(jobSetObjects());
  assert.deepEqual(tree.errors, []);
  assert.deepEqual(tree.status.matched, ['Running']);
  assert.deepEqual(tree.workload, { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'default', name: 'train', uid: 'uid-train', cluster: 'test' });
  assert.deepEqual(
    tree.roles.map((r) => [r.name, r.component, r.desiredPods, r.livePods, r.readyPods, r.gpusPerPod]),
    [
      ['leader', 'replicatedjob', 1, 1, 1, { 'nvidia.com/gpu': 4 }],
      ['worker', 'replicatedjob', 2, 2, 2, { 'nvidia.com/gpu': 4 }],
    ],
  );
  assert.equal(tree.gpus.desired.total, 12);
  assert.equal(tree.gpus.requested.total, 12);
  assert.equal(tree.gpus.allocated.total, 12);
  assert.deepEqual(tree.gpus.allocated.byResource, { 'nvidia.com/gpu': 12 });
  assert.deepEqual(tree.unmatchedPods, []);
  assert.deepEqual(
    tree.pods.map((p) => [p.name, p.component, p.instance, p.replica, p.node]).sort(),
    [
      ['train-leader-0-0-x0k2p', 'replicatedjob', 'leader', '0', 'gpu-node-0'],
      ['train-worker-0-0-x0k2p', 'replicatedjob', 'worker', '0', 'gpu-node-0'],
      ['train-worker-1-0-x1k2p', 'replicatedjob', 'worker', '1', 'gpu-node-1'],
    ],
  );
  const comp = tree.components.find((c) => c.name === 'replicatedjob')!;
  assert.deepEqual(comp.instances.map((i) => [i.id, i.replicas, i.livePods]), [['leader', 1, 1], ['worker', 2, 2]]);
  assert.equal(comp.parent, 'jobset');
  assert.equal(tree.pods.find((p) => p.name === 'train-worker-1-0-x1k2p')!.restarts, 2);
});

test('pending pods: requested but not allocated; desired unchanged', () => {
  const tree = resolve(jobSetObjects({ state: 'pending' }));
  assert.deepEqual(tree.status.matched, ['Initializing']);
  assert.equal(tree.gpus.desired.total, 12);
  assert.equal(tree.gpus.requested.total, 12);
  assert.equal(tree.gpus.allocated.total, 0);
  assert.ok(tree.pods.every((p) => !p.allocated && p.node === null));
});

test('finished pods hold no GPUs', () => {
  const tree = resolve(jobSetObjects({ state: 'completed' }));
  assert.deepEqual(tree.status.matched, ['Completed']);
  assert.equal(tree.gpus.requested.total, 0);
  assert.equal(tree.gpus.allocated.total, 0);
  assert.equal(tree.gpus.desired.total, 12);
  assert.deepEqual(tree.roles.map((r) => r.livePods), [0, 0]);
});

test('pods no component claims are unmatched, and unrelated objects are ignored', () => {
  const objects = jobSetObjects();
  const stray: KubeObject = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'debug-shell', namespace: 'default', uid: 'uid-debug', ownerReferences: [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'train', uid: 'uid-train' }] },
    spec: { nodeName: 'n', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': 1 } } }] },
    status: { phase: 'Running' },
  };
  const unrelated: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other', namespace: 'default', uid: 'u-other' }, spec: {}, status: { phase: 'Running' } };
  const tree = resolve([...objects, stray, unrelated]);
  assert.deepEqual(tree.unmatchedPods.map((p) => p.name), ['debug-shell']);
  assert.equal(tree.pods.length, 3);
  // The stray pod holds a GPU: it counts in requested and allocated, not in desired.
  assert.equal(tree.gpus.allocated.total, 13);
  assert.equal(tree.gpus.desired.total, 12);
});

test('a pod whose instance id matches no instance is reported, not thrown', () => {
  const objects = jobSetObjects();
  const pod = objects.find((o) => o.kind === 'Pod' && o.metadata!.name!.startsWith('train-worker-1'))!;
  pod.metadata!.labels!['jobset.sigs.k8s.io/replicatedjob-name'] = 'ghost';
  const tree = resolve(objects);
  const p = tree.pods.find((x) => x.name === pod.metadata!.name)!;
  assert.equal(p.instance, null);
  assert.equal(tree.errors.length, 1);
  assert.equal(tree.errors[0].code, 'pod.instance-not-found');
  assert.match(tree.errors[0].message, /could not match instance id "ghost".*\[leader, worker\]/);
  assert.equal(tree.errors[0].path, 'spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath');
});

test('objects of unexpected shape yield errors in the tree, never exceptions', () => {
  const objects = jobSetObjects();
  (objects[0].spec as Record<string, unknown>).replicatedJobs = 'not-a-list';
  objects.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'weird', uid: 'w', ownerReferences: [{ uid: 'uid-train' }] as never }, spec: 'nope', status: 7 } as KubeObject);
  const tree = resolve(objects);
  assert.ok(tree.errors.length > 0);
  assert.ok(tree.errors.every((e) => typeof e.message === 'string' && e.path.startsWith('spec.structureDefinition')));
  assert.match(tree.errors[0].message, /childComponents\[0\]\.instanceIdPath: jq expression ".spec.replicatedJobs\[\].name" failed on JobSet default\/train: cannot iterate over/);
});

test('a root of the wrong kind is reported', () => {
  const objects = jobSetObjects();
  const job = objects[1];
  const tree = resolveWorkload(def, job, objects);
  assert.equal(tree.errors[0].code, 'object.kind-mismatch');
});

test('GPUs at every level: per instance and per component, by the same rules as the workload', () => {
  const objects = jobSetObjects();
  // One worker finished, one stray pod holds a GPU.
  const done = objects.find((o) => o.kind === 'Pod' && o.metadata!.name!.startsWith('train-worker-1'))!;
  done.status = { ...(done.status as object), phase: 'Succeeded' };
  objects.push({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'debug-shell', namespace: 'default', uid: 'uid-debug', ownerReferences: [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'train', uid: 'uid-train' }] },
    spec: { nodeName: 'n', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': 1 } } }] },
    status: { phase: 'Running' },
  });
  const tree = resolve(objects);
  const totals = (f: { desired: { total: number }; requested: { total: number }; allocated: { total: number } }) => [f.desired.total, f.requested.total, f.allocated.total];
  const rj = tree.components.find((c) => c.name === 'replicatedjob')!;
  assert.deepEqual(Object.fromEntries(rj.instances.map((i) => [i.id, totals(i.gpus)])), { leader: [4, 4, 4], worker: [8, 4, 4] });
  assert.deepEqual(rj.instances[1].gpus.desired.byResource, { 'nvidia.com/gpu': 8 });
  assert.deepEqual(totals(rj.gpus), [12, 8, 8]);
  // The structural root claims no pods and asks for nothing itself.
  assert.deepEqual(totals(tree.components.find((c) => c.name === 'jobset')!.gpus), [0, 0, 0]);
  assert.deepEqual(totals(tree.unmatchedGpus), [0, 1, 1]);
  assert.deepEqual(totals(tree.gpus), [12, 9, 9]);
});

test('pending pods: requested at their instance, allocated nowhere', () => {
  const tree = resolve(jobSetObjects({ state: 'pending' }));
  const rj = tree.components.find((c) => c.name === 'replicatedjob')!;
  assert.deepEqual(rj.instances.map((i) => [i.id, i.gpus.requested.total, i.gpus.allocated.total]), [['leader', 4, 0], ['worker', 8, 0]]);
});

test('whatever goes wrong inside, the caller gets a tree with an engine.internal error', () => {
  const objects = jobSetObjects();
  // An owned object whose property access throws: nothing in the engine anticipates this.
  const hostile = new Proxy(objects[3], { get: (t, k) => (k === 'kind' ? (() => { throw new RangeError('Maximum call stack size exceeded'); })() : Reflect.get(t, k)) });
  const tree = resolveWorkload(def, objects[0], [...objects.slice(0, 3), hostile, ...objects.slice(4)], { cluster: 'test' });
  assert.equal(tree.errors.length, 1);
  assert.equal(tree.errors[0].code, 'engine.internal');
  assert.match(tree.errors[0].message, /JobSet default\/train with definition ".*" failed: Maximum call stack size exceeded/);
  assert.deepEqual(tree.status.matched, ['Undefined']);
  assert.equal(tree.workload.name, 'train');
});
