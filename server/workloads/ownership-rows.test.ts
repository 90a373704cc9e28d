/**
 * Every pod belongs to exactly one row, whatever owns it (issue "every GPU accounted for"): kinds
 * without a definition become rows of their own, served objects under them say who owns them, and
 * ownership is read as the garbage collector reads it (uid and kind/name, same namespace), so broken,
 * hostile or circular references neither drop pods nor move them into another workload.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { jobSetObjects } from '../engine/test-support.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import type { WorkloadRow } from './row.ts';
import { WorkloadIndex } from './workload-index.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

function index(opts: ConstructorParameters<typeof WorkloadIndex>[1] = {}): WorkloadIndex {
  const i = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9, ...opts });
  open.push(i);
  return i;
}

type Ref = { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean };
const refTo = (o: KubeObject, controller = true): Ref => ({ apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata!.name!, uid: o.metadata!.uid!, controller });

function pod(name: string, gpus: number, owners: Ref[] = [], o: { namespace?: string; phase?: string; node?: string | null } = {}): KubeObject {
  const phase = o.phase ?? 'Running';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-${o.namespace ?? 'default'}-${name}`, ownerReferences: owners },
    spec: { ...(o.node === null ? {} : { nodeName: o.node ?? 'n1' }), containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }] },
    status: { phase, conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False' }] },
  };
}

/** An in-house training kind that no catalog definition serves (it creates pods, or a JobSet that does). */
function trainJob(name: string, namespace = 'team-a'): KubeObject {
  return { apiVersion: 'training.example.com/v1', kind: 'TrainingRun', metadata: { name, namespace, uid: `uid-tj-${name}`, creationTimestamp: '2026-12-01T00:00:00Z' }, spec: {} };
}

/** Pods' GPUs summed from their specs, by hand, for the conservation checks (not the engine's code). */
function podGpus(objects: KubeObject[]): number {
  let n = 0;
  for (const o of objects) {
    if (o.kind !== 'Pod' || ['Succeeded', 'Failed'].includes(String((o.status as { phase?: string })?.phase))) continue;
    for (const c of (o.spec as { containers: Array<{ resources?: { limits?: Record<string, string> } }> }).containers) n += Number(c.resources?.limits?.['nvidia.com/gpu'] ?? 0);
  }
  return n;
}

const requested = (rows: WorkloadRow[]) => rows.reduce((a, r) => a + r.gpus.requested, 0);
const byKind = (rows: WorkloadRow[], kind: string) => rows.filter((r) => r.kind === kind);

test('a kind without a definition that owns pods is a row: real kind, its pods and GPUs, desired unknown, status from pods', () => {
  const i = index();
  const tj = trainJob('tj-llama');
  const objects = [tj, pod('tj-llama-node-0', 8, [refTo(tj)], { namespace: 'team-a' }), pod('tj-llama-node-1', 8, [refTo(tj)], { namespace: 'team-a', phase: 'Pending', node: null })];
  i.upsertMany('c1', objects);
  i.flush();
  const rows = i.allRows();
  assert.equal(rows.length, 1, JSON.stringify(rows.map((r) => r.id)));
  const r = rows[0];
  assert.equal(r.kind, 'TrainingRun');
  assert.equal(r.apiVersion, 'training.example.com/v1');
  assert.equal(r.namespace, 'team-a');
  assert.deepEqual(r.definition, { name: '', source: 'none' });
  assert.equal(r.gpus.requested, 16);
  assert.equal(r.gpus.allocated, 8);
  assert.deepEqual(r.gpus.unknown, ['desired']);
  assert.deepEqual(r.pods, { ready: 1, total: 2 });
  assert.equal(r.status, 'Running');
  assert.match(r.statusReason ?? '', /1 Pending, 1 Running/);
  assert.equal(requested(rows), podGpus(objects));
});

test('a served object under an object without a definition is the row, and says what owns it', () => {
  const i = index();
  const tj = trainJob('tj-gpt', 'default');
  const js = jobSetObjects({ name: 'gpt', workers: 2, gpus: 4 });
  js[0].metadata!.ownerReferences = [refTo(tj)];
  // The owner also runs one pod of its own (an initializer): that pod is the owner's row.
  const init = pod('tj-gpt-init', 1, [refTo(tj)]);
  const objects = [tj, ...js, init];
  i.upsertMany('c1', objects);
  i.flush();
  const rows = i.allRows();
  const jobset = byKind(rows, 'JobSet')[0];
  assert.ok(jobset, 'the JobSet row');
  assert.equal(jobset.gpus.requested, 12);
  assert.deepEqual(jobset.ownership.ownedBy, { apiVersion: 'training.example.com/v1', kind: 'TrainingRun', namespace: 'default', name: 'tj-gpt' });
  const own = byKind(rows, 'TrainingRun');
  assert.equal(own.length, 1);
  assert.equal(own[0].gpus.requested, 1);
  assert.equal(rows.length, 2);
  assert.equal(requested(rows), podGpus(objects));

  // Without its own pod, the owner is no row: the JobSet holds everything.
  i.remove('c1', init);
  i.flush();
  assert.deepEqual(i.allRows().map((r) => r.kind), ['JobSet']);
});

test('registering a definition for the owner turns it into the row, live', () => {
  const i = index();
  const tj = trainJob('tj-x', 'default');
  const js = jobSetObjects({ name: 'x', workers: 1, gpus: 2 });
  js[0].metadata!.ownerReferences = [refTo(tj)];
  i.upsertMany('c1', [tj, ...js]);
  i.flush();
  assert.deepEqual(i.allRows().map((r) => r.kind), ['JobSet']);
  const karta: KubeObject = {
    apiVersion: 'run.ai/v1alpha1',
    kind: 'Karta',
    metadata: { name: 'trainjob', uid: 'uid-karta-trainjob', resourceVersion: '1', creationTimestamp: '2026-12-01T00:00:00Z' },
    spec: {
      structureDefinition: {
        rootComponent: { name: 'trainjob', kind: { group: 'training.example.com', version: 'v1', kind: 'TrainingRun' }, statusDefinition: { statusMappings: { running: [{ byExpression: { expression: 'true', expectedResult: 'true' } }] } } },
        childComponents: [{ name: 'jobset', kind: { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' }, ownerRef: 'trainjob' }],
      },
    },
  };
  i.upsert('c1', karta);
  i.flush();
  const rows = i.allRows();
  assert.deepEqual(rows.map((r) => r.kind), ['TrainingRun'], JSON.stringify(rows.map((r) => [r.id, r.errors])));
  assert.equal(rows[0].definition.name, 'trainjob');
  assert.equal(rows[0].gpus.requested, 4);
  assert.deepEqual(rows[0].gpus.unknown, []);
});

test('a chain of kinds without definitions ends at its top; a bare pod is its own row', () => {
  const i = index();
  const top = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'r', namespace: 'default', uid: 'uid-rollout' } };
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r-abc', namespace: 'default', uid: 'uid-rs', ownerReferences: [refTo(top)] } };
  const objects = [top, rs, pod('r-abc-1', 2, [refTo(rs)]), pod('r-abc-2', 2, [refTo(rs)]), pod('bare', 1)];
  i.upsertMany('c1', objects);
  i.flush();
  const rows = i.allRows();
  assert.deepEqual(rows.map((r) => `${r.kind}/${r.name}:${r.gpus.requested}`).sort(), ['Pod/bare:1', 'Rollout/r:4']);
  assert.equal(byKind(rows, 'Pod')[0].definition.source, 'catalog');
  assert.equal(requested(rows), podGpus(objects));
});

test('broken chains still count: an absent owner, a self-reference and a cycle each leave the pod in one row, marked why', () => {
  const i = index();
  const ghost = { apiVersion: 'batch/v1', kind: 'Job', name: 'gone', uid: 'uid-gone', controller: true };
  const orphan = pod('orphan', 2, [ghost]);
  const selfish = pod('selfish', 1);
  selfish.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'selfish', uid: selfish.metadata!.uid!, controller: true }];
  const a: KubeObject = { apiVersion: 'example.com/v1', kind: 'Loop', metadata: { name: 'a', namespace: 'default', uid: 'uid-a' } };
  const b: KubeObject = { apiVersion: 'example.com/v1', kind: 'Loop', metadata: { name: 'b', namespace: 'default', uid: 'uid-b', ownerReferences: [refTo(a)] } };
  a.metadata!.ownerReferences = [refTo(b)];
  const looped = pod('looped', 4, [refTo(b)]);
  const objects = [orphan, selfish, a, b, looped];
  i.upsertMany('c1', objects);
  i.flush();
  const rows = i.allRows();
  const of = (name: string) => rows.find((r) => r.name === name);
  assert.match(of('orphan')?.ownership.broken ?? '', /owner Job gone \(batch\/v1\) is absent/);
  assert.equal(of('orphan')?.gpus.requested, 2);
  assert.match(of('selfish')?.ownership.broken ?? '', /names itself/);
  assert.equal(of('selfish')?.gpus.requested, 1);
  const loopRows = rows.filter((r) => r.kind === 'Loop');
  assert.equal(loopRows.length, 1, JSON.stringify(rows.map((r) => r.id)));
  assert.match(loopRows[0].ownership.broken ?? '', /cycle/);
  assert.equal(loopRows[0].gpus.requested, 4);
  assert.equal(requested(rows), podGpus(objects));
});

test('an owner whose kind cannot be read is unknown, not absent: the row says why, keeps its GPUs, and reads "absent" again once the kind is read', () => {
  const i = index();
  const thing = { apiVersion: 'example.com/v1', kind: 'Thing', name: 'th', uid: 'uid-th', controller: true };
  const orphan = pod('th-0', 1, [thing]);
  const bare = pod('bare', 1, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'gone', uid: 'uid-gone', controller: true }]);
  i.upsertMany('c1', [orphan, bare]);
  i.flush();
  const of = (name: string) => i.allRows().find((r) => r.name === name)!;
  assert.match(of('th-0').ownership.broken ?? '', /owner Thing th \(example.com\/v1\) is absent/);
  const since = Date.parse('2026-12-07T10:00:00Z');
  const deltas = i.setKindHealth('c1', new Map([['example.com/Thing', { since, message: 'things.example.com is forbidden: User "wmap" cannot list resource "things"', name: 'things.example.com', unreadable: true }]]));
  assert.deepEqual(deltas.map((d) => d.op === 'upsert' && d.row.name), ['th-0'], 'only the row whose owner is of that kind changes');
  assert.equal(of('th-0').ownership.broken, 'its owner Thing th (example.com/v1) cannot be read (things.example.com: things.example.com is forbidden: User "wmap" cannot list resource "things")');
  // Its own pod's figures stay known: the unreadable kind is its owner's, not what it is built from.
  assert.equal(of('th-0').gpus.requested, 1);
  assert.deepEqual(of('th-0').gpus.unknown, []);
  assert.equal(of('th-0').stale, null);
  assert.match(of('bare').ownership.broken ?? '', /Job gone \(batch\/v1\) is absent/, 'an owner of a readable kind is absent');
  // Resolved again while the kind is unreadable, it says the same.
  i.upsert('c1', { ...orphan, metadata: { ...orphan.metadata, labels: { touched: 'yes' } } });
  i.flush();
  assert.match(of('th-0').ownership.broken ?? '', /cannot be read/);
  i.setKindHealth('c1', new Map());
  assert.match(of('th-0').ownership.broken ?? '', /is absent/);
});

test('hostile owner references neither raise another workload\'s GPUs nor vanish', () => {
  const i = index();
  const js = jobSetObjects({ name: 'w1', workers: 1, gpus: 2 });
  const [jobset, leaderJob] = js;
  // Another namespace, the JobSet's Job uid: the GC ignores such a reference.
  const intruder = pod('intruder', 8, [refTo(leaderJob)], { namespace: 'other' });
  // The right uid under another name.
  const impostor = pod('impostor', 8, [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'not-w1', uid: jobset.metadata!.uid!, controller: true }]);
  const objects = [...js, intruder, impostor];
  i.upsertMany('c1', objects);
  i.flush();
  const rows = i.allRows();
  const w1 = rows.find((r) => r.kind === 'JobSet')!;
  assert.equal(w1.gpus.requested, 4, 'the JobSet keeps its own GPUs only');
  assert.equal(w1.pods.total, 2);
  assert.match(rows.find((r) => r.name === 'intruder')?.ownership.broken ?? '', /namespace default, not other/);
  assert.match(rows.find((r) => r.name === 'impostor')?.ownership.broken ?? '', /has the uid of JobSet w1/);
  assert.equal(requested(rows), podGpus(objects));
});

test('while the lists arrive a pod waits for its owner; after sync an owner still absent is absent', () => {
  let synced = false;
  const i = index({ isSynced: () => synced, isExpectedKind: (_c, gk) => gk === 'batch/Job' });
  const ghost = { apiVersion: 'batch/v1', kind: 'Job', name: 'late', uid: 'uid-late', controller: true };
  i.upsertMany('c1', [pod('late-0', 3, [ghost])]);
  i.flush();
  assert.equal(i.allRows().length, 0, 'held while listing');
  synced = true;
  i.flush();
  const rows = i.allRows();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].gpus.requested, 3);
  assert.match(rows[0].ownership.broken ?? '', /absent/);
  // The owner shows up after all: the pod joins its Job's row.
  i.upsert('c1', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'late', namespace: 'default', uid: 'uid-late' }, spec: { template: { spec: { containers: [{ name: 'c' }] } } } });
  i.flush();
  assert.deepEqual(i.allRows().map((r) => `${r.kind}/${r.name}:${r.gpus.requested}`), ['Job/late:3']);
});

test('the page of a workload without a definition lists its raw ownership tree with the pods and GPUs', async () => {
  const { workloadDetail } = await import('./views.ts');
  const i = index();
  const tj = trainJob('tj-page');
  i.upsertMany('c1', [tj, pod('tj-page-0', 8, [refTo(tj)], { namespace: 'team-a' }), pod('tj-page-1', 8, [refTo(tj)], { namespace: 'team-a' })]);
  i.flush();
  const d = workloadDetail(i, 'c1', 'team-a', 'TrainingRun', 'tj-page')!;
  assert.ok(d, 'the detail');
  assert.equal(d.definition.source, 'none');
  assert.deepEqual(d.owned.map((o) => `${o.kind} ${o.name} ${o.owner === null ? 'root' : o.owner} ${o.pod?.gpus ?? '-'}`), ['TrainingRun tj-page root -', `Pod tj-page-0 uid-tj-tj-page 8`, `Pod tj-page-1 uid-tj-tj-page 8`]);
  assert.equal(d.ownedTruncated, 0);
});
