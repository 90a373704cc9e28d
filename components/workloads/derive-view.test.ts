import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveView } from './derive-view.ts';
import { facetCounts, filterRows, textTerms } from './row-filter.ts';
import { sortRows } from './row-sort.ts';
import { totalsOf } from './totals.ts';
import { DEFAULT_VIEW } from './view-state.ts';
import type { ViewState } from './view-state.ts';
import { makeRow, manyRows } from './test-rows.ts';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const rows = [
  makeRow({ name: 'a-train', namespace: 'team-a', kind: 'JobSet', allocated: 12, status: 'Running', createdAt: '2026-12-01T00:00:00Z' }),
  makeRow({ name: 'b-serve', namespace: 'team-b', kind: 'InferenceService', allocated: 1, status: 'Running', cluster: 'east', createdAt: '2026-12-02T09:00:00Z' }),
  makeRow({ name: 'c-wait', namespace: 'team-a', kind: 'PyTorchJob', allocated: 0, requested: 8, desired: 8, status: 'Initializing', statusReason: 'Unschedulable' }),
  makeRow({ name: 'd-cpu', namespace: 'team-b', kind: 'Deployment', allocated: 0, status: 'Completed', createdAt: null }),
];
const view = (p: Partial<ViewState>): ViewState => ({ ...DEFAULT_VIEW, ...p });
const names = (rs: { name: string }[]) => rs.map((r) => r.name);

test('list filters are any-of, different filters all-of', () => {
  assert.deepEqual(names(filterRows(rows, view({ status: ['Running', 'Completed'] }))), ['a-train', 'b-serve', 'd-cpu']);
  assert.deepEqual(names(filterRows(rows, view({ status: ['Running'], namespace: ['team-b'] }))), ['b-serve']);
  assert.deepEqual(names(filterRows(rows, view({ kind: ['PyTorchJob'] }))), ['c-wait']);
  assert.deepEqual(names(filterRows(rows, view({ cluster: ['east'] }))), ['b-serve']);
});

test('GPU range on allocated or requested, inclusive', () => {
  assert.deepEqual(names(filterRows(rows, view({ minGpus: 1, maxGpus: 12 }))), ['a-train', 'b-serve']);
  assert.deepEqual(names(filterRows(rows, view({ minGpus: 8 }))), ['a-train']);
  assert.deepEqual(names(filterRows(rows, view({ minGpus: 8, gpuField: 'requested' }))), ['a-train', 'c-wait']);
  assert.deepEqual(names(filterRows(rows, view({ maxGpus: 0 }))), ['c-wait', 'd-cpu']);
});

test('presets: using GPUs, and waiting for GPUs (requested > allocated)', () => {
  assert.deepEqual(names(filterRows(rows, view({ preset: 'using' }))), ['a-train', 'b-serve']);
  assert.deepEqual(names(filterRows(rows, view({ preset: 'waiting' }))), ['c-wait']);
});

test('free text: every term, case-insensitive, over name, namespace, kind, reason …', () => {
  assert.deepEqual(textTerms('  A  b '), ['a', 'b']);
  assert.deepEqual(names(filterRows(rows, view({ q: 'TEAM-A' }))), ['a-train', 'c-wait']);
  assert.deepEqual(names(filterRows(rows, view({ q: 'team-a unschedulable' }))), ['c-wait']);
  assert.deepEqual(names(filterRows(rows, view({ q: 'inferenceservice' }))), ['b-serve']);
  assert.deepEqual(names(filterRows(rows, view({ q: 'nothing-like-this' }))), []);
});

test('sort by every column, ties broken by identity, input untouched', () => {
  const before = names(rows);
  assert.deepEqual(names(sortRows(rows, 'allocated', 'desc')), ['a-train', 'b-serve', 'c-wait', 'd-cpu']);
  assert.deepEqual(names(sortRows(rows, 'requested', 'desc')), ['a-train', 'c-wait', 'b-serve', 'd-cpu']);
  assert.deepEqual(names(sortRows(rows, 'name', 'desc')), ['d-cpu', 'c-wait', 'b-serve', 'a-train']);
  // Running ties: cluster 'east' sorts before 'sim'.
  assert.deepEqual(names(sortRows(rows, 'status', 'asc')), ['c-wait', 'b-serve', 'a-train', 'd-cpu']);
  assert.deepEqual(names(sortRows(rows, 'kind', 'asc')), ['d-cpu', 'b-serve', 'a-train', 'c-wait']);
  // Youngest first when ascending; no creation time sorts as the oldest.
  assert.deepEqual(names(sortRows(rows, 'age', 'asc')), ['b-serve', 'c-wait', 'a-train', 'd-cpu']);
  assert.deepEqual(names(sortRows(rows, 'cluster', 'asc')), ['b-serve', 'a-train', 'c-wait', 'd-cpu']);
  for (const k of ['namespace', 'pods', 'roles', 'desired'] as const) assert.equal(sortRows(rows, k, 'asc').length, 4);
  assert.deepEqual(names(rows), before);
});

test('totals of what is shown', () => {
  assert.deepEqual(totalsOf(rows), { workloads: 4, allocated: 13, requested: 21, desired: 21, podsReady: 0, podsTotal: 0 });
  const d = deriveView(rows, view({ namespace: ['team-a'] }), NOW);
  assert.equal(d.totals.workloads, 2);
  assert.equal(d.totals.allocated, 12);
  assert.equal(d.totals.requested, 20);
});

test('facet counts list each value once with its count', () => {
  assert.deepEqual(facetCounts(rows, 'namespace'), [{ value: 'team-a', count: 2 }, { value: 'team-b', count: 2 }]);
});

test('a bad CEL expression filters nothing and says why', () => {
  const d = deriveView(rows, view({ cel: 'gpus.allocated >=' }), NOW);
  assert.equal(d.rows.length, 4);
  assert.match(d.cel.error ?? '', /Unexpected token/);
  const ok = deriveView(rows, view({ cel: 'gpus.allocated >= 8', sort: 'allocated', order: 'asc' }), NOW);
  assert.equal(ok.cel.error, null);
  assert.deepEqual(names(ok.rows), ['a-train']);
});

test('10,000 rows filter, CEL-filter and sort well under a second', () => {
  const big = manyRows(10_000);
  deriveView(big, view({ cel: 'gpus.allocated >= 4' }), NOW); // warm caches as the page would
  const cases: Partial<ViewState>[] = [
    { sort: 'allocated', order: 'desc' },
    { q: 'team-1', sort: 'name' },
    { minGpus: 4, maxGpus: 16, status: ['Running'], sort: 'age' },
    { cel: 'gpus.allocated >= 4 && status == "Running"', sort: 'status' },
  ];
  for (const c of cases) {
    const t0 = performance.now();
    const d = deriveView(big, view(c), NOW);
    const ms = performance.now() - t0;
    assert.ok(d.rows.length > 0);
    assert.ok(ms < 800, `${JSON.stringify(c)} took ${ms.toFixed(0)} ms`);
  }
});
