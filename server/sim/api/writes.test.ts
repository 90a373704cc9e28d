/**
 * Writes as kube-apiserver answers them: `dryRun=All` (query, and the DeleteOptions body) for create,
 * update, patch, scale and delete leaves no trace (no object, no resourceVersion, no watch event);
 * optimistic concurrency (409) for stale resourceVersions in a PUT, a merge patch or a JSON patch; a
 * failed JSON-patch `test` is the generic 422; invalid patches are 422 Invalid with field causes.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import type { KubeObject } from '../store/object-store.ts';
import { cleanupTempDirs, openWatch, raw } from './test-support.ts';

const CMS = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const CONFLICT = 'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again';

function deployment(name: string): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

describe('writes: dry runs and conflicts', () => {
  let sim: SimHandle;
  let cm: KubeObject;

  before(async () => {
    sim = await startSim({ controllers: false });
    cm = sim.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1' } });
    sim.store.create({ ...cm, metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/hold'] } });
    sim.store.create(deployment('web'));
    // The CRD controllers write the installed CRDs' status right after start: let them finish.
    let last = '';
    while (last !== sim.store.resourceVersion()) {
      last = sim.store.resourceVersion();
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  after(async () => {
    await sim?.stop();
    cleanupTempDirs();
  });

  it('dryRun=All on every write answers as the write would and leaves no trace', async () => {
    const rv = sim.store.resourceVersion();
    const watch = openWatch(sim, `${CMS}?watch=true&resourceVersion=${rv}`);
    const created = await raw(sim, 'POST', `${CMS}?dryRun=All`, { body: { metadata: { generateName: 'gen-' }, data: { x: 'y' } } });
    assert.equal(created.status, 201);
    const c = JSON.parse(created.body) as KubeObject;
    assert.match(c.metadata.name ?? '', /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.match(c.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(c.metadata.creationTimestamp);
    assert.equal(c.metadata.resourceVersion, undefined);
    const dep = JSON.parse((await raw(sim, 'POST', `${DEPLOYS}?dryRun=All`, { body: deployment('new') })).body) as KubeObject;
    assert.equal(dep.metadata.generation, 1);
    assert.equal((await raw(sim, 'POST', `${CMS}?dryRun=All`, { body: { metadata: { name: 'cm' } } })).status, 409, 'AlreadyExists, as a real create');
    const put = await raw(sim, 'PUT', `${CMS}/cm?dryRun=All`, { body: { ...cm, data: { a: 'put' } } });
    assert.equal((JSON.parse(put.body) as { data: Record<string, string> }).data.a, 'put');
    const merge = await raw(sim, 'PATCH', `${CMS}/cm?dryRun=All`, { body: { data: { a: 'merge' } }, contentType: 'application/merge-patch+json' });
    assert.equal((JSON.parse(merge.body) as { data: Record<string, string> }).data.a, 'merge');
    const json = await raw(sim, 'PATCH', `${CMS}/cm?dryRun=All`, { body: [{ op: 'replace', path: '/data/a', value: 'json' }], contentType: 'application/json-patch+json' });
    assert.equal((JSON.parse(json.body) as { data: Record<string, string> }).data.a, 'json');
    const smp = await raw(sim, 'PATCH', `${CMS}/cm?dryRun=All`, { body: { data: { b: 'smp' } }, contentType: 'application/strategic-merge-patch+json' });
    assert.equal((JSON.parse(smp.body) as { data: Record<string, string> }).data.b, 'smp');
    const scale = await raw(sim, 'PATCH', `${DEPLOYS}/web/scale?dryRun=All`, { body: { spec: { replicas: 5 } }, contentType: 'application/merge-patch+json' });
    assert.equal((JSON.parse(scale.body) as { spec: { replicas: number } }).spec.replicas, 5);
    const del = await raw(sim, 'DELETE', `${CMS}/cm?dryRun=All`);
    assert.deepEqual(JSON.parse(del.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'cm', group: '', kind: 'configmaps', uid: cm.metadata.uid }, code: 200 });
    assert.equal((await raw(sim, 'DELETE', `${CMS}/cm`, { body: { dryRun: ['All'] } })).status, 200);
    const held = JSON.parse((await raw(sim, 'DELETE', `${CMS}/held`, { body: { dryRun: ['All'], propagationPolicy: 'Foreground' } })).body) as KubeObject;
    assert.ok(held.metadata.deletionTimestamp, 'the object as it would be marked');
    assert.deepEqual(held.metadata.finalizers, ['example.com/hold', 'foregroundDeletion']);
    assert.equal((await raw(sim, 'DELETE', `${CMS}/cm?dryRun=All`, { body: { preconditions: { resourceVersion: '1' } } })).status, 409, 'preconditions are checked');

    assert.equal(sim.store.resourceVersion(), rv, 'no resourceVersion was used');
    assert.deepEqual(sim.store.get('v1', 'ConfigMap', 'default', 'cm'), cm);
    assert.equal(sim.store.get('v1', 'ConfigMap', 'default', 'held')?.metadata.deletionTimestamp, undefined);
    assert.equal((sim.store.get('apps/v1', 'Deployment', 'default', 'web')?.spec as { replicas: number }).replicas, 1);
    assert.equal(sim.store.list('v1', 'ConfigMap', { namespace: 'default' }).length, 2);
    assert.equal(sim.store.get('apps/v1', 'Deployment', 'default', 'new'), undefined);
    // The first event the watch sees is a real change made after all of that.
    sim.store.update({ ...structuredClone(cm), data: { a: 'real' } });
    await watch.waitFor(1);
    watch.close();
    assert.equal(watch.events[0].type, 'MODIFIED');
    assert.deepEqual((watch.events[0].object as { data: unknown }).data, { a: 'real' });
    cm = sim.store.get('v1', 'ConfigMap', 'default', 'cm')!;
  });

  it('a dryRun other than All is the options\' 422', async () => {
    const r = await raw(sim, 'POST', `${CMS}?dryRun=Some`, { body: { metadata: { name: 'x' } } });
    assert.equal(r.status, 422);
    assert.equal((JSON.parse(r.body) as { message: string }).message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    assert.equal((await raw(sim, 'DELETE', `${CMS}/cm`, { body: { dryRun: ['Yes'] } })).status, 422);
    assert.ok(sim.store.get('v1', 'ConfigMap', 'default', 'cm'));
  });

  it('a stale resourceVersion is 409 Conflict in a PUT, a merge patch and a JSON patch', async () => {
    const stale = { ...cm, metadata: { ...cm.metadata, resourceVersion: String(Number(cm.metadata.resourceVersion) - 1) } };
    const put = await raw(sim, 'PUT', `${CMS}/cm`, { body: { ...stale, data: { a: 'x' } } });
    assert.equal(put.status, 409);
    assert.deepEqual(JSON.parse(put.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: CONFLICT, reason: 'Conflict', details: { name: 'cm', group: '', kind: 'configmaps' }, code: 409 });
    const merge = await raw(sim, 'PATCH', `${CMS}/cm`, { body: { metadata: { resourceVersion: stale.metadata.resourceVersion }, data: { a: 'x' } }, contentType: 'application/merge-patch+json' });
    assert.equal(merge.status, 409);
    assert.equal((JSON.parse(merge.body) as { message: string }).message, CONFLICT);
    const json = await raw(sim, 'PATCH', `${CMS}/cm`, { body: [{ op: 'replace', path: '/metadata/resourceVersion', value: stale.metadata.resourceVersion }, { op: 'replace', path: '/data/a', value: 'x' }], contentType: 'application/json-patch+json' });
    assert.equal(json.status, 409);
    assert.equal((JSON.parse(json.body) as { message: string }).message, CONFLICT);
    assert.deepEqual(sim.store.get('v1', 'ConfigMap', 'default', 'cm'), cm);
  });

  it('a JSON-patch test that fails is 422 Invalid with the generic message, whatever it tested', async () => {
    for (const ops of [[{ op: 'test', path: '/metadata/resourceVersion', value: '1' }], [{ op: 'remove', path: '/data/nope' }]]) {
      const r = await raw(sim, 'PATCH', `${CMS}/cm`, { body: ops, contentType: 'application/json-patch+json' });
      assert.equal(r.status, 422);
      assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server rejected our request due to an error in our request', reason: 'Invalid', code: 422 });
    }
    const ok = await raw(sim, 'PATCH', `${CMS}/cm`, { body: [{ op: 'test', path: '/metadata/resourceVersion', value: cm.metadata.resourceVersion }, { op: 'replace', path: '/data/a', value: 'tested' }], contentType: 'application/json-patch+json' });
    assert.equal(ok.status, 200);
  });

  it('admission refuses invalid patches with 422 Invalid and field causes', async () => {
    const patch = async (body: unknown, type = 'application/merge-patch+json') => {
      const r = await raw(sim, 'PATCH', `${DEPLOYS}/web`, { body, contentType: type });
      return { status: r.status, status422: JSON.parse(r.body) as { message: string; details?: { causes?: Array<{ field: string }> } } };
    };
    const fields = async (body: unknown, type?: string) => {
      const r = await patch(body, type);
      assert.equal(r.status, 422, r.status422.message);
      return (r.status422.details?.causes ?? []).map((c) => c.field);
    };
    assert.deepEqual(await fields({ metadata: { labels: { 'bad key!': 'x' } } }), ['metadata.labels']);
    assert.deepEqual(await fields({ spec: { template: { metadata: { labels: { ok: 'bad value!' } } } } }), ['spec.template.labels']);
    assert.deepEqual(await fields({ spec: { template: { metadata: { annotations: { '-nope': 'x' } } } } }), ['spec.template.annotations']);
    assert.deepEqual(await fields([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: '' }], 'application/json-patch+json'), ['spec.template.spec.containers[0].image']);
    assert.deepEqual(await fields([{ op: 'add', path: '/spec/template/spec/containers/0/imagePullPolicy', value: 'Sometimes' }], 'application/json-patch+json'), ['spec.template.spec.containers[0].imagePullPolicy']);
    assert.deepEqual(await fields([{ op: 'add', path: '/spec/template/spec/containers/0/resources', value: { limits: { cpu: '1' }, requests: { cpu: '2' } } }], 'application/json-patch+json'), ['spec.template.spec.containers[0].resources.requests']);
    assert.deepEqual(await fields([{ op: 'add', path: '/spec/template/spec/containers/0/resources', value: { limits: { cpu: 'lots' } } }], 'application/json-patch+json'), ['patch']);
    assert.deepEqual(await fields({ spec: { replicas: -1 } }), ['spec.replicas']);
    // A Pod's image may not carry whitespace (a template's may).
    const pod = await raw(sim, 'POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: ' nginx' }] } } });
    assert.equal((JSON.parse(pod.body) as { message: string }).message, 'Pod "p" is invalid: spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace');
    assert.equal((await patch([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: ' nginx' }], 'application/json-patch+json')).status, 200);
  });
});
