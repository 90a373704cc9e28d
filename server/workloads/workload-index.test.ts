import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { loadCatalog } from '../catalog/index.ts';
import { jobSetObjects } from '../engine/test-support.ts';
import type { KubeObject } from '../engine/index.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { WorkloadIndex } from './workload-index.ts';
import type { WorkloadRow } from './row.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const byKind = (objs: KubeObject[], kind: string) => objs.filter((o) => o.kind === kind);
const rowsById = (index: WorkloadIndex) => new Map(index.allRows().map((r) => [r.id, r] as const));

// Flushes are driven by the tests; the timers an index sets are stopped after each test.
const open: WorkloadIndex[] = [];
afterEach(() => { for (const i of open.splice(0)) i.close(); });

function indexWith(synced: { value: boolean }, isExpectedKind?: () => boolean): WorkloadIndex {
  const index = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9, warmIntervalMs: 1e9, isSynced: () => synced.value, isExpectedKind });
  open.push(index);
  return index;
}

test('rows resolved ahead while lists arrive are emitted at sync, equal to resolving everything then', () => {
  const objects = [...jobSetObjects({ name: 'a', workers: 2 }), ...jobSetObjects({ name: 'b', workers: 3, gpus: 8 })];
  const synced = { value: false };
  const index = indexWith(synced);
  // Pods first (as pages), then Jobs, then JobSets: the order a cluster's lists may complete in.
  for (const kind of ['Pod', 'Job', 'JobSet']) index.upsertMany('c1', byKind(objects, kind));
  assert.deepEqual(index.flush(), [], 'nothing is emitted before the cluster is synced');
  assert.equal(index.allRows().length, 0);
  synced.value = true;
  const deltas = index.flush();
  assert.deepEqual(deltas.map((d) => d.op), ['upsert', 'upsert']);

  const fresh = indexWith({ value: true });
  fresh.upsertMany('c1', objects);
  fresh.flush();
  assert.deepEqual(rowsById(index), rowsById(fresh));
  const b = [...rowsById(index).values()].find((r) => r.name === 'b') as WorkloadRow;
  assert.equal(b.gpus.requested, 32);
});

test('a row resolved ahead and changed before the sync is resolved again', () => {
  const objects = jobSetObjects({ name: 'a', workers: 2 });
  const synced = { value: false };
  const index = indexWith(synced);
  index.upsertMany('c1', objects);
  index.flush(); // resolves ahead, emits nothing
  const pod = byKind(objects, 'Pod')[1];
  index.upsert('c1', { ...pod, metadata: { ...pod.metadata, resourceVersion: '7' }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } });
  synced.value = true;
  const [delta] = index.flush();
  assert.equal(delta.op, 'upsert');
  assert.equal(delta.op === 'upsert' && delta.row.pods.ready, 2, 'the change after resolving ahead is in the emitted row');
  assert.equal(delta.op === 'upsert' && delta.row.pods.total, 3);
});

test('an object resolved ahead as a workload is no row once its owner arrives', () => {
  const objects = jobSetObjects({ name: 'a', workers: 1 });
  const synced = { value: false };
  // No kinds are expected: a Job whose JobSet has not arrived counts as top-level.
  const index = indexWith(synced, () => false);
  index.upsertMany('c1', [...byKind(objects, 'Pod'), ...byKind(objects, 'Job')]);
  index.flush();
  index.upsertMany('c1', byKind(objects, 'JobSet'));
  synced.value = true;
  const deltas = index.flush();
  assert.deepEqual(deltas.map((d) => d.op === 'upsert' && d.row.kind), ['JobSet']);
  assert.equal(index.allRows().length, 1);
});

test('a list that repeats the objects of its pages resolves nothing again', () => {
  const objects = jobSetObjects({ name: 'a', workers: 2 });
  const index = indexWith({ value: true });
  let resolutions = 0;
  const resolve = index.resolve.bind(index);
  index.resolve = (cluster, uid) => { resolutions++; return resolve(cluster, uid); };
  index.upsertMany('c1', objects);
  assert.equal(index.flush().length, 1);
  assert.equal(resolutions, 1);
  for (const kind of ['JobSet', 'Job', 'Pod']) index.replaceKind('c1', kind === 'JobSet' ? 'jobset.x-k8s.io/JobSet' : kind === 'Job' ? 'batch/Job' : '/Pod', byKind(objects, kind));
  assert.deepEqual(index.flush(), []);
  assert.equal(resolutions, 1, 'the same objects again are no change');
});

test('rows built from a failing kind are marked stale and cleared on recovery, without resolving again', () => {
  const objects = [...jobSetObjects({ name: 'a', workers: 2 }), ...jobSetObjects({ name: 'b', workers: 1 })];
  const index = indexWith({ value: true });
  index.upsertMany('c1', objects);
  index.flush();
  let resolutions = 0;
  const resolve = index.resolve.bind(index);
  index.resolve = (cluster, uid) => { resolutions++; return resolve(cluster, uid); };
  const since = Date.parse('2026-12-02T10:00:00Z');
  // Jobs fail: both JobSets own Jobs, so both rows are stale.
  const marked = index.setKindHealth('c1', new Map([['batch/Job', { since, message: 'HTTP 500', name: 'jobs.batch' }]]));
  assert.equal(marked.length, 2);
  for (const r of index.allRows()) assert.deepEqual(r.stale, { since: '2026-12-02T10:00:00.000Z', reason: 'jobs.batch cannot be read: HTTP 500', kinds: ['jobs.batch'] });
  // A kind no row is built from changes nothing.
  assert.deepEqual(index.setKindHealth('c1', new Map([['batch/Job', { since, message: 'HTTP 500', name: 'jobs.batch' }], ['apps/Deployment', { since, message: 'x', name: 'deployments.apps' }]])), []);
  // A later re-resolve keeps the mark while the kind fails.
  index.upsert('c1', { ...objects[0], metadata: { ...objects[0].metadata, labels: { touched: 'yes' } } });
  index.flush();
  assert.ok(index.allRows().every((r) => r.stale !== null));
  const before = resolutions;
  const cleared = index.setKindHealth('c1', new Map());
  assert.equal(cleared.length, 2);
  assert.ok(index.allRows().every((r) => r.stale === null));
  assert.equal(resolutions, before, 'marking and clearing re-resolves nothing');
});
