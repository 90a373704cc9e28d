import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkloadRow } from '../../contract/index.ts';
import { compileCelFilter } from './cel-filter.ts';
import { assertLinearTime } from '../testing/linear-time.ts';
import { rowMatcher } from './filter.ts';
import { DEFAULT_QUERY } from './query.ts';
import { makeRow, manyRows } from './test-rows.ts';

/** The rows an expression keeps, and how it failed on the others (through the query's matcher). */
function runCel(source: string, all: readonly WorkloadRow[], now: number) {
  const m = rowMatcher({ ...DEFAULT_QUERY, cel: source }, now);
  const kept = all.filter((r) => m.test(r));
  return { rows: kept, failures: m.cel.failures, firstError: m.cel.firstError };
}

const NOW = Date.parse('2026-12-02T10:00:00Z');
const rows = [
  makeRow({ name: 'big', allocated: 16, status: 'Running', roles: [{ name: 'worker', pods: 4, desired: 4 }] }),
  makeRow({ name: 'small', allocated: 2, status: 'Running' }),
  makeRow({ name: 'stuck', allocated: 0, requested: 8, status: 'Initializing', createdAt: '2026-12-02T09:30:00Z' }),
  makeRow({ name: 'mig', allocated: 3, resource: 'nvidia.com/mig-1g.5gb' }),
];

function names(source: string): string[] {
  const f = compileCelFilter(source);
  assert.equal(f.ok, true, f.ok ? '' : f.error);
  if (!f.ok) return [];
  return runCel(source, rows, NOW).rows.map((r) => r.name);
}

test('the issue example: whole numbers are ints, fields are top-level', () => {
  assert.deepEqual(names('gpus.allocated >= 8 && status == "Running"'), ['big']);
  assert.deepEqual(names('gpus.allocated >= 8.0'), ['big']);
  assert.deepEqual(names('gpus.requested > gpus.allocated'), ['stuck']);
});

test('self, string functions, maps, lists and macros work', () => {
  assert.deepEqual(names('self.name.startsWith("s")'), ['small', 'stuck']);
  assert.deepEqual(names('"nvidia.com/mig-1g.5gb" in gpus.byResource.allocated'), ['mig']);
  assert.deepEqual(names('gpus.byResource.allocated.exists(r, r.startsWith("nvidia.com/mig-"))'), ['mig']);
  assert.deepEqual(names('roles.exists(r, r.name == "worker" && r.pods == 4)'), ['big']);
});

test('the namespace is ns, since namespace is a reserved word in CEL', () => {
  assert.deepEqual(names('ns == "default" && self.namespace == ns && name == "big"'), ['big']);
});

test('age (seconds) and createdAt (timestamp) compare with now', () => {
  assert.deepEqual(names('age < 3600'), ['stuck']);
  assert.deepEqual(names('now - createdAt < duration("1h")'), ['stuck']);
});

test('a syntax error is reported with the place it happened', () => {
  const f = compileCelFilter('status ==');
  assert.equal(f.ok, false);
  if (!f.ok) {
    assert.match(f.error, /Unexpected token/);
    assert.match(f.error, /\^/);
  }
});

test('an unknown variable is caught before evaluation', () => {
  const f = compileCelFilter('gpu.allocated > 1');
  assert.equal(f.ok, false);
  if (!f.ok) assert.match(f.error, /Unknown variable: gpu/);
});

test('an expression that is not true/false is refused', () => {
  const f = compileCelFilter('1 + 2');
  assert.equal(f.ok, false);
  if (!f.ok) assert.match(f.error, /true or false/);
});

test('a row on which the expression fails is left out and counted', () => {
  const f = compileCelFilter('gpus.nope == 1');
  assert.equal(f.ok, true);
  if (!f.ok) return;
  const r = runCel(f.source, rows, NOW);
  assert.equal(r.rows.length, 0);
  assert.equal(r.failures, rows.length);
  assert.match(r.firstError ?? '', /No such key: nope/);
  const dyn = compileCelFilter('gpus.allocated');
  assert.equal(dyn.ok, true);
  if (dyn.ok) assert.match(runCel(dyn.source, rows, NOW).firstError ?? '', /instead of true or false/);
});

test('10,000 rows evaluate in time proportional to the rows', () => {
  const f = compileCelFilter('gpus.allocated >= 8 && status == "Running" && ns.startsWith("team-1")');
  assert.equal(f.ok, true);
  if (!f.ok) return;
  const r = runCel(f.source, manyRows(10_000), NOW);
  assert.ok(r.rows.length > 0 && r.failures === 0);
  const sets = new Map<number, ReturnType<typeof manyRows>>();
  const rowsOf = (n: number) => sets.get(n) ?? sets.set(n, manyRows(n)).get(n)!;
  // The first run over a set converts each row once (assertLinearTime's warm-up); the timed runs reuse it.
  assertLinearTime((n) => void runCel(f.source, rowsOf(n), NOW), 10_000, 'a CEL filter over rows');
});

test('hostile filters are refused or bounded by steps, never by time, in the page as on the server', () => {
  const ten = '[0,1,2,3,4,5,6,7,8,9]';
  let nested = 'true';
  for (let i = 0; i < 8; i++) nested = `${ten}.all(x${i}, ${nested})`;
  const refused = compileCelFilter(nested);
  assert.equal(refused.ok, false);
  if (!refused.ok) assert.match(refused.error, /too costly: at least \d+ steps per evaluation, the limit is 10000/);
  // Cheap on small rows, too costly on a row with long lists: that row fails with a cost error.
  const cubic = 'roles.all(a, roles.all(b, roles.all(c, a.pods + b.pods + c.pods >= 0)))';
  const small = runCel(cubic, [makeRow({ roles: [{ name: 'w', pods: 1, desired: 1 }] })], NOW);
  assert.deepEqual([small.rows.length, small.failures], [1, 0]);
  const long = makeRow({ roles: Array.from({ length: 40 }, (_, i) => ({ name: `r${i}`, pods: i, desired: i })) });
  const r = runCel(cubic, [long], NOW);
  assert.equal(r.rows.length, 0);
  assert.match(r.firstError ?? '', /exceeds its cost limit of 10000 steps on this data/);
});

test('over many rows the total is bounded too: the expression is then not used, and says why', () => {
  const rows = manyRows(10_000).map((x) => ({ ...x, roles: Array.from({ length: 8 }, (_, i) => ({ name: `r${i}`, pods: i, desired: i })) }));
  const m = rowMatcher({ ...DEFAULT_QUERY, cel: 'roles.all(a, roles.all(b, roles.all(c, a.pods + b.pods + c.pods >= 0)))' }, NOW, rows);
  assert.match(m.cel.error ?? '', /too costly for 10000 rows/);
  assert.ok(rows.every((x) => m.test(x)), 'an unusable expression filters nothing');
});

test('matches runs in linear time (RE2), so a catastrophic pattern is harmless', () => {
  const t0 = performance.now();
  const r = runCel('name.matches("^(a+)+$")', [makeRow({ name: `${'a'.repeat(40)}b` }), makeRow({ name: 'aaaa' })], NOW);
  assert.deepEqual(r.rows.map((x) => x.name), ['aaaa']);
  assert.ok(performance.now() - t0 < 2000);
  const bad = runCel('name.matches("(?<=a)b")', [makeRow({ name: 'ab' })], NOW);
  assert.match(bad.firstError ?? '', /invalid regular expression .*RE2/);
});
