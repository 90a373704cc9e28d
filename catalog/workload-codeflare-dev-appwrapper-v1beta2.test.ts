// AppWrapper (workload.codeflare.dev/v1beta2): roles are its pod sets, whatever kind each component is;
// the pods belong to the wrapped objects (a PyTorchJob, a batch Job) and are counted here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangsInTreeOrder, resolveFixture } from './testing.ts';

const SLUG = 'workload-codeflare-dev-appwrapper-v1beta2';
const UID = '6f1e2d3c-4b5a-4e7f-9a1b-2c3d4e5f6a7b';
const GPU1 = { 'nvidia.com/gpu': 1 };
// Pod set 0 = the PyTorchJob's Master template, pod set 1 = its Worker template (the declared paths).
const PODS = {
  'mnist-ddp-master-0': 'podset/mnist-ddp-0',
  'mnist-ddp-worker-0': 'podset/mnist-ddp-1',
  'mnist-ddp-worker-1': 'podset/mnist-ddp-1',
};
const roles = (live: number, ready: number, master = live > 0 ? 1 : 0) => ({
  'mnist-ddp-0': { desired: 1, live: master, ready: Math.min(ready, master), gpusPerPod: GPU1 },
  'mnist-ddp-1': { desired: 2, live: live - master, ready: ready - Math.min(ready, master), gpusPerPod: GPU1 },
});

/** Kueue admits the AppWrapper as one unit: one PodGroup of every pod of every pod set. */
const GANG = [{ name: `pg-${UID}-mnist-ddp`, minMember: 3, pods: Object.keys(PODS) }];

test('suspended: queued in Kueue, pod sets recorded in status, nothing deployed', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), { status: ['Suspended'], roles: roles(0, 0), pods: {}, unmatched: [], gpus: { desired: 3, requested: 0, allocated: 0 }, errors: [] });
  assert.deepEqual(gangsInTreeOrder(tree), []);
});

test('pending: admitted, the wrapped PyTorchJob\'s pods wait for L4 GPUs: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), { status: ['Initializing'], roles: roles(3, 0), pods: PODS, unmatched: [], gpus: { desired: 3, requested: 3, allocated: 0 }, errors: [] });
  assert.deepEqual(gangsInTreeOrder(tree), GANG);
});

test('running: PodsReady, pods two levels down (AppWrapper → PyTorchJob → Pod) placed by Kueue\'s pod-set label', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), { status: ['Running'], roles: roles(3, 3), pods: PODS, unmatched: [], gpus: { desired: 3, requested: 3, allocated: 3 }, errors: [] });
  assert.deepEqual(tree.pods.map((p) => p.node), ['l4-node-01', 'l4-node-01', 'l4-node-02']);
  assert.deepEqual(gangsInTreeOrder(tree), GANG);
  // The roles follow the pod sets' paths into the wrapped object: the pod templates' GPUs are the desired ones.
  assert.deepEqual(tree.components.find((c) => c.name === 'podset')!.instances.map((i) => [i.id, i.replicas]), [['mnist-ddp-0', 1], ['mnist-ddp-1', 2]]);
});

test('degraded: Resetting after a failed component, deleted, waiting to retry', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  assert.deepEqual(digest(tree), { status: ['Degraded'], roles: roles(0, 0), pods: {}, unmatched: [], gpus: { desired: 3, requested: 0, allocated: 0 }, errors: [] });
  assert.equal(tree.status.phase, 'Resetting');
});

test('failed: retry limit reached, resources deleted', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), { status: ['Failed'], roles: roles(0, 0), pods: {}, unmatched: [], gpus: { desired: 3, requested: 0, allocated: 0 }, errors: [] });
});

test('succeeded: every pod Succeeded; the finished pods stay, holding nothing', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), { status: ['Completed'], roles: roles(0, 0), pods: PODS, unmatched: [], gpus: { desired: 3, requested: 0, allocated: 0 }, errors: [] });
});

test('job: a wrapped batch Job whose pod set the controller inferred (status.componentStatus, no declared podSets)', () => {
  const tree = resolveFixture(SLUG, 'job');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: { 'shard-embed-0': { desired: 2, live: 2, ready: 2, gpusPerPod: GPU1 } },
    pods: { 'shard-embed-0-x7k2p': 'podset/shard-embed-0', 'shard-embed-1-q9m4d': 'podset/shard-embed-0' },
    unmatched: [],
    gpus: { desired: 2, requested: 2, allocated: 2 },
    errors: [],
  });
  assert.deepEqual(gangsInTreeOrder(tree), [{ name: 'pg-0d5c7b3a-2e1f-4a9b-8c7d-6e5f4a3b2c1d-shard-embed', minMember: 2, pods: ['shard-embed-0-x7k2p', 'shard-embed-1-q9m4d'] }]);
});
