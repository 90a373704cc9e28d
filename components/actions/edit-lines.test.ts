import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffLines, parseEditLines } from './edit-lines.ts';

test('key=value sets, key- removes, blank lines and comments are skipped', () => {
  const p = parseEditLines('team=llm\n\n# comment\n tier = gold \nold-\n', { removals: true, what: 'label' });
  assert.deepEqual(p, { set: { team: 'llm', tier: 'gold', old: null }, errors: [] });
});

test('a value may hold "=" and be empty; resources take no removals', () => {
  assert.deepEqual(parseEditLines('A=x=y\nB=', { removals: true, what: 'variable' }).set, { A: 'x=y', B: '' });
  const r = parseEditLines('cpu-', { removals: false, what: 'resource' });
  assert.deepEqual(r.errors, ['line 1: "cpu-" is not name=value']);
});

test('mistakes name their line; nothing given is an error', () => {
  assert.deepEqual(parseEditLines('a=1\na=2\n=x\nnonsense', { removals: true, what: 'label' }).errors, ['line 2: a is given twice', 'line 3: the label has no name', 'line 4: "nonsense" is not key=value or key-']);
  assert.deepEqual(parseEditLines('  \n', { removals: true, what: 'label' }).errors, ['give at least one label']);
});

test('diff lines are classified for colouring', () => {
  const kinds = diffLines('Index: x\n===\n--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same\n').map((l) => l.kind);
  assert.deepEqual(kinds, ['header', 'header', 'header', 'hunk', 'remove', 'add', 'context']);
});
