/** Wire-level behaviour of the simulated API server: watch protocol, writes, discovery, faults, restart. */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import type { KubeObject } from '../store/object-store.ts';
import { eventually, openWatch, raw } from './test-support.ts';

const CMS = '/api/v1/namespaces/default/configmaps';

function cm(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data: { v: '1' } };
}

describe('simulated API server protocol', () => {
  let sim: SimHandle;

  before(async () => {
    sim = await startSim({ controllers: false, bookmarkIntervalMs: 200, historySize: 50 });
  });

  after(async () => {
    await sim?.stop();
  });

  describe('watch', () => {
    it('from a version: exactly the missed events, one JSON line each; no synthetic ADDED', async () => {
      const rv = sim.store.resourceVersion();
      sim.store.create(cm('m1'));
      sim.store.create(cm('m2'));
      const w = openWatch(sim, `${CMS}?watch=true&resourceVersion=${rv}`);
      assert.equal(await w.status, 200);
      await w.waitFor(2);
      assert.deepEqual(w.events.map((e) => `${e.type} ${(e.object.metadata as { name: string }).name}`), ['ADDED m1', 'ADDED m2']);
      w.close();
    });

    it('without a version: synthetic ADDED for what exists, then changes', async () => {
      const w = openWatch(sim, `${CMS}?watch=1&labelSelector=set%3Dw4`);
      sim.store.create(cm('w4a', { set: 'w4' }));
      await w.waitFor(1);
      sim.store.create(cm('w4b', { set: 'w4' }));
      await w.waitFor(2);
      w.close();
      const w2 = openWatch(sim, `${CMS}?watch=1&labelSelector=set%3Dw4&resourceVersion=0`);
      await w2.waitFor(2);
      assert.deepEqual(w2.events.map((e) => e.type), ['ADDED', 'ADDED']);
      w2.close();
    });

    it('turns a label change into DELETED (previous state, new version) and back into ADDED', async () => {
      const obj = sim.store.create(cm('sel', { app: 'x' }));
      const w = openWatch(sim, `${CMS}?watch=1&labelSelector=app%3Dx&resourceVersion=${obj.metadata.resourceVersion}`);
      await w.status;
      const moved = sim.store.update({ ...structuredClone(obj), metadata: { ...structuredClone(obj.metadata), labels: { app: 'y' } } });
      await w.waitFor(1);
      const del = w.events[0];
      assert.equal(del.type, 'DELETED');
      assert.deepEqual((del.object.metadata as { labels: unknown }).labels, { app: 'x' });
      assert.equal((del.object.metadata as { resourceVersion: string }).resourceVersion, moved.metadata.resourceVersion);
      sim.store.update({ ...structuredClone(moved), metadata: { ...structuredClone(moved.metadata), labels: { app: 'x' } } });
      await w.waitFor(2);
      assert.equal(w.events[1].type, 'ADDED');
      w.close();
    });

    it('answers 410 for a compacted version as an ERROR event, then closes the stream', async () => {
      const old = sim.store.resourceVersion();
      for (let i = 0; i < 60; i++) sim.store.create(cm(`fill-${i}`));
      const w = openWatch(sim, `${CMS}?watch=true&resourceVersion=${old}`);
      assert.equal(await w.status, 200);
      assert.equal(await w.ended, 'clean');
      assert.equal(w.events.length, 1);
      assert.equal(w.events[0].type, 'ERROR');
      assert.equal(w.events[0].object.code, 410);
      assert.equal(w.events[0].object.reason, 'Expired');
      assert.match(String(w.events[0].object.message), /^too old resource version: \d+ \(\d+\)$/);
      // The version a list returns is always watchable.
      const list = JSON.parse((await raw(sim, 'GET', CMS)).body) as { metadata: { resourceVersion: string } };
      const w2 = openWatch(sim, `${CMS}?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=1`);
      assert.equal(await w2.ended, 'clean');
      assert.equal(w2.events.length, 0);
    });

    it('sends BOOKMARKs only when allowed, and ends cleanly at timeoutSeconds', async () => {
      const rv = sim.store.resourceVersion();
      const started = Date.now();
      const w = openWatch(sim, `${CMS}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1`);
      const plain = openWatch(sim, `${CMS}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
      assert.equal(await w.ended, 'clean');
      assert.ok(Date.now() - started >= 900);
      const bm = w.events.find((e) => e.type === 'BOOKMARK');
      assert.ok(bm, 'a bookmark');
      assert.deepEqual(Object.keys(bm.object.metadata as object), ['resourceVersion']);
      assert.equal(bm.object.kind, 'ConfigMap');
      assert.equal(await plain.ended, 'clean');
      assert.equal(plain.events.length, 0);
    });

    it('sendInitialEvents: ADDEDs then the initial-events-end bookmark; 422 without NotOlderThan', async () => {
      const w = openWatch(sim, `${CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=set%3Dw4`);
      await w.waitFor(3);
      assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'ADDED', 'BOOKMARK']);
      assert.deepEqual((w.events[2].object.metadata as { annotations: unknown }).annotations, { 'k8s.io/initial-events-end': 'true' });
      w.close();
      const bad = await raw(sim, 'GET', `${CMS}?watch=true&sendInitialEvents=true`);
      assert.equal(bad.status, 422);
    });

    it('watches as Table for kubectl get -w: column definitions on the first event only', async () => {
      const rv = sim.store.resourceVersion();
      const w = openWatch(sim, `/api/v1/configmaps?watch=true&resourceVersion=${rv}`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
      await w.status;
      sim.store.create(cm('tw1'));
      sim.store.create(cm('tw2'));
      await w.waitFor(2);
      assert.equal(w.events[0].object.kind, 'Table');
      assert.ok((w.events[0].object.columnDefinitions as unknown[]).length > 0);
      assert.deepEqual(w.events[1].object.columnDefinitions, []);
      assert.equal(((w.events[1].object.rows as Array<{ cells: unknown[] }>)[0]).cells[0], 'tw2');
      w.close();
    });
  });

  describe('writes', () => {
    it('Status errors carry code, reason and the resource in details', async () => {
      const r = await raw(sim, 'GET', `${CMS}/missing`);
      assert.equal(r.status, 404);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', details: { name: 'missing', group: '', kind: 'configmaps' }, code: 404 });
      const unknown = await raw(sim, 'GET', '/apis/nope.example.com/v1/things');
      assert.equal(unknown.status, 404);
      assert.equal(JSON.parse(unknown.body).message, 'the server could not find the requested resource');
    });

    it('creates: generateName, namespace from the URL, missing namespace 404, mismatched namespace 400', async () => {
      const r = await raw(sim, 'POST', CMS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
      assert.equal(r.status, 201);
      assert.match(JSON.parse(r.body).metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      const missing = await raw(sim, 'POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'x' } } });
      assert.equal(missing.status, 404);
      assert.equal(JSON.parse(missing.body).message, 'namespaces "nowhere" not found');
      const mismatch = await raw(sim, 'POST', CMS, { body: { metadata: { name: 'x', namespace: 'other' } } });
      assert.equal(mismatch.status, 400);
      const noName = await raw(sim, 'POST', CMS, { body: { metadata: {} } });
      assert.equal(noName.status, 422);
    });

    it('protobuf bodies are refused with 415 and the accepted media types', async () => {
      const r = await raw(sim, 'POST', '/api/v1/namespaces', { body: 'k8s\u0000\n\u0002v1', contentType: 'application/vnd.kubernetes.protobuf' });
      assert.equal(r.status, 415);
      assert.match(JSON.parse(r.body).message, /accepted media types include: application\/json, application\/yaml/);
    });

    it('custom resources: PUT without resourceVersion is 422; strategic merge is 415; status is its own subresource', async () => {
      const path = '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets';
      const created = await raw(sim, 'POST', path, { body: { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js' }, spec: { suspend: false }, status: { ignored: true } } });
      assert.equal(created.status, 201);
      const obj = JSON.parse(created.body) as KubeObject;
      assert.equal(obj.status, undefined, 'status is dropped on create');
      assert.equal(obj.metadata.generation, 1);
      const noRv = structuredClone(obj);
      delete noRv.metadata.resourceVersion;
      const put = await raw(sim, 'PUT', `${path}/js`, { body: noRv });
      assert.equal(put.status, 422);
      assert.match(JSON.parse(put.body).message, /metadata.resourceVersion: Invalid value: 0x0: must be specified for an update/);
      const smp = await raw(sim, 'PATCH', `${path}/js`, { body: { spec: { suspend: true } }, contentType: 'application/strategic-merge-patch+json' });
      assert.equal(smp.status, 415);
      // Main endpoint: status ignored, spec change bumps generation.
      const main = await raw(sim, 'PATCH', `${path}/js`, { body: { spec: { suspend: true }, status: { phase: 'x' } }, contentType: 'application/merge-patch+json' });
      const afterMain = JSON.parse(main.body) as KubeObject;
      assert.equal(afterMain.metadata.generation, 2);
      assert.equal(afterMain.status, undefined);
      // Status endpoint: only status changes, generation stays.
      const st = await raw(sim, 'PATCH', `${path}/js/status`, { body: { spec: { suspend: false }, status: { terminalState: 'Completed' } }, contentType: 'application/merge-patch+json' });
      const afterStatus = JSON.parse(st.body) as KubeObject;
      assert.equal(afterStatus.metadata.generation, 2);
      assert.deepEqual(afterStatus.spec, { suspend: true });
      assert.deepEqual(afterStatus.status, { terminalState: 'Completed' });
      // Labels never bump generation.
      const lab = await raw(sim, 'PATCH', `${path}/js`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
      assert.equal((JSON.parse(lab.body) as KubeObject).metadata.generation, 2);
      // A resourceVersion inside a patch is a precondition.
      const stale = await raw(sim, 'PATCH', `${path}/js`, { body: { metadata: { resourceVersion: obj.metadata.resourceVersion, labels: { c: 'd' } } }, contentType: 'application/merge-patch+json' });
      assert.equal(stale.status, 409);
      const scale = await raw(sim, 'GET', '/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets/none/scale');
      assert.equal(scale.status, 404);
    });

    it('server-side apply needs a fieldManager and creates what is missing', async () => {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } });
      const noManager = await raw(sim, 'PATCH', `${CMS}/applied`, { body, contentType: 'application/apply-patch+yaml' });
      assert.equal(noManager.status, 422);
      const created = await raw(sim, 'PATCH', `${CMS}/applied?fieldManager=test`, { body, contentType: 'application/apply-patch+yaml' });
      assert.equal(created.status, 201);
      const forceOnMerge = await raw(sim, 'PATCH', `${CMS}/applied?force=true`, { body: {}, contentType: 'application/merge-patch+json' });
      assert.equal(forceOnMerge.status, 422);
    });

    it('deletes: Success status; finalizers hold; foreground waits for dependents; pods on nodes terminate gracefully', async () => {
      sim.store.create({ ...cm('fin'), metadata: { name: 'fin', namespace: 'default', finalizers: ['example.com/x'] } });
      const held = await raw(sim, 'DELETE', `${CMS}/fin`);
      assert.equal(held.status, 200);
      assert.ok((JSON.parse(held.body) as KubeObject).metadata.deletionTimestamp);
      const rm = await raw(sim, 'PATCH', `${CMS}/fin`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
      assert.equal(rm.status, 200);
      assert.equal((await raw(sim, 'GET', `${CMS}/fin`)).status, 404);

      const owner = sim.store.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'fg', namespace: 'default' }, spec: {} });
      sim.store.create({ ...cm('fg-child'), metadata: { name: 'fg-child', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'fg', uid: owner.metadata.uid!, blockOwnerDeletion: true }] } });
      const fg = await raw(sim, 'DELETE', '/apis/apps/v1/namespaces/default/deployments/fg', { body: { propagationPolicy: 'Foreground' } });
      assert.deepEqual((JSON.parse(fg.body) as KubeObject).metadata.finalizers, ['foregroundDeletion']);
      await eventually(() => !sim.store.get('apps/v1', 'Deployment', 'default', 'fg'), 3000, 'foreground deletion');
      assert.equal(sim.store.get('v1', 'ConfigMap', 'default', 'fg-child'), undefined);

      sim.store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner', namespace: 'default' }, spec: { nodeName: 'n1', containers: [] }, status: { phase: 'Running' } });
      const pod = await raw(sim, 'DELETE', '/api/v1/namespaces/default/pods/runner');
      const terminating = JSON.parse(pod.body) as KubeObject;
      assert.ok(terminating.metadata.deletionTimestamp);
      assert.equal(terminating.metadata.deletionGracePeriodSeconds, 30);
      await eventually(() => !sim.store.get('v1', 'Pod', 'default', 'runner'), 3000, 'graceful deletion to finish');
      const done = await raw(sim, 'DELETE', `${CMS}/gone-already`);
      assert.equal(done.status, 404);
    });

    it('terminating namespaces refuse new content with 403', async () => {
      sim.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'closing' } });
      sim.store.create({ ...cm('held'), metadata: { name: 'held', namespace: 'closing', finalizers: ['example.com/x'] } });
      await raw(sim, 'DELETE', '/api/v1/namespaces/closing');
      const r = await raw(sim, 'POST', '/api/v1/namespaces/closing/configmaps', { body: { metadata: { name: 'late' } } });
      assert.equal(r.status, 403);
      assert.match(JSON.parse(r.body).message, /because it is being terminated/);
    });
  });

  describe('discovery and OpenAPI', () => {
    it('serves aggregated discovery when asked, with a responseKind for every resource', async () => {
      const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
      const r = await raw(sim, 'GET', '/apis', { accept });
      assert.equal(r.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      const doc = JSON.parse(r.body) as { items: Array<{ metadata: { name: string }; versions: Array<{ version: string; resources: Array<{ responseKind?: unknown }> }> }> };
      const nvidia = doc.items.find((g) => g.metadata.name === 'nvidia.com')!;
      assert.deepEqual(nvidia.versions.map((v) => v.version), ['v1beta1', 'v1alpha1']);
      for (const g of doc.items) for (const v of g.versions) for (const res of v.resources) assert.ok(res.responseKind);
      const legacy = await raw(sim, 'GET', '/apis');
      assert.equal(legacy.headers['content-type'], 'application/json');
      assert.equal(JSON.parse(legacy.body).kind, 'APIGroupList');
      const gv = JSON.parse((await raw(sim, 'GET', '/apis/run.ai/v1alpha1')).body) as { resources: Array<{ name: string; namespaced: boolean; shortNames?: string[] }> };
      assert.deepEqual(gv.resources.map((x) => [x.name, x.namespaced]), [['kartas', false], ['kartas/status', false]]);
    });

    it('lists every served group-version in /openapi/v3, and the hash changes when a CRD changes it', async () => {
      const index = JSON.parse((await raw(sim, 'GET', '/openapi/v3')).body) as { paths: Record<string, { serverRelativeURL: string }> };
      assert.ok(index.paths['api/v1']);
      assert.ok(index.paths['apis/apps/v1']);
      assert.ok(index.paths['apis/nvidia.com/v1alpha1']);
      const doc = JSON.parse((await raw(sim, 'GET', index.paths['api/v1'].serverRelativeURL)).body) as { paths: Record<string, { patch?: { parameters: Array<{ name: string }>; 'x-kubernetes-group-version-kind': unknown } }> };
      const ns = doc.paths['/api/v1/namespaces/{name}'];
      assert.deepEqual(ns.patch!['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Namespace' });
      assert.ok(ns.patch!.parameters.some((p) => p.name === 'fieldValidation'));
      const before = index.paths['apis/run.ai/v1alpha1'].serverRelativeURL;
      const crd = structuredClone(sim.store.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, 'kartas.run.ai')!);
      (crd.spec as { names: { shortNames: string[] } }).names.shortNames = ['krt', 'karta'];
      sim.store.update(crd);
      const after = (JSON.parse((await raw(sim, 'GET', '/openapi/v3')).body) as typeof index).paths['apis/run.ai/v1alpha1'].serverRelativeURL;
      assert.equal(after, before, 'short names are not part of the OpenAPI document');
    });
  });

  describe('faults, restart and state', () => {
    it('injects 429/500 with Retry-After, through the control endpoint (admin only)', async () => {
      const denied = await raw(sim, 'POST', '/__sim/faults', { body: { errorRate: 1 }, token: null });
      assert.equal(denied.status, 401);
      const set = await raw(sim, 'POST', '/__sim/faults', { body: { errorRate: 1, errorCodes: [429], retryAfterSeconds: 3 } });
      assert.equal(set.status, 200);
      const r = await raw(sim, 'GET', CMS);
      assert.equal(r.status, 429);
      assert.equal(r.headers['retry-after'], '3');
      assert.equal(JSON.parse(r.body).reason, 'TooManyRequests');
      sim.faults.set({ errorCodes: [500] });
      assert.equal((await raw(sim, 'GET', CMS)).status, 500);
      assert.equal((await raw(sim, 'DELETE', '/__sim/faults')).status, 200);
      assert.equal((await raw(sim, 'GET', CMS)).status, 200);
      const bad = await raw(sim, 'POST', '/__sim/faults', { body: { errorRate: 7 } });
      assert.equal(bad.status, 400);
    });

    it('adds latency', async () => {
      sim.faults.set({ latencyMs: 300 });
      const t = Date.now();
      await raw(sim, 'GET', CMS);
      assert.ok(Date.now() - t >= 280);
      sim.faults.reset();
    });

    it('answers 410 for recent versions on watch while watchGone is on', async () => {
      sim.faults.set({ watchGone: true });
      const w = openWatch(sim, `${CMS}?watch=true&resourceVersion=${sim.store.resourceVersion()}`);
      assert.equal(await w.ended, 'clean');
      assert.equal(w.events[0].object.code, 410);
      sim.faults.reset();
    });

    it('drops watches: clean close, or TCP reset', async () => {
      const a = openWatch(sim, `${CMS}?watch=true&resourceVersion=${sim.store.resourceVersion()}`);
      await a.status;
      await eventually(() => sim.openWatches() > 0, 2000, 'watch open');
      sim.faults.dropWatches();
      assert.equal(await a.ended, 'clean');
      sim.faults.set({ watchDropMode: 'reset' });
      const b = openWatch(sim, `${CMS}?watch=true&resourceVersion=${sim.store.resourceVersion()}`);
      await b.status;
      await eventually(() => sim.openWatches() > 0, 2000, 'watch open');
      sim.faults.dropWatches();
      assert.equal(await b.ended, 'error');
      sim.faults.reset();
    });

    it('restart keeps port, objects and history: a watch resumes from a version before the restart', async () => {
      const rv = sim.store.resourceVersion();
      const url = sim.url;
      await sim.restart();
      sim.store.create(cm('after-restart'));
      assert.equal(sim.url, url);
      const w = openWatch(sim, `${CMS}?watch=true&resourceVersion=${rv}`);
      await w.waitFor(1);
      assert.equal((w.events[0].object.metadata as { name: string }).name, 'after-restart');
      w.close();
    });

    it('a state file carries objects across processes; resourceVersions never go back', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'wmap-state-'));
      const stateFile = join(dir, 'state.json');
      const first = await startSim({ controllers: false, stateFile, installCrds: false });
      first.store.create(cm('persisted'));
      const rv = Number(first.store.resourceVersion());
      await first.stop();
      const second = await startSim({ controllers: false, stateFile, installCrds: false });
      try {
        const got = JSON.parse((await raw(second, 'GET', `${CMS}/persisted`)).body) as KubeObject;
        assert.equal(got.metadata.name, 'persisted');
        assert.ok(Number(second.store.resourceVersion()) >= rv);
        const w = openWatch(second, `${CMS}?watch=true&resourceVersion=${rv - 1}`);
        assert.equal(await w.ended, 'clean');
        assert.equal(w.events[0].object.code, 410, 'history does not survive a process restart');
      } finally {
        await second.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
