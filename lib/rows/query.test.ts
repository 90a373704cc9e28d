import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CASE_NOW, CASE_ROWS, QUERY_CASES } from './query-cases.ts';
import { DEFAULT_QUERY, clearFilters, encodeQuery, facetCounts, hasFilters, parseQuery, runQuery, textTerms, toggleSort, totalsOf, type RowQuery } from './index.ts';
import { manyRows } from './test-rows.ts';

for (const c of QUERY_CASES) {
  test(`query: ${c.what} (${c.query || 'empty'})`, () => {
    const { query, problems } = parseQuery(c.query);
    assert.deepEqual(problems.map((p) => p.param), c.problems ?? []);
    const r = runQuery(CASE_ROWS, query, CASE_NOW);
    assert.deepEqual(r.rows.map((x) => x.name), c.names);
    assert.equal(r.cel.error !== null, c.celError ?? false, r.cel.error ?? '');
    // The input is left alone.
    assert.deepEqual(CASE_ROWS.map((x) => x.name), ['a-train', 'b-serve', 'c-wait', 'd-cpu']);
  });
}

test('problems name the parameter and say what it must be', () => {
  const { problems } = parseQuery('minGpus=-3&q=' + 'x'.repeat(300));
  assert.deepEqual(problems, [
    { param: 'q', message: 'is 300 characters long; at most 200 are allowed' },
    { param: 'minGpus', message: 'must be a number of GPUs (0 or more), not "-3"' },
  ]);
});

test('the default query encodes to an empty string and back', () => {
  assert.equal(encodeQuery(DEFAULT_QUERY), '');
  assert.deepEqual(parseQuery('').query, DEFAULT_QUERY);
});

test('every field survives a round trip through the URL', () => {
  const v: RowQuery = {
    q: 'llama train',
    status: ['Running', 'Failed'],
    kind: ['JobSet'],
    namespace: ['team-a', 'team b'],
    cluster: ['prod/eu,1'],
    definition: ['none', 'jobset-x-k8s-io-jobset-v1alpha2'],
    gpuField: 'requested',
    minGpus: 4,
    maxGpus: 16,
    preset: 'waiting',
    minUtil: 5,
    maxUtil: 30,
    cel: 'gpus.allocated >= 8 && status == "Running"',
    sort: 'allocated',
    order: 'asc',
  };
  // Context names may hold commas: clusters are never split.
  assert.deepEqual(parseQuery(encodeQuery(v)).query, v);
});

test('comma-separated and repeated list parameters are both read, without duplicates', () => {
  const v = parseQuery('status=Running,Failed&status=Failed&kind=%20JobSet%20').query;
  assert.deepEqual(v.status, ['Running', 'Failed']);
  assert.deepEqual(v.kind, ['JobSet']);
});

test('numeric columns sort descending by default and omit the order when it is the default', () => {
  const v = toggleSort(DEFAULT_QUERY, 'allocated');
  assert.equal(v.order, 'desc');
  assert.equal(encodeQuery(v), 'sort=allocated');
  assert.deepEqual(parseQuery('sort=allocated').query, v);
  const flipped = toggleSort(v, 'allocated');
  assert.equal(flipped.order, 'asc');
  assert.equal(encodeQuery(flipped), 'sort=allocated&order=asc');
  assert.equal(encodeQuery(toggleSort(DEFAULT_QUERY, 'name')), 'sort=name&order=desc');
});

test('zero is a real bound, not an absent one', () => {
  const v = parseQuery('minGpus=0&maxGpus=0').query;
  assert.equal(v.minGpus, 0);
  assert.equal(v.maxGpus, 0);
  assert.equal(encodeQuery(v), 'minGpus=0&maxGpus=0');
});

test('hasFilters ignores the sort; clearFilters keeps it', () => {
  const sorted = toggleSort(DEFAULT_QUERY, 'age');
  assert.equal(hasFilters(sorted), false);
  const filtered = { ...sorted, q: 'x', status: ['Running'] };
  assert.equal(hasFilters(filtered), true);
  assert.deepEqual(clearFilters(filtered), sorted);
});

test('text terms split on whitespace', () => {
  assert.deepEqual(textTerms('  A  b '), ['a', 'b']);
});

test('totals of what is shown; facet counts list each value once', () => {
  assert.deepEqual(totalsOf(CASE_ROWS), { workloads: 4, allocated: 13, requested: 21, desired: 21, allocatedUnknown: 0, requestedUnknown: 0, desiredUnknown: 0, podsReady: 0, podsTotal: 0, podsUnknown: 0, used: 11.06, measured: 13, idle: 1 });
  const r = runQuery(CASE_ROWS, parseQuery('namespace=team-a').query, CASE_NOW);
  assert.deepEqual([r.totals.workloads, r.totals.allocated, r.totals.requested], [2, 12, 20]);
  assert.deepEqual(facetCounts(CASE_ROWS, 'namespace'), [{ value: 'team-a', count: 2 }, { value: 'team-b', count: 2 }]);
});

test('10,000 varied rows: every query gives a total order that is stable across runs', () => {
  const big = manyRows(10_000);
  for (const qs of ['sort=allocated', 'q=team-1&sort=name', 'minGpus=4&maxGpus=16&status=Running&sort=age', 'cel=gpus.allocated%20%3E%3D%204&sort=status']) {
    const q = parseQuery(qs).query;
    const a = runQuery(big, q, CASE_NOW).rows.map((r) => r.id);
    const b = runQuery([...big].reverse(), q, CASE_NOW).rows.map((r) => r.id);
    assert.ok(a.length > 0, qs);
    assert.deepEqual(a, b, qs);
  }
});

test('workloads without a definition: filtered by definition=none; their unknown desired GPUs are in no range, sort last and stay out of the sum', async () => {
  const { makeRow } = await import('./test-rows.ts');
  const { runQuery } = await import('./run-query.ts');
  const rows = [
    makeRow({ name: 'known', allocated: 4, desired: 8 }),
    makeRow({ name: 'trainjob', kind: 'TrainJob', allocated: 16, desired: 0, noDefinition: true }),
    makeRow({ name: 'small', allocated: 1, desired: 1 }),
  ];
  const names = (q: string) => runQuery(rows, parseQuery(q).query, Date.parse('2026-12-02T10:00:00Z')).rows.map((r) => r.name);
  assert.deepEqual(names('definition=none'), ['trainjob']);
  assert.deepEqual(names('definition=jobset-x-k8s-io-jobset-v1alpha2'), ['known', 'small']);
  assert.deepEqual(names('gpuField=desired&maxGpus=100'), ['known', 'small']);
  assert.deepEqual(names('gpuField=allocated&minGpus=10'), ['trainjob']);
  assert.deepEqual(names('sort=desired'), ['known', 'small', 'trainjob']);
  assert.deepEqual(names('sort=desired&order=asc'), ['small', 'known', 'trainjob']);
  const t = runQuery(rows, parseQuery('').query, 0).totals;
  assert.equal(t.desired, 9);
  assert.equal(t.desiredUnknown, 1);
  assert.equal(t.allocated, 21);
});

test('totals leave unknown figures out and count them: pods that cannot be read are not 0 GPUs', async () => {
  const { makeRow } = await import('./test-rows.ts');
  const unread = makeRow({ name: 'blind', allocated: 0, desired: 8, ready: 0, total: 0 });
  const blind = { ...unread, gpus: { ...unread.gpus, unknown: ['allocated', 'requested'] as Array<'allocated' | 'requested'> }, pods: { ...unread.pods, unknown: true } };
  const t = totalsOf([makeRow({ name: 'seen', allocated: 4, ready: 1, total: 1 }), blind]);
  assert.deepEqual([t.allocated, t.allocatedUnknown, t.requested, t.requestedUnknown, t.desired, t.desiredUnknown, t.podsTotal, t.podsUnknown], [4, 1, 4, 1, 12, 0, 1, 1]);
});
