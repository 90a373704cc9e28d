/** The stack-safe JSON walks (deep-json.ts) and the object helpers that fall back to them. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyValueIteratively, deepEqualIteratively, deepFreezeAll, encodeJson } from './deep-json.ts';
import { clone, copyValue, deepEqual, deepFreeze } from './object-utils.ts';

/** `{a:{a:…{a:leaf}}}` built without recursion. */
function deep(levels: number, leaf: unknown = 1): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v, n: [i, null] };
  return v as Record<string, unknown>;
}

test('encodeJson writes what JSON.stringify writes, also where JSON.stringify overflows the stack', () => {
  const samples: unknown[] = [
    { a: 1, b: [1, 'x', null, undefined, { c: undefined, d: true }], e: undefined, f: new Date(0), g: -0, h: 1e21, i: NaN, j: 'é"\n' },
    [undefined, () => 1, Symbol('s')],
    'plain',
    42,
    null,
  ];
  for (const s of samples) assert.equal(encodeJson(s), JSON.stringify(s));
  assert.throws(() => JSON.stringify(deep(20_000)), RangeError);
  const text = encodeJson(deep(20_000));
  assert.ok(text.startsWith('{"a":{"a":'));
  assert.deepEqual(JSON.parse(text).n, [19_999, null]);
  // The iterative encoder agrees with JSON.stringify where both work.
  const mid = deep(500, { x: [1, { y: 'z' }] });
  assert.equal(encodeJson(mid), JSON.stringify(mid));
});

test('deepFreeze, copyValue, deepEqual and clone handle 20000 levels', () => {
  const a = deep(20_000);
  const b = deep(20_000);
  assert.equal(deepEqual(a, b), true);
  b.n = 'changed';
  assert.equal(deepEqual(a, b), false);
  const c = copyValue(a) as Record<string, unknown>;
  assert.notEqual(c, a);
  assert.equal(deepEqualIteratively(c, a), true);
  deepFreeze(a);
  let cur: unknown = a;
  for (let i = 0; i < 20_000; i++) {
    assert.ok(Object.isFrozen(cur));
    cur = (cur as Record<string, unknown>).a;
  }
  // A frozen value is shared by copies, never copied.
  assert.equal(copyValue(a), a);
  const cl = clone(a);
  assert.equal(deepEqualIteratively(cl, a), true);
  assert.equal(Object.isFrozen(cl), false);
});

test('the iterative twins agree with the recursive forms on ordinary values', () => {
  const v = { a: [1, { b: undefined, c: [null, undefined] }], d: new Date(5) };
  assert.deepEqual(copyValueIteratively(v), copyValue(v));
  assert.equal(deepEqualIteratively({ a: 1, b: undefined }, { a: 1 }), true);
  assert.equal(deepEqualIteratively([1, 2], [2, 1]), false);
  const f = deepFreezeAll({ x: { y: [1] } });
  assert.ok(Object.isFrozen(f.x.y));
});
