/** The API route handlers over an index fed directly (no cluster): shapes, filters, validation, errors. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { LiveWorkloads } from '@/server/workloads/index.ts';
import { setRuntime } from '@/server/workloads/runtime.ts';
import { loadCatalog } from '@/server/catalog/index.ts';
import { jobSetObjects } from '@/server/engine/test-support.ts';
import { GET as listWorkloads } from './workloads/route.ts';
import { GET as getWorkload } from './workloads/[cluster]/[namespace]/[kind]/[name]/route.ts';
import { GET as listDefinitions } from './definitions/route.ts';
import { GET as getDefinition } from './definitions/[name]/route.ts';
import { POST as validate } from './definitions/validate/route.ts';
import { GET as stream } from './stream/route.ts';
import { GET as clusters } from './clusters/route.ts';
import { POST as hooks } from './test-hooks/route.ts';
import { setValidator, startValidator } from '@/server/auth/index.ts';
import { fileURLToPath } from 'node:url';

const live = new LiveWorkloads({ clusters: [], catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
for (const o of jobSetObjects({ name: 'big', workers: 3, gpus: 8 })) live.index.upsert('lab', o);
for (const o of jobSetObjects({ name: 'small', workers: 1, gpus: 1, state: 'pending' })) live.index.upsert('lab', o);
live.index.flush();
setRuntime({ live, startedAt: new Date().toISOString(), demo: null, testHooks: null });
const validator = startValidator({ module: fileURLToPath(new URL('../../server/workloads/views.ts', import.meta.url)) });
setValidator(validator);
after(async () => {
  setRuntime(null);
  setValidator(null);
  await validator.close();
});
const validateText = (text: string) => validate(new Request(url('/api/definitions/validate'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) }));

const url = (path: string) => `http://127.0.0.1${path}`;

test('GET /api/workloads filters, sorts and paginates', async () => {
  const all = await (await listWorkloads(new Request(url('/api/workloads')))).json();
  assert.equal(all.total, 2);
  const gpu = await (await listWorkloads(new Request(url('/api/workloads?minGpus=10&gpuField=allocated')))).json();
  assert.deepEqual(gpu.rows.map((r: { name: string }) => r.name), ['big']);
  assert.equal(gpu.rows[0].gpus.allocated, 32);
  const waiting = await (await listWorkloads(new Request(url('/api/workloads?status=Initializing')))).json();
  assert.deepEqual(waiting.rows.map((r: { name: string }) => r.name), ['small']);
  const sorted = await (await listWorkloads(new Request(url('/api/workloads?sort=desired&order=desc&limit=1')))).json();
  assert.equal(sorted.total, 2);
  assert.deepEqual(sorted.rows.map((r: { name: string }) => r.name), ['big']);
});

test('bad query parameters get a 400 with a code and a message naming the parameter', async () => {
  const res = await listWorkloads(new Request(url('/api/workloads?sort=bogus')));
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.error.code, 'invalid_request');
  assert.match(body.error.message, /^sort: /);
  assert.equal((await listWorkloads(new Request(url('/api/workloads?minGpus=-1')))).status, 400);
});

test('GET /api/workloads/{cluster}/{namespace}/{kind}/{name}: the tree contract plus the raw root', async () => {
  const res = await getWorkload(new Request(url('/x')), { params: Promise.resolve({ cluster: 'lab', namespace: 'default', kind: 'JobSet', name: 'big' }) });
  assert.equal(res.status, 200);
  const d = await res.json();
  assert.equal(d.tree.gpus.desired.total, 32);
  assert.deepEqual(d.tree.roles.map((r: { name: string }) => r.name), ['leader', 'worker']);
  assert.equal(d.object.kind, 'JobSet');
  assert.match(d.definition.yaml, /kind: Karta/);
  const missing = await getWorkload(new Request(url('/x')), { params: Promise.resolve({ cluster: 'lab', namespace: 'default', kind: 'JobSet', name: 'nope' }) });
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, 'not_found');
});

test('definitions: listing with workload counts, detail with YAML, validation with field paths', async () => {
  const defs = await (await listDefinitions()).json();
  const js = defs.find((d: { kind: string }) => d.kind === 'JobSet');
  assert.equal(js.source, 'catalog');
  assert.equal(js.valid, true);
  assert.equal(js.workloads, 2);
  const detail = await (await getDefinition(new Request(url(`/api/definitions/${js.name}`)), { params: Promise.resolve({ name: js.name }) })).json();
  assert.match(detail.yaml, /structureDefinition/);
  const bad = await (await validateText('apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec:\n  structureDefinition:\n    rootComponent: {name: r, kind: {group: g, version: v1, kind: K}, statusDefinition: {statusMappings: {}}, instanceIdPath: .a}\n')).json();
  assert.equal(bad.valid, false);
  assert.ok(bad.definitions[0].errors.some((e: { path: string }) => e.path === 'spec.structureDefinition.rootComponent.podSelector.componentInstanceSelector'));
  assert.equal((await validateText('  ')).status, 400);
  const plain = await validate(new Request(url('/api/definitions/validate'), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'kind: Karta' }));
  assert.equal(plain.status, 415);
  assert.equal((await plain.json()).error.code, 'unsupported_media_type');
});

test('the stream starts with a snapshot of the filtered rows', async () => {
  const abort = new AbortController();
  const res = await stream(new Request(url('/api/stream?minGpus=10'), { signal: abort.signal }));
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const { value } = await res.body!.getReader().read();
  const text = new TextDecoder().decode(value);
  assert.match(text, /^id: \d+\nevent: snapshot\ndata: /);
  const snap = JSON.parse(text.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
  assert.deepEqual(snap.rows.map((r: { name: string }) => r.name), ['big']);
  abort.abort();
});

test('clusters and disabled test hooks; no credentials in responses', async () => {
  assert.deepEqual(await (await clusters()).json(), []);
  const h = await hooks(new Request(url('/api/test-hooks'), { method: 'POST', body: JSON.stringify({ action: 'dropWatches' }) }));
  assert.equal(h.status, 404);
});
