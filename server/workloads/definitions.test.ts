/**
 * Definitions as a whole, on the live index: a broken or oversized cluster definition is listed
 * with its error and affects nothing else; precedence between definitions of one kind is stated
 * and the loser is listed as shadowed; a definition that does not fit is "failing", not "valid";
 * one that crashes the engine on several workloads is quarantined while the others keep working.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { parse } from 'yaml';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { JOBSET_DEFINITION, jobSetObjects } from '../engine/test-support.ts';
import { DefinitionSet, MAX_DEFINITION_BYTES } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { definitionItems } from './views.ts';
import { WorkloadIndex } from './workload-index.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

function newIndex(): WorkloadIndex {
  const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
  open.push(index);
  return index;
}

/** The test JobSet definition as a Karta object in a cluster. */
function karta(name: string, created: string, edit: (d: Record<string, unknown>) => void = () => {}): KubeObject {
  const doc = parse(JOBSET_DEFINITION) as Record<string, unknown>;
  edit(doc);
  return { ...doc, metadata: { name, uid: `uid-${name}`, resourceVersion: '1', creationTimestamp: created } } as KubeObject;
}

const item = (index: WorkloadIndex, name: string) => definitionItems(index).find((d) => d.name === name)!;

test('an oversized or unloadable cluster definition is listed with its error; the rest keep working', () => {
  const index = newIndex();
  const huge = karta('huge', '2026-01-01T00:00:00Z', (d) => ((d.spec as Record<string, unknown>).blob = 'x'.repeat(MAX_DEFINITION_BYTES)));
  // An object whose reading throws (what a pathological document does to a loader).
  const hostile = new Proxy(karta('hostile', '2026-01-01T00:00:00Z'), { get: (t, k) => (k === 'spec' ? (() => { throw new RangeError('Maximum call stack size exceeded'); })() : Reflect.get(t, k)) });
  index.upsertMany('c1', [huge, hostile, ...jobSetObjects({ name: 'a' })]);
  index.flush();
  assert.equal(item(index, 'huge').status, 'invalid');
  assert.equal(item(index, 'huge').errors[0].code, 'definition.too-large');
  assert.equal(item(index, 'hostile').errors[0].code, 'definition.unloadable');
  assert.match(item(index, 'hostile').errors[0].message, /Karta hostile in cluster c1 could not be loaded: Maximum call stack/);
  // The JobSet is still served by the catalog.
  assert.equal(index.allRows().length, 1);
  assert.equal(index.allRows()[0].definition.source, 'catalog');
});

test('precedence: the cluster definition over the catalog, the older of two over the newer; losers are shadowed', () => {
  const index = newIndex();
  index.upsertMany('c1', [karta('newer', '2026-06-01T00:00:00Z'), karta('older', '2026-01-01T00:00:00Z'), ...jobSetObjects({ name: 'a' })]);
  index.flush();
  assert.equal(index.allRows()[0].definition.name, 'older');
  assert.equal(item(index, 'older').status, 'valid');
  const newer = item(index, 'newer');
  assert.equal(newer.status, 'shadowed');
  assert.equal(newer.valid, true);
  assert.deepEqual(newer.shadowedBy, [{ cluster: 'c1', name: 'older', source: 'cluster' }]);
  const cat = definitionItems(index).find((d) => d.source === 'catalog' && d.kind === 'JobSet')!;
  assert.equal(cat.status, 'shadowed');
  assert.deepEqual(cat.shadowedBy, [{ cluster: 'c1', name: 'older', source: 'cluster' }]);
});

test('a definition whose paths do not fit the objects is failing, not valid, and says where', () => {
  const index = newIndex();
  // Replicated jobs read from a field the objects do not have: the structure cannot be read.
  const broken = karta('wrong-paths', '2026-01-01T00:00:00Z', (d) => {
    const sd = (d.spec as { structureDefinition: { childComponents: Array<Record<string, unknown>> } }).structureDefinition;
    sd.childComponents[0].instanceIdPath = '.spec.jobs[].name';
  });
  index.upsertMany('c1', [broken, ...jobSetObjects({ name: 'a' }), ...jobSetObjects({ name: 'b' })]);
  index.flush();
  const d = item(index, 'wrong-paths');
  assert.equal(d.status, 'failing');
  assert.equal(d.valid, false);
  assert.equal(d.failing.workloads, 2);
  assert.match(d.failing.example?.message ?? '', /instanceIdPath/);
});

test('a cluster definition that crashes the engine on several workloads is quarantined; the others keep working; a change lifts it', () => {
  const index = newIndex();
  const own = karta('own', '2026-01-01T00:00:00Z');
  index.upsert('c1', own);
  // Pods whose reading throws inside the engine (outside any expression).
  const hostilePods = (name: string) =>
    jobSetObjects({ name }).map((o) => (o.kind === 'Pod' ? new Proxy(o, { get: (t, k) => (k === 'status' ? (() => { throw new RangeError('Maximum call stack size exceeded'); })() : Reflect.get(t, k)) }) : o));
  const hostile = ['x1', 'x2', 'x3', 'x4'].flatMap(hostilePods);
  index.upsertMany('c1', [...hostile, ...jobSetObjects({ name: 'fine' })]);
  index.flush();
  index.flush();
  const d = item(index, 'own');
  assert.equal(d.status, 'quarantined');
  assert.match(d.quarantined[0].reason, /crashed on 3 workloads; last: resolving JobSet default\/x\d with definition "own" failed: Maximum call stack/);
  // Its workloads go to the next definition of the kind (the catalog's), which is never quarantined:
  // the hostile ones show their error there, the fine one is served.
  const rows = new Map(index.allRows().map((r) => [r.name, r]));
  assert.equal(rows.size, 5);
  for (const n of ['x1', 'x2', 'x3', 'x4']) assert.match(rows.get(n)!.errors[0], /with definition "jobset-x-k8s-io-jobset-v1alpha2" failed/);
  assert.deepEqual(rows.get('fine')!.errors, []);
  assert.equal(rows.get('fine')!.definition.source, 'catalog');
  assert.equal(rows.get('fine')!.gpus.allocated, 12);
  const cat = definitionItems(index).find((x) => x.source === 'catalog' && x.kind === 'JobSet')!;
  assert.deepEqual(cat.quarantined, []);
  // The same content again (a relist, a new resourceVersion) keeps the quarantine.
  index.upsert('c1', { ...own, metadata: { ...own.metadata, resourceVersion: '2' } });
  index.flush();
  assert.equal(item(index, 'own').status, 'quarantined');
  // The hostile objects gone and the definition changed: a fresh start.
  for (const o of hostile) index.remove('c1', o);
  index.upsert('c1', { ...own, metadata: { ...own.metadata, resourceVersion: '3', annotations: { fixed: 'yes' } } });
  index.flush();
  assert.equal(item(index, 'own').status, 'valid');
  assert.equal(index.allRows()[0].definition.name, 'own');
});

test('a quarantine outlives a restart for the same content, and ends when the definition changes', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'wmap-state-')), 'state.json');
  const own = karta('own', '2026-01-01T00:00:00Z');
  const hostilePods = (name: string) =>
    jobSetObjects({ name }).map((o) => (o.kind === 'Pod' ? new Proxy(o, { get: (t, k) => (k === 'status' ? (() => { throw new RangeError('boom'); })() : Reflect.get(t, k)) }) : o));
  const first = new LiveWorkloads({ clusters: [], catalog, stateFile: file, index: { coalesceMs: 1e9 } });
  open.push(first.index);
  first.index.upsertMany('c1', [own, ...['x1', 'x2', 'x3'].flatMap(hostilePods)]);
  first.index.flush();
  first.index.flush();
  assert.equal(item(first.index, 'own').status, 'quarantined');
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { quarantines: Array<{ cluster: string; name: string; reason: string }> };
  assert.deepEqual(saved.quarantines.map((q) => [q.cluster, q.name]), [['c1', 'own']]);

  // After a restart the same definition is not evaluated again: only a healthy JobSet this time.
  const second = new LiveWorkloads({ clusters: [], catalog, stateFile: file, index: { coalesceMs: 1e9 } });
  open.push(second.index);
  second.index.upsertMany('c1', [own, ...jobSetObjects({ name: 'fine' })]);
  second.index.flush();
  assert.equal(item(second.index, 'own').status, 'quarantined');
  assert.equal(second.index.allRows()[0].definition.source, 'catalog');
  // Changed content: a fresh start.
  const changed = karta('own', '2026-01-01T00:00:00Z', (d) => ((d.metadata as Record<string, unknown>) = { annotations: { fixed: 'yes' } }));
  second.index.upsert('c1', { ...changed, metadata: { ...changed.metadata, resourceVersion: '2', annotations: { fixed: 'yes' } } });
  second.index.flush();
  assert.equal(item(second.index, 'own').status, 'valid');
  assert.equal(second.index.allRows()[0].definition.name, 'own');
  assert.deepEqual((JSON.parse(readFileSync(file, 'utf8')) as { quarantines: unknown[] }).quarantines, []);
});
