import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, fixtureObjects, gangsInTreeOrder, resolveFixture, resolveObjects } from './testing.ts';

const SLUG = 'agents-x-k8s-io-sandbox-v1beta1';
// FNV-1a (32 bit, hex) of the Sandbox names: the controller's agents.x-k8s.io/sandbox-name-hash label.
const ALICE_HASH = '7de5918b';

function uidOf(state: string, kind: string): string {
  return fixtureObjects(SLUG, state).find((o) => o.kind === kind)!.metadata!.uid!;
}

test('pending: the pod waits for an L4 GPU', () => {
  const tree = resolveFixture(SLUG, 'pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  assert.deepEqual(d.roles, { pod: { desired: 1, live: 1, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 1 } } });
  assert.deepEqual(d.pods, { 'agent-alice': 'pod/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 0 });
  assert.equal(tree.pods[0].node, null);
  assert.deepEqual(gangsInTreeOrder(tree), [{ name: `pg-${uidOf('pending', 'Sandbox')}-${ALICE_HASH}`, minMember: 1, pods: ['agent-alice'] }]);
});

test('running: one pod, Ready, on its L4 node', () => {
  const tree = resolveFixture(SLUG, 'running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, { pod: { desired: 1, live: 1, ready: 1, gpusPerPod: { 'nvidia.com/gpu': 1 } } });
  assert.deepEqual(d.pods, { 'agent-alice': 'pod/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 1 });
  assert.equal(tree.pods[0].node, 'gpu-l4-02');
  assert.equal(fixtureObjects(SLUG, 'running').find((o) => o.kind === 'Pod')!.metadata!.labels!['agents.x-k8s.io/sandbox-name-hash'], ALICE_HASH);
  assert.deepEqual(gangsInTreeOrder(tree), [{ name: `pg-${uidOf('running', 'Sandbox')}-${ALICE_HASH}`, minMember: 1, pods: ['agent-alice'] }]);
});

test('suspended (operatingMode Suspended): no pod, nothing desired, the volume kept', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Suspended']);
  assert.deepEqual(d.roles, { pod: { desired: 0, live: 0, ready: 0, gpusPerPod: { 'nvidia.com/gpu': 1 } } });
  assert.deepEqual(d.pods, {});
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.ok(fixtureObjects(SLUG, 'suspended').some((o) => o.kind === 'PersistentVolumeClaim'));
  assert.deepEqual(gangsInTreeOrder(tree), []);
});

test('suspending: asked to suspend while the pod still exists', () => {
  const objects = fixtureObjects(SLUG, 'running');
  const sb = objects.find((o) => o.kind === 'Sandbox')!;
  (sb.spec as Record<string, unknown>).operatingMode = 'Suspended';
  const tree = resolveObjects(SLUG, objects);
  assert.deepEqual(tree.status.matched, ['Suspending']);
  // The pod is on its way out: none is wanted any more, the one left still holds its GPU.
  assert.deepEqual(digest(tree).gpus, { desired: 0, requested: 1, allocated: 1 });
});

test('failed: the pod exited 1 and is not restarted', () => {
  const tree = resolveFixture(SLUG, 'failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.deepEqual(d.roles, { pod: { desired: 0, live: 0, ready: 0, gpusPerPod: {} } });
  assert.deepEqual(d.pods, { 'agent-carol': 'pod/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.equal(tree.pods[0].phase, 'Failed');
});

test('expired after shutdownTime: pod and Service gone, the Sandbox kept as Completed', () => {
  const tree = resolveFixture(SLUG, 'expired');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Completed']);
  assert.deepEqual(d.pods, {});
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.ok(!fixtureObjects(SLUG, 'expired').some((o) => o.kind === 'Service' || o.kind === 'Pod'));
});

test('claimed from a warm pool: the Sandbox under its SandboxClaim is the workload', () => {
  const tree = resolveFixture(SLUG, 'claimed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.equal(tree.workload.kind, 'Sandbox');
  assert.equal(tree.workload.name, 'python-pool-x8k2p');
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, { pod: { desired: 1, live: 1, ready: 1, gpusPerPod: {} } });
  assert.deepEqual(d.pods, { 'python-pool-x8k2p': 'pod/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  const sb = fixtureObjects(SLUG, 'claimed').find((o) => o.kind === 'Sandbox')!;
  assert.deepEqual(sb.metadata!.ownerReferences?.map((r) => `${r.kind}/${r.name}`), ['SandboxClaim/notebook-bob']);
});

