/**
 * The validation the API server now does must not refuse real objects: the catalog's fixtures (objects
 * of the operators as a real cluster holds them) create cleanly, strictly, with nothing pruned; every
 * object the simulator's own scenarios and controllers make passes the same checks as an update.
 */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { SimClock } from '../clock.ts';
import { startControllers } from '../controllers/index.ts';
import { settleUntilSteady } from '../controllers/testing.ts';
import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import { applyScenario } from '../scenarios/index.ts';
import { MemoryStore } from '../store/memory-store.ts';
import type { KubeObject } from '../store/object-store.ts';
import { encodeJson } from '../store/deep-json.ts';
import { raw } from './test-support.ts';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../catalog/fixtures');

interface Resource {
  plural: string;
  namespaced: boolean;
}

/** plural and scope of every served kind, from discovery (as a client finds them). */
async function discover(sim: SimHandle): Promise<Map<string, Resource>> {
  const out = new Map<string, Resource>();
  const gvs = ['v1'];
  const groups = JSON.parse((await raw(sim, 'GET', '/apis')).body) as { groups: Array<{ versions: Array<{ groupVersion: string }> }> };
  for (const g of groups.groups) for (const v of g.versions) gvs.push(v.groupVersion);
  for (const gv of gvs) {
    const list = JSON.parse((await raw(sim, 'GET', gv === 'v1' ? '/api/v1' : `/apis/${gv}`)).body) as { resources: Array<{ name: string; kind: string; namespaced: boolean }> };
    for (const r of list.resources) if (!r.name.includes('/')) out.set(`${gv}/${r.kind}`, { plural: r.name, namespaced: r.namespaced });
  }
  return out;
}

function collection(res: Map<string, Resource>, apiVersion: string, kind: string, namespace: string | undefined): { path: string; namespaced: boolean } {
  const r = res.get(`${apiVersion}/${kind}`);
  assert.ok(r, `${apiVersion} ${kind} is not served`);
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return { path: r.namespaced ? `${base}/namespaces/${namespace}/${r.plural}` : `${base}/${r.plural}`, namespaced: r.namespaced };
}

function withoutStatus(o: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
}

describe('real objects pass the API server\'s validation', () => {
  let sim: SimHandle;
  let resources: Map<string, Resource>;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wmap-real-'));
    // The demo and a small scale scenario, built and settled with the controllers, saved as a state file.
    const clock = SimClock.manual();
    const store = new MemoryStore({ now: () => clock.date(), initialResourceVersion: 1000 });
    const ctl = startControllers(store, { clock, seed: 3, autoDrain: false, maxReconcilesPerSettle: 2_000_000 });
    const demo = applyScenario(store, 'demo', { clock, seed: 3 });
    for (let t = 0; t < 120_000; t += 5_000) {
      clock.advance(5_000);
      await settleUntilSteady(store, ctl, 100);
    }
    demo.stop();
    ctl.stop();
    await store.idle();
    writeFileSync(join(dir, 'state.json'), encodeJson(store.snapshot()));
    store.close();
    sim = await startSim({ controllers: false, installCrds: true, stateFile: join(dir, 'state.json') });
    resources = await discover(sim);
  });

  after(async () => {
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every catalog fixture creates with fieldValidation=Strict, nothing pruned or refused', async () => {
    const files = readdirSync(FIXTURES).flatMap((d) => readdirSync(join(FIXTURES, d)).filter((f) => f.endsWith('.yaml')).map((f) => join(FIXTURES, d, f)));
    assert.ok(files.length > 50);
    let n = 0;
    for (const [i, file] of files.entries()) {
      const ns = `fx-${i}`;
      assert.equal((await raw(sim, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status, 201);
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        const obj = doc.toJS() as KubeObject | null;
        if (!obj?.kind) continue;
        if (!resources.has(`${obj.apiVersion}/${obj.kind}`)) continue;
        const { path, namespaced } = collection(resources, obj.apiVersion, obj.kind, ns);
        const m = obj.metadata;
        // What a client re-creating an exported object sends: no server-set fields.
        const meta: Record<string, unknown> = { ...m };
        for (const k of ['resourceVersion', 'uid', 'creationTimestamp', 'generation', 'managedFields', 'deletionTimestamp', 'deletionGracePeriodSeconds']) delete meta[k];
        if (namespaced) meta.namespace = ns;
        else meta.name = `${m.name}-${i}`;
        const body = { ...obj, metadata: meta };
        const r = await raw(sim, 'POST', `${path}?fieldValidation=Strict`, { body });
        // A fixture may list an object twice (as a child of two views); the second is AlreadyExists.
        if (r.status === 409 && (JSON.parse(r.body) as { reason?: string }).reason === 'AlreadyExists') continue;
        assert.equal(r.status, 201, `${file}: ${obj.kind} ${m.name}: ${r.body.slice(0, 600)}`);
        assert.equal(r.headers.warning, undefined, `${file}: ${obj.kind} ${m.name}: ${String(r.headers.warning)}`);
        assert.deepEqual(withoutStatus(JSON.parse(r.body) as KubeObject), withoutStatus({ ...obj, metadata: {} }), `${file}: ${obj.kind} ${m.name} changed on the way in`);
        n++;
      }
    }
    assert.ok(n > 300, `${n} objects`);
  });

  it('every object the demo scenario and the controllers made passes validation as an update (dry run)', async () => {
    const snapshot = sim.store.snapshot().objects;
    assert.ok(snapshot.length > 500, `${snapshot.length} objects`);
    const refused: string[] = [];
    for (const obj of snapshot) {
      // Kinds the controllers write without a CRD the simulator serves (Istio, …) are not reachable by API.
      if (!obj.kind || obj.metadata.namespace?.startsWith('fx-') || !resources.has(`${obj.apiVersion}/${obj.kind}`)) continue;
      const { path } = collection(resources, obj.apiVersion, obj.kind, obj.metadata.namespace);
      const r = await raw(sim, 'PUT', `${path}/${obj.metadata.name}?dryRun=All`, { body: obj });
      if (r.status !== 200) refused.push(`${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}: ${r.status} ${r.body.slice(0, 300)}`);
    }
    assert.deepEqual(refused.slice(0, 20), []);
  });
});
