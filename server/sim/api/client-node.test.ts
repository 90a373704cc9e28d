/** Conformance: @kubernetes/client-node 1.4.0 (list, watch, informers, 410 recovery) against the simulator. */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startSim } from '../index.ts';
import type { RequestLogEntry, SimHandle } from '../index.ts';
import type { KubeObject } from '../store/object-store.ts';
import { cleanupTempDirs, eventually, kubeconfigFor } from './test-support.ts';

function cm(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data: { v: '1' } };
}

describe('@kubernetes/client-node against the simulated cluster', () => {
  let sim: SimHandle;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  const requests: RequestLogEntry[] = [];

  before(async () => {
    sim = await startSim({ controllers: false, tokens: [{ token: 'reader', user: 'reader', readOnly: true }], onRequest: (r) => requests.push(r) });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });

  after(async () => {
    await sim?.stop();
    cleanupTempDirs();
  });

  it('lists namespaced and across namespaces, with label selectors and the list resourceVersion', async () => {
    sim.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    sim.store.create(cm('l1', { app: 'a' }));
    sim.store.create(cm('l2', { app: 'b' }));
    sim.store.create({ ...cm('l3', { app: 'a' }), metadata: { name: 'l3', namespace: 'other', labels: { app: 'a' } } });
    const ns = await core.listNamespacedConfigMap({ namespace: 'default' });
    assert.deepEqual(ns.items.map((i) => i.metadata?.name), ['l1', 'l2']);
    assert.equal(ns.metadata?.resourceVersion, sim.store.resourceVersion());
    const all = await core.listConfigMapForAllNamespaces({ labelSelector: 'app=a' });
    assert.deepEqual(all.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`), ['default/l1', 'other/l3']);
    const page = await core.listNamespacedConfigMap({ namespace: 'default', limit: 1 });
    assert.equal(page.items.length, 1);
    assert.ok(page.metadata?._continue);
    assert.equal(page.metadata?.remainingItemCount, 1);
    const rest = await core.listNamespacedConfigMap({ namespace: 'default', limit: 1, _continue: page.metadata!._continue });
    assert.deepEqual(rest.items.map((i) => i.metadata?.name), ['l2']);
    assert.equal(rest.metadata?.resourceVersion, page.metadata?.resourceVersion, 'every page reports the first page\'s version');
  });

  it('creates, json-patches (its default), replaces with optimistic concurrency and deletes', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'rw' }, data: { a: '1' } } });
    assert.ok(created.metadata?.uid);
    const patched = await core.patchNamespacedConfigMap({ namespace: 'default', name: 'rw', body: [{ op: 'replace', path: '/data/a', value: '2' }] });
    assert.equal(patched.data?.a, '2');
    await assert.rejects(core.patchNamespacedConfigMap({ namespace: 'default', name: 'rw', body: [{ op: 'test', path: '/data/a', value: 'x' }] }), (e: { code?: number }) => e.code === 422);
    await assert.rejects(core.replaceNamespacedConfigMap({ namespace: 'default', name: 'rw', body: { ...created, data: { a: '3' } } }), (e: { code?: number; body?: string }) => e.code === 409 && /the object has been modified/.test(String(e.body)));
    const replaced = await core.replaceNamespacedConfigMap({ namespace: 'default', name: 'rw', body: { ...patched, data: { a: '3' } } });
    assert.equal(replaced.data?.a, '3');
    const same = await core.replaceNamespacedConfigMap({ namespace: 'default', name: 'rw', body: replaced });
    assert.equal(same.metadata?.resourceVersion, replaced.metadata?.resourceVersion, 'no-op writes keep the version');
    await assert.rejects(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'rw' } } }), (e: { code?: number }) => e.code === 409);
    const status = await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'rw' });
    assert.equal((status as { status?: string }).status, 'Success');
    await assert.rejects(core.readNamespacedConfigMap({ namespace: 'default', name: 'rw' }), (e: { code?: number }) => e.code === 404);
  });

  it('serves custom resources through KubernetesObjectApi (discovery per group-version)', async () => {
    const api = k8s.KubernetesObjectApi.makeApiClient(kc);
    const obj = await api.create({ apiVersion: 'run.ai/v1alpha1', kind: 'Karta', metadata: { name: 'jobset-def' }, spec: { structureDefinition: { rootComponent: { name: 'jobset' } } } } as k8s.KubernetesObject);
    assert.equal(obj.metadata?.generation, 1);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const list = (await custom.listClusterCustomObject({ group: 'run.ai', version: 'v1alpha1', plural: 'kartas' })) as { items: KubeObject[] };
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['jobset-def']);
    // Strategic merge is for built-in kinds only: a CR answers 415, as the real server does.
    await assert.rejects(api.patch({ apiVersion: 'run.ai/v1alpha1', kind: 'Karta', metadata: { name: 'jobset-def' }, spec: { x: 1 } } as k8s.KubernetesObject), (e: { code?: number }) => e.code === 415);
  });

  it('Watch streams ADDED, MODIFIED and DELETED with new resourceVersions', async () => {
    const watch = new k8s.Watch(kc);
    const seen: string[] = [];
    const rv = sim.store.resourceVersion();
    const req = await watch.watch('/api/v1/namespaces/default/configmaps', { resourceVersion: rv }, (type, obj: KubeObject) => seen.push(`${type}:${obj.metadata.name}:${obj.metadata.resourceVersion}`), () => {});
    await eventually(() => sim.openWatches() > 0, 3000, 'watch to open');
    const a = sim.store.create(cm('w1'));
    const b = sim.store.update({ ...structuredClone(a), data: { v: '2' } });
    sim.store.update(structuredClone(b));
    sim.store.delete('v1', 'ConfigMap', 'default', 'w1');
    await eventually(() => seen.length >= 3, 3000, 'three events');
    req.abort();
    assert.equal(seen.length, 3, 'the no-op write produced no event');
    assert.deepEqual(seen.map((s) => s.split(':')[0]), ['ADDED', 'MODIFIED', 'DELETED']);
    const rvs = seen.map((s) => Number(s.split(':')[2]));
    assert.ok(rvs[0] < rvs[1] && rvs[1] < rvs[2]);
  });

  it('an informer lists, watches, and resumes from its last version after a clean close (no relist)', async () => {
    const events: string[] = [];
    const inf = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=inf' }), 'app=inf');
    inf.on('add', (o) => events.push(`add:${o.metadata?.name}`));
    inf.on('update', (o) => events.push(`update:${o.metadata?.name}`));
    inf.on('delete', (o) => events.push(`delete:${o.metadata?.name}`));
    let stopped = false;
    const errors: unknown[] = [];
    inf.on('error', (e) => {
      if (!stopped) errors.push(e);
    });
    sim.store.create(cm('i1', { app: 'inf' }));
    await inf.start();
    try {
      await eventually(() => events.includes('add:i1'), 3000, 'initial add');
      const i2 = sim.store.create(cm('i2', { app: 'inf' }));
      await eventually(() => events.includes('add:i2'), 3000, 'live add');
      const listsBefore = requests.filter((r) => r.url.startsWith('/api/v1/namespaces/default/configmaps?') && !r.url.includes('watch=')).length;
      // The server ends every watch cleanly; the informer re-watches from its last resourceVersion.
      sim.faults.dropWatches();
      sim.store.update({ ...structuredClone(i2), data: { v: 'changed-while-reconnecting' } });
      await eventually(() => events.includes('update:i2'), 3000, 'update after reconnect');
      // Relabelling out of the selector is a delete for this informer.
      const i1 = sim.store.get('v1', 'ConfigMap', 'default', 'i1')!;
      sim.store.update({ ...structuredClone(i1), metadata: { ...structuredClone(i1.metadata), labels: { app: 'other' } } });
      await eventually(() => events.includes('delete:i1'), 3000, 'selector transition');
      const listsAfter = requests.filter((r) => r.url.startsWith('/api/v1/namespaces/default/configmaps?') && !r.url.includes('watch=')).length;
      assert.equal(listsAfter, listsBefore, 'no relist after a clean close');
      assert.deepEqual(errors, []);
      assert.deepEqual(inf.list().map((o) => o.metadata?.name), ['i2']);
    } finally {
      stopped = true;
      await inf.stop();
    }
  });

  it('an informer recovers from 410 Gone by relisting, and reports objects deleted meanwhile', async () => {
    const events: string[] = [];
    const inf = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=gone' }), 'app=gone');
    inf.on('add', (o) => events.push(`add:${o.metadata?.name}`));
    inf.on('delete', (o) => events.push(`delete:${o.metadata?.name}`));
    let stopped = false;
    inf.on('error', (e) => {
      if (!stopped) events.push(`error:${String(e)}`);
    });
    sim.store.create(cm('g1', { app: 'gone' }));
    sim.store.create(cm('g2', { app: 'gone' }));
    await inf.start();
    try {
      await eventually(() => events.includes('add:g2'), 3000, 'initial adds');
      await eventually(() => sim.openWatches() > 0, 3000, 'watch to open');
      // In one tick: end the watch, change things it will not see, and compact them away.
      sim.faults.dropWatches();
      sim.store.delete('v1', 'ConfigMap', 'default', 'g1');
      sim.store.create(cm('g3', { app: 'gone' }));
      sim.store.compact();
      await eventually(() => events.includes('delete:g1') && events.includes('add:g3'), 5000, 'relist after 410');
      assert.ok(!events.some((e) => e.startsWith('error')), events.join(' '));
      assert.ok(requests.some((r) => r.url.includes('watch=true') && r.status === 200));
      assert.deepEqual(inf.list().map((o) => o.metadata?.name).sort(), ['g2', 'g3']);
      // And it keeps watching afterwards.
      sim.store.create(cm('g4', { app: 'gone' }));
      await eventually(() => events.includes('add:g4'), 3000, 'watch after relist');
    } finally {
      stopped = true;
      await inf.stop();
    }
  });

  it('a read-only token gets 403 Forbidden on writes', async () => {
    const ro = new k8s.KubeConfig();
    ro.loadFromFile(kubeconfigFor(sim, 'reader'));
    const api = ro.makeApiClient(k8s.CoreV1Api);
    assert.ok((await api.listNamespacedConfigMap({ namespace: 'default' })).items.length > 0);
    await assert.rejects(api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'nope' } } }), (e: { code?: number; body?: string }) => e.code === 403 && /User \\"reader\\" cannot create resource \\"configmaps\\"/.test(String(e.body)));
  });
});
