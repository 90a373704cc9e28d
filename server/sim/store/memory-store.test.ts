import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogs } from '../../log/test-support.ts';
import { MemoryStore } from './memory-store.ts';
import { StoreError } from './object-store.ts';
import type { KubeObject, WatchEvent } from './object-store.ts';

function cm(name: string, data: Record<string, string> = {}, ns = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
}

function deployment(name: string, replicas = 1): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' }, spec: { replicas } };
}

function owned(kind: string, name: string, owner: KubeObject, block = false): KubeObject {
  return {
    apiVersion: 'v1',
    kind,
    metadata: {
      name,
      namespace: 'default',
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: block }],
    },
  };
}

function record(store: MemoryStore): WatchEvent[] {
  const events: WatchEvent[] = [];
  store.subscribe((e) => events.push(e));
  return events;
}

test('create assigns uid, timestamps, one global resourceVersion across kinds', () => {
  const s = new MemoryStore({ initialResourceVersion: 100 });
  const a = s.create(cm('a'));
  const d = s.create(deployment('d'));
  assert.equal(a.metadata.resourceVersion, '101');
  assert.equal(d.metadata.resourceVersion, '102');
  assert.equal(s.resourceVersion(), '102');
  assert.match(a.metadata.uid!, /^[0-9a-f-]{36}$/);
  assert.match(a.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(a.metadata.generation, undefined, 'configmaps have no generation');
  assert.equal(d.metadata.generation, 1);
  assert.throws(() => s.create(cm('a')), (e: unknown) => e instanceof StoreError && e.status === 409 && e.reason === 'AlreadyExists' && e.message === 'configmaps "a" already exists');
});

test('returned objects are frozen and later writes do not reach them', () => {
  const s = new MemoryStore();
  const input = cm('a', { k: 'v' });
  const a = s.create(input);
  (input.data as Record<string, string>).k = 'changed';
  assert.equal((s.get('v1', 'ConfigMap', 'default', 'a')!.data as Record<string, string>).k, 'v');
  assert.throws(() => {
    (a.data as Record<string, string>).k = 'x';
  }, TypeError);
});

test('generateName picks the Kubernetes alphabet; no name at all is Invalid', () => {
  const s = new MemoryStore();
  const o = s.create({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'job-', namespace: 'default' } });
  assert.match(o.metadata.name!, /^job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.throws(() => s.create({ apiVersion: 'v1', kind: 'Pod', metadata: {} }), (e: unknown) => e instanceof StoreError && e.status === 422);
});

test('no-op writes keep the resourceVersion and emit nothing; real changes do', () => {
  const s = new MemoryStore();
  const a = s.create(cm('a', { k: 'v' }));
  const events = record(s);
  const same = s.update(structuredClone(a));
  assert.equal(same.metadata.resourceVersion, a.metadata.resourceVersion);
  assert.equal(events.length, 0);
  const changed = s.update({ ...structuredClone(a), data: { k: 'w' } });
  assert.notEqual(changed.metadata.resourceVersion, a.metadata.resourceVersion);
  assert.equal(events.length, 1);
  assert.equal(events[0].type, 'MODIFIED');
  assert.equal((events[0].previous!.data as Record<string, string>).k, 'v');
});

test('optimistic concurrency: a stale resourceVersion is a Conflict; none is unconditional', () => {
  const s = new MemoryStore();
  const a = s.create(cm('a'));
  s.update({ ...structuredClone(a), data: { x: '1' } });
  assert.throws(() => s.update({ ...structuredClone(a), data: { x: '2' } }), (e: unknown) => e instanceof StoreError && e.status === 409 && e.reason === 'Conflict' && /the object has been modified/.test(e.message));
  const free = structuredClone(a);
  delete free.metadata.resourceVersion;
  free.data = { x: '3' };
  assert.deepEqual(s.update(free).data, { x: '3' });
  assert.throws(() => s.update(cm('missing')), (e: unknown) => e instanceof StoreError && e.status === 404);
});

test('generation moves with spec changes only; updateStatus touches only status', () => {
  const s = new MemoryStore();
  const d = s.create(deployment('d', 1));
  const labelled = s.update({ ...structuredClone(d), metadata: { ...structuredClone(d.metadata), labels: { a: 'b' } } });
  assert.equal(labelled.metadata.generation, 1);
  const scaled = s.update({ ...structuredClone(labelled), spec: { replicas: 3 } });
  assert.equal(scaled.metadata.generation, 2);
  const st = s.updateStatus({ ...structuredClone(scaled), spec: { replicas: 9 }, status: { readyReplicas: 3 } });
  assert.equal(st.metadata.generation, 2);
  assert.deepEqual(st.spec, { replicas: 3 });
  assert.deepEqual(st.status, { readyReplicas: 3 });
  assert.equal(s.updateStatus(structuredClone(st)).metadata.resourceVersion, st.metadata.resourceVersion, 'no-op status write');
});

test('list is in namespace/name order, filters by namespace and labels', () => {
  const s = new MemoryStore();
  for (const [ns, n] of [['b', 'x'], ['a', 'y'], ['a', 'b'], ['c', 'a']]) {
    s.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: n, namespace: ns, labels: { app: n === 'x' ? 'one' : 'two', tier: 't' } } });
  }
  assert.deepEqual(s.list('v1', 'Pod').map((p) => `${p.metadata.namespace}/${p.metadata.name}`), ['a/b', 'a/y', 'b/x', 'c/a']);
  assert.deepEqual(s.list('v1', 'Pod', { namespace: 'a' }).map((p) => p.metadata.name), ['b', 'y']);
  assert.deepEqual(s.list('v1', 'Pod', { labels: { app: 'two', tier: 't' } }).map((p) => p.metadata.name), ['b', 'y', 'a']);
  assert.deepEqual(s.list('v1', 'Pod', { labels: { app: 'one' }, namespace: 'a' }), []);
  // Relabelling moves the object between index entries.
  const x = s.get('v1', 'Pod', 'b', 'x')!;
  s.update({ ...structuredClone(x), metadata: { ...structuredClone(x.metadata), labels: { app: 'two' } } });
  assert.equal(s.list('v1', 'Pod', { labels: { app: 'one' } }).length, 0);
  assert.equal(s.list('v1', 'Pod', { labels: { app: 'two' } }).length, 4);
});

test('the version in apiVersion is kept; storage is per group and kind', () => {
  const s = new MemoryStore();
  s.create({ apiVersion: 'nvidia.com/v1alpha1', kind: 'DynamoGraphDeployment', metadata: { name: 'g', namespace: 'default' }, spec: {} });
  const got = s.get('nvidia.com/v1beta1', 'DynamoGraphDeployment', 'default', 'g');
  assert.equal(got?.apiVersion, 'nvidia.com/v1alpha1');
});

test('background deletion garbage-collects dependents by owner uid, recursively', async () => {
  const s = new MemoryStore();
  const d = s.create(deployment('d'));
  const rs = s.create({ ...owned('ReplicaSet', 'd-1', d), apiVersion: 'apps/v1' });
  s.create(owned('Pod', 'd-1-a', rs));
  s.create(owned('Pod', 'd-1-b', rs));
  const other = s.create(cm('unrelated'));
  const events = record(s);
  const res = s.delete('apps/v1', 'Deployment', 'default', 'd');
  assert.equal(res.deleted, true);
  assert.equal(events[0].type, 'DELETED');
  assert.equal(events.length, 1, 'dependents go afterwards, not inside the delete');
  await s.idle();
  assert.equal(s.list('apps/v1', 'ReplicaSet').length, 0);
  assert.equal(s.list('v1', 'Pod').length, 0);
  assert.ok(s.get('v1', 'ConfigMap', 'default', other.metadata.name!));
  assert.deepEqual(events.map((e) => `${e.type} ${e.object.kind}`), ['DELETED Deployment', 'DELETED ReplicaSet', 'DELETED Pod', 'DELETED Pod']);
  // Deletion events carry their own, increasing resourceVersions.
  const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
  assert.deepEqual([...rvs].sort((a, b) => a - b), rvs);
});

test('a dependent with another live owner survives and loses only the dangling reference', async () => {
  const s = new MemoryStore();
  const a = s.create(cm('a'));
  const b = s.create(cm('b'));
  const child = owned('Secret', 'child', a);
  child.metadata.ownerReferences!.push({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: b.metadata.uid! });
  s.create(child);
  s.delete('v1', 'ConfigMap', 'default', 'a');
  await s.idle();
  const left = s.get('v1', 'Secret', 'default', 'child')!;
  assert.deepEqual(left.metadata.ownerReferences!.map((r) => r.name), ['b']);
});

test('orphan propagation keeps dependents and strips the reference', async () => {
  const s = new MemoryStore();
  const d = s.create(deployment('d'));
  s.create(owned('Pod', 'p', d));
  const res = s.delete('apps/v1', 'Deployment', 'default', 'd', { propagationPolicy: 'Orphan' });
  assert.equal(res.deleted, false);
  assert.deepEqual(res.object.metadata.finalizers, ['orphan']);
  await s.idle();
  assert.equal(s.get('apps/v1', 'Deployment', 'default', 'd'), undefined);
  assert.equal(s.get('v1', 'Pod', 'default', 'p')!.metadata.ownerReferences, undefined);
});

test('foreground propagation deletes dependents before the owner', async () => {
  const s = new MemoryStore();
  const d = s.create(deployment('d'));
  s.create(owned('Pod', 'p', d, true));
  const events = record(s);
  const res = s.delete('apps/v1', 'Deployment', 'default', 'd', { propagationPolicy: 'Foreground' });
  assert.ok(res.object.metadata.deletionTimestamp);
  assert.deepEqual(res.object.metadata.finalizers, ['foregroundDeletion']);
  assert.equal(res.object.metadata.generation, 2, 'marking for deletion bumps generation');
  await s.idle();
  assert.equal(events[0].type, 'MODIFIED');
  assert.equal(events.at(-1)!.type, 'DELETED');
  assert.equal(events.at(-1)!.object.kind, 'Deployment');
  assert.ok(events.findIndex((e) => e.object.kind === 'Pod') < events.length - 1);
  assert.equal(s.get('apps/v1', 'Deployment', 'default', 'd'), undefined);
});

test('finalizers hold a deletion until the last one is removed', () => {
  const s = new MemoryStore();
  const a = s.create({ ...cm('a'), metadata: { name: 'a', namespace: 'default', finalizers: ['example.com/hold'] } });
  const marked = s.delete('v1', 'ConfigMap', 'default', 'a').object;
  assert.ok(marked.metadata.deletionTimestamp);
  assert.ok(s.get('v1', 'ConfigMap', 'default', 'a'));
  assert.throws(() => s.update({ ...structuredClone(marked), metadata: { ...structuredClone(marked.metadata), finalizers: ['example.com/hold', 'new'] } }), (e: unknown) => e instanceof StoreError && e.status === 422);
  const events = record(s);
  s.update({ ...structuredClone(marked), metadata: { ...structuredClone(marked.metadata), finalizers: [] } });
  assert.equal(s.get('v1', 'ConfigMap', 'default', 'a'), undefined);
  assert.deepEqual(events.map((e) => e.type), ['DELETED']);
  assert.ok(a.metadata.uid);
});

test('graceful deletion marks the object; a second delete (the kubelet) completes it', () => {
  const s = new MemoryStore({ maxGraceMs: 60_000 });
  s.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1' } });
  const r = s.delete('v1', 'Pod', 'default', 'p', { gracePeriodSeconds: 30 });
  assert.equal(r.deleted, false);
  assert.equal(r.object.metadata.deletionGracePeriodSeconds, 30);
  assert.equal(s.delete('v1', 'Pod', 'default', 'p').deleted, true);
  s.close();
});

test('namespace deletion terminates, empties it, then removes it', async () => {
  const s = new MemoryStore();
  s.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  s.create(cm('x', {}, 'team'));
  s.create(cm('y', {}, 'other'));
  const r = s.delete('v1', 'Namespace', undefined, 'team');
  assert.equal((r.object.status as { phase: string }).phase, 'Terminating');
  await s.idle();
  assert.equal(s.list('v1', 'ConfigMap', { namespace: 'team' }).length, 0);
  assert.equal(s.list('v1', 'ConfigMap').length, 1);
  assert.equal(s.get('v1', 'Namespace', undefined, 'team'), undefined);
});

test('history replays events after a version and answers 410 below the window', () => {
  const s = new MemoryStore({ initialResourceVersion: 1000, historySize: 3 });
  for (let i = 0; i < 5; i++) s.create(cm(`c${i}`));
  // rvs 1001..1005; the window keeps 1003..1005.
  assert.deepEqual(s.historySince(1003).map((e) => e.rv), [1004, 1005]);
  assert.deepEqual(s.historySince(1002).map((e) => e.rv), [1003, 1004, 1005]);
  assert.deepEqual(s.historySince(1005), []);
  assert.throws(() => s.historySince(1001), (e: unknown) => e instanceof StoreError && e.status === 410 && e.reason === 'Expired' && e.message === 'too old resource version: 1001 (1003)');
  s.compact();
  assert.deepEqual(s.historySince(1005), [], 'the current version is always watchable');
  assert.throws(() => s.historySince(1004), (e: unknown) => e instanceof StoreError && e.status === 410);
});

test('snapshot and restore keep objects and never move the counter back', () => {
  const a = new MemoryStore({ initialResourceVersion: 5000 });
  a.create(cm('a'));
  const snap = JSON.parse(JSON.stringify(a.snapshot()));
  const b = new MemoryStore({ initialResourceVersion: 10 });
  b.restore(snap);
  assert.equal(b.get('v1', 'ConfigMap', 'default', 'a')!.metadata.uid, a.get('v1', 'ConfigMap', 'default', 'a')!.metadata.uid);
  assert.equal(b.resourceVersion(), '5001');
  assert.throws(() => b.historySince(5000), (e: unknown) => e instanceof StoreError && e.status === 410);
});

test('a failing watch handler is logged and the others still get the event', () => {
  const logs = captureLogs();
  try {
    const s = new MemoryStore();
    s.subscribe(() => {
      throw new Error('boom');
    });
    const events = record(s);
    s.create(cm('a'));
    assert.equal(events.length, 1);
    const lines = logs.records() as Array<{ component: string; msg: string; err: { message: string }; object: string }>;
    assert.equal(lines.length, 1);
    assert.equal(lines[0].component, 'sim.store');
    assert.equal(lines[0].msg, 'watch handler failed');
    assert.equal(lines[0].err.message, 'boom');
    assert.equal(lines[0].object, 'default/a');
  } finally {
    logs.restore();
  }
});
