import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NAME_HASH_LABEL, nameHash, SANDBOX_API, sandboxConditions, sandboxPod } from './sandbox.ts';
import { fixture, ownerOf } from './testing.ts';
import type { Condition, KubeObject, Pod } from './types.ts';

function sandbox(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: SANDBOX_API,
    kind: 'Sandbox',
    metadata: { name, namespace: 'research', uid: `uid-${name}` },
    spec: {
      operatingMode: 'Running',
      podTemplate: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'python:3.12', ports: [{ containerPort: 8888, name: 'http' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'workspace' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      service: true,
      ...spec,
    },
  };
}

const by = (cs: Condition[]): Record<string, string> => Object.fromEntries(cs.map((c) => [c.type, `${c.status}/${c.reason}`]));

test('name hash: FNV-1a 32, 8 hex digits', () => {
  assert.equal(nameHash(''), '811c9dc5');
  assert.equal(nameHash('a'), 'e40c292c');
  assert.equal(nameHash('agent-alice'), '7de5918b');
});

test('the pod: named like the Sandbox, tracking label, claims mounted, controlled by the Sandbox', () => {
  const p = sandboxPod(sandbox('agent-x'));
  assert.equal(p.metadata.name, 'agent-x');
  assert.equal(p.metadata.labels![NAME_HASH_LABEL], nameHash('agent-x'));
  assert.equal(p.metadata.labels!.app, 'agent');
  assert.equal(p.metadata.annotations!['agents.x-k8s.io/propagated-labels'], 'app');
  assert.deepEqual(p.spec!.volumes, [{ name: 'workspace', persistentVolumeClaim: { claimName: 'workspace-agent-x' } }]);
  assert.equal(p.metadata.ownerReferences![0].kind, 'Sandbox');
});

test('conditions: pending, ready, suspending, suspended, finished', () => {
  const sb = sandbox('a');
  const pod = (phase: string, ready: boolean): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, status: { phase, podIP: '10.0.0.1', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: ready ? 'True' : 'False' }] } }) as Pod;
  assert.deepEqual(by(sandboxConditions(sb, { pod: pod('Pending', false), service: true }, undefined, 'now')), { Suspended: 'False/NotSuspended', PodScheduled: 'True/PodScheduled', Ready: 'False/DependenciesNotReady' });
  assert.equal(by(sandboxConditions(sb, { pod: pod('Running', true), service: true }, undefined, 'now')).Ready, 'True/DependenciesReady');
  assert.equal(by(sandboxConditions(sb, { pod: pod('Running', true), service: false }, undefined, 'now')).Ready, 'False/DependenciesNotReady');
  const susp = sandbox('a', { operatingMode: 'Suspended' });
  assert.deepEqual(by(sandboxConditions(susp, { pod: pod('Running', true), service: true }, undefined, 'now')), { Suspended: 'False/PodTerminating', PodScheduled: 'True/PodScheduled', Ready: 'False/SandboxSuspended' });
  assert.deepEqual(by(sandboxConditions(susp, { service: true }, undefined, 'now')), { Suspended: 'True/PodTerminated', Ready: 'False/SandboxSuspended' });
  assert.deepEqual(by(sandboxConditions(sb, { pod: pod('Failed', false), service: true }, undefined, 'now')), { Suspended: 'False/NotSuspended', Finished: 'True/PodFailed', PodScheduled: 'True/PodScheduled', Ready: 'False/PodFailed' });
});

test('end to end: PVC, pod, headless Service, Ready; suspend and resume; expiry tears down, keeps the volume', async () => {
  const f = fixture();
  try {
    f.store.create(sandbox('agent-a', { shutdownTime: new Date(f.clock.now() + 30 * 60_000).toISOString() }));
    await f.run(30_000, 5000);
    const get = (): KubeObject => f.get(SANDBOX_API, 'Sandbox', 'agent-a', 'research')!;
    const conds = (): Record<string, string> => by((get().status as { conditions: Condition[] }).conditions);
    assert.equal(conds().Ready, 'True/DependenciesReady');
    const st = get().status as Record<string, unknown>;
    assert.equal(st.serviceFQDN, 'agent-a.research.svc.cluster.local');
    assert.equal(st.selector, `${NAME_HASH_LABEL}=${nameHash('agent-a')}`);
    const svc = f.get('v1', 'Service', 'agent-a', 'research')!;
    assert.equal((svc.spec as { clusterIP: string }).clusterIP, 'None');
    assert.equal(ownerOf(f.get('v1', 'PersistentVolumeClaim', 'workspace-agent-a', 'research')!)!.kind, 'Sandbox');
    f.store.update({ ...get(), spec: { ...(get().spec as object), operatingMode: 'Suspended' } });
    await f.run(60_000, 5000);
    assert.equal(conds().Suspended, 'True/PodTerminated');
    assert.equal(f.get('v1', 'Pod', 'agent-a', 'research'), undefined);
    f.store.update({ ...get(), spec: { ...(get().spec as object), operatingMode: 'Running' } });
    await f.run(60_000, 5000);
    assert.equal(conds().Ready, 'True/DependenciesReady');
    await f.run(30 * 60_000, 60_000);
    assert.equal(conds().Ready, 'False/SandboxExpired');
    assert.equal(f.get('v1', 'Service', 'agent-a', 'research'), undefined);
    assert.ok(f.get('v1', 'PersistentVolumeClaim', 'workspace-agent-a', 'research'));
  } finally {
    f.stop();
  }
});
