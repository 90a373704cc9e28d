import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CEL_VARIABLES, DEFAULT_QUERY, rowMatcher } from '../../lib/rows/index.ts';
import { makeRow } from '../../lib/rows/test-rows.ts';
import { CEL_HELP_EXAMPLES, CEL_HELP_VARIABLES } from './cel-help.ts';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const rows = [
  makeRow({ name: 'big', allocated: 16, status: 'Running', utilization: 5, roles: [{ name: 'worker', pods: 4, desired: 4 }] }),
  makeRow({ name: 'small', allocated: 2, status: 'Running', utilization: 80 }),
  makeRow({ name: 'none', allocated: 0, requested: 0, roles: [{ name: 'worker', pods: 1, desired: 2 }] }),
  makeRow({ name: 'mig', allocated: 3, resource: 'nvidia.com/mig-1g.5gb' }),
];

/** The rows an example keeps; an example that fails on any row is a bad example (it hides rows). */
function kept(source: string): string[] {
  const m = rowMatcher({ ...DEFAULT_QUERY, cel: source }, NOW, rows);
  const out = rows.filter((r) => m.test(r)).map((r) => r.name);
  assert.equal(m.cel.error, null, `${source}: ${m.cel.error}`);
  assert.equal(m.cel.failures, 0, `${source} failed on ${m.cel.failures} rows: ${m.cel.firstError}`);
  return out;
}

const expected: Record<string, string[]> = {
  'gpus.allocated >= 8 && status == "Running"': ['big'],
  'gpus.byResource.allocated[?"nvidia.com/gpu"].orValue(0) > 2': ['big'],
  'gpus.byResource.requested.exists(r, r.startsWith("nvidia.com/mig-"))': ['mig'],
  'roles.exists(r, r.pods < r.desired)': ['none'],
  'utilization != null && utilization < 10': ['big'],
};

test('every example in the help filters the rows it says, and fails on none', () => {
  assert.deepEqual(CEL_HELP_EXAMPLES.map((e) => e.code).sort(), Object.keys(expected).sort());
  for (const e of CEL_HELP_EXAMPLES) assert.deepEqual(kept(e.code), expected[e.code], e.code);
});

test('the byResource shape: by figure, then by resource (the old help text dropped every row)', () => {
  assert.deepEqual(kept('gpus.byResource.allocated[?"nvidia.com/gpu"].orValue(0) > 2'), ['big']);
  const wrong = rowMatcher({ ...DEFAULT_QUERY, cel: 'gpus.byResource[?"nvidia.com/gpu"].orValue(0) > 2' }, NOW);
  assert.deepEqual(rows.filter((r) => wrong.test(r)), []);
});

test('every variable the help names is one an expression may use', () => {
  for (const v of CEL_HELP_VARIABLES) {
    const root = v.code.split(/[.|]/)[0];
    assert.ok((CEL_VARIABLES as readonly string[]).includes(root), v.code);
  }
});
