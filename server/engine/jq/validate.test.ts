import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkExpression } from './index.ts';
import { UPSTREAM_EXPRESSIONS, UPSTREAM_INVALID } from './upstream-expressions.ts';

const DEL = 'del function is not allowed';
const excessive = (f: string): string => `function '${f}' may produce excessive output and is not allowed`;
const RECURSIVE = "recursive descent operator '..' is not allowed";
const modifying = (op: string): string => `modifying operator '${op}' is not allowed`;

/** Every place in the AST an expression can sit; `X` is replaced by the forbidden construct. */
const POSITIONS = [
  'X',
  '(X)',
  '.a | X',
  'X | .a',
  '.a, X',
  '[X]',
  '{a: (X)}',
  '{(X): 1}',
  '"s\\(X)e"',
  '@base64 "s\\(X)e"',
  'if X then 1 else 2 end',
  'if . then X else 2 end',
  'if . then 1 elif X then 2 else 3 end',
  'if . then 1 elif . then X else 3 end',
  'if . then 1 else X end',
  'if . then X end',
  'try X',
  'try 1 catch X',
  '(X)?',
  'reduce (X) as $x (0; .)',
  'reduce .[] as $x (X; .)',
  'reduce .[] as $x (0; X)',
  'foreach (X) as $x (0; .)',
  'foreach .[] as $x (0; X)',
  'foreach .[] as $x (0; .; X)',
  '(X) as $x | $x',
  '.a as $x | X',
  '. as $x | X',
  '. as {a: $x} | X',
  '. as [$x] | X',
  '. as {(X): $v} | $v',
  '{"k\\(X)"}',
  '{"k\\(X)": 1}',
  '.[X]',
  '.a[X]',
  '.[X:]',
  '.[:X]',
  '.[1:X]',
  'select(X)',
  'map(X)',
  'any(.[]; X)',
  'first(X)',
  'def f: X; f',
  'def f(g): g; f(X)',
  '1 + X',
  'X * 2',
  '(X) // 1',
  '1 // X',
  'X and true',
  'false or X',
  '(X) == 1',
  '-(X)',
  'label $out | X',
  '[.[] | X]',
];

const FORBIDDEN: Array<[string, string]> = [
  ['del(.a)', DEL],
  ['range(10)', excessive('range')],
  ['range(0; 10)', excessive('range')],
  ['paths', excessive('paths')],
  ['paths(type == "number")', excessive('paths')],
  ['recurse', excessive('recurse')],
  ['recurse(.[]?)', excessive('recurse')],
  ['walk(.)', excessive('walk')],
  ['repeat(.)', excessive('repeat')],
  ['..', RECURSIVE],
  ['.a = 1', modifying('=')],
  ['.a |= 1', modifying('|=')],
  ['.a += 1', modifying('+=')],
  ['.a -= 1', modifying('-=')],
  ['.a *= 1', modifying('*=')],
  ['.a /= 1', modifying('/=')],
  ['.a %= 1', modifying('%=')],
  ['.a //= 1', modifying('//=')],
];

describe('checkExpression', () => {
  it('accepts every upstream definition expression (§2.7)', () => {
    for (const e of UPSTREAM_EXPRESSIONS) assert.deepEqual(checkExpression(e), [], e);
  });

  it('accepts the empty position wrappers themselves', () => {
    for (const p of POSITIONS) assert.deepEqual(checkExpression(p.replace('X', '.a')), [], p);
  });

  it('rejects every forbidden construct in every AST position', () => {
    let checked = 0;
    for (const [construct, message] of FORBIDDEN) {
      for (const p of POSITIONS) {
        const src = p.replace('X', construct);
        const problems = checkExpression(src);
        assert.ok(problems.includes(message), `${src}: ${JSON.stringify(problems)}`);
        checked++;
      }
    }
    assert.equal(checked, FORBIDDEN.length * POSITIONS.length);
  });

  it('catches the positions the old walker missed (P-08)', () => {
    assert.deepEqual(checkExpression('(del(.a))'), [DEL]);
    assert.deepEqual(checkExpression('[range(10)]'), [excessive('range')]);
    assert.deepEqual(checkExpression('[..]'), [RECURSIVE]);
    assert.deepEqual(checkExpression('(.a = 1)'), [modifying('=')]);
    assert.deepEqual(checkExpression('if . then del(.x) else . end'), [DEL]);
  });

  it('reports several problems at once, each once', () => {
    assert.deepEqual(checkExpression('[.. , del(.a), del(.b)] | .x |= 1'), [RECURSIVE, DEL, modifying('|=')]);
  });

  it('reports parse errors', () => {
    const p = checkExpression('.a[');
    assert.equal(p.length, 1);
    assert.equal(p[0], 'failed to parse: unexpected EOF (at offset 3)');
    assert.equal(checkExpression('.a | | .b')[0], 'failed to parse: unexpected token "|" (at offset 5)');
    assert.match(checkExpression('"unterminated')[0], /failed to parse/);
    assert.match(checkExpression('{a: 1 + 2}')[0], /failed to parse/);
  });

  it('reports compile errors (which upstream validation misses, P-04)', () => {
    for (const e of UPSTREAM_INVALID) {
      const p = checkExpression(e);
      assert.equal(p.length, 1, e);
      assert.match(p[0], /^failed to compile: function not defined: /, e);
    }
    assert.deepEqual(checkExpression('.metadata.labels.job-name'), ['failed to compile: function not defined: name/0']);
    assert.match(checkExpression('map(.a; .b)')[0], /function not defined: map\/2/);
    assert.match(checkExpression('keys_unsorted')[0], /function not defined: keys_unsorted\/0/);
    assert.match(checkExpression('now')[0], /function not defined: now\/0/);
    assert.match(checkExpression('break $nowhere')[0], /label not defined: \$nowhere/);
  });

  it('does not reject names that merely contain a forbidden word', () => {
    assert.deepEqual(checkExpression('.range, .del, .paths, ."..", leaf_paths, .recursive'), []);
    assert.deepEqual(checkExpression('.a == 1 and .b != 2 and .c <= 3 and .d >= 4'), []);
  });
});
