import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileJq, JqError } from './index.ts';

const run = (src: string, input: unknown = null, vars?: Record<string, unknown>): unknown[] => compileJq(src).run(input, vars);
const fails = (src: string, input: unknown, pattern: RegExp, kind: JqError['kind'] = 'runtime'): void => {
  assert.throws(
    () => run(src, input),
    (e: unknown) => e instanceof JqError && e.kind === kind && pattern.test(e.message),
  );
};

describe('gojq rules (reference §2.2)', () => {
  it('iterates objects in sorted key order', () => {
    assert.deepEqual(run('.[]', { b: 1, a: 2, c: 3 }), [2, 1, 3]);
    assert.deepEqual(run('to_entries[] | .key', { b: 1, a: 2, c: 3 }), ['a', 'b', 'c']);
    assert.deepEqual(run('keys', { b: 1, a: 2 }), [['a', 'b']]);
  });
  it('indexes null to null and errors on keys of scalars', () => {
    assert.deepEqual(run('.missing.a.b', {}), [null]);
    fails('.a', 1, /^expected an object but got: number \(1\)$/);
    fails('.a', 'x', /^expected an object but got: string \("x"\)$/);
    fails('.a', [1], /^expected an object but got: array \(\[1\]\)$/);
  });
  it('iterating null errors unless []?', () => {
    fails('.[]', null, /^cannot iterate over: null$/);
    assert.deepEqual(run('[.[]?]', null), [[]]);
  });
  it('// keeps truthy left outputs and does not swallow left errors', () => {
    fails('.a[] // 1', { a: null }, /cannot iterate over: null/);
    assert.deepEqual(run('.a[] // 1', { a: [] }), [1]);
    assert.deepEqual(run('.[] // 1', [false, null, 2, 3]), [2, 3]);
    assert.deepEqual(run('0 // 1'), [0]);
    assert.deepEqual(run('false // 1'), [1]);
  });
  it('has gojq precedence', () => {
    assert.deepEqual(run('.a // "x" == "v"', { a: 'v' }), ['v']);
    assert.deepEqual(run('1, 2 | . * 10'), [10, 20]);
    assert.deepEqual(run('1 + 2 * 3'), [7]);
    assert.deepEqual(run('true or false and false'), [true]);
  });
  it('* with null errors, + with null returns the other side', () => {
    fails('2 * null', null, /^cannot multiply: number \(2\) and null$/);
    assert.deepEqual(run('null + 2'), [2]);
    assert.deepEqual(run('2 + null'), [2]);
  });
  it('identifiers cannot contain -', () => {
    assert.throws(() => compileJq('.metadata.labels.job-name'), (e: unknown) => e instanceof JqError && e.kind === 'compile' && e.message === 'function not defined: name/0');
  });
  it('tostring', () => {
    assert.deepEqual(run('[.[] | tostring]', ['s', 1000000, 1.5, true, null, { b: 1, a: [1, 2] }]), [
      ['s', '1000000', '1.5', 'true', 'null', '{"a":[1,2],"b":1}'],
    ]);
  });
  it('literal programs', () => {
    assert.deepEqual(run('1', { a: 1 }), [1]);
    assert.deepEqual(run('"x"'), ['x']);
  });
  it('cartesian products with the right operand outermost', () => {
    assert.deepEqual(run('(1,2) - (10,20)'), [-9, -8, -19, -18]);
    const pcs = (cliques: unknown[]): unknown => ({ spec: { replicas: 2, template: { cliques } } });
    const expr = '(.spec.replicas // 1) * (.spec.template.cliques[].spec.replicas // 1)';
    assert.deepEqual(run(expr, pcs([{ spec: { replicas: 3 } }, { spec: { replicas: 4 } }])), [6, 8]);
    // `//` drops the null of the second clique because the left side had a truthy output: one result, not two.
    assert.deepEqual(run(expr, pcs([{ spec: { replicas: 3 } }, { spec: {} }])), [6]);
  });
});

describe('paths()', () => {
  it('returns the designated paths', () => {
    assert.deepEqual(compileJq('.a[].b, .c').paths({ a: [{ b: 1 }, { b: 2 }] }), [['a', 0, 'b'], ['a', 1, 'b'], ['c']]);
    assert.deepEqual(compileJq('.spec.services | to_entries[] | .key').run({ spec: { services: { b: {}, a: {} } } }), ['a', 'b']);
    assert.deepEqual(compileJq('.spec.services[]').paths({ spec: { services: { b: {}, a: {} } } }), [['spec', 'services', 'a'], ['spec', 'services', 'b']]);
  });
  it('rejects non-path expressions', () => {
    assert.throws(() => compileJq('1').paths({}), (e: unknown) => e instanceof JqError && e.kind === 'runtime');
    assert.throws(() => compileJq('.a + 1').paths({ a: 1 }), (e: unknown) => e instanceof JqError && e.kind === 'runtime');
  });
});

describe('limits', () => {
  it('allows exactly maxResults outputs (upstream P-07 fails one early)', () => {
    assert.equal(compileJq('range(5)').run(null, undefined, { maxResults: 5 }).length, 5);
    assert.throws(() => compileJq('range(6)').run(null, undefined, { maxResults: 5 }), (e: unknown) => e instanceof JqError && e.kind === 'limit');
  });
  it('stops runaway programs within the timeout', () => {
    const t = performance.now();
    assert.throws(() => compileJq('[limit(1e9; repeat(1))]').run(null, undefined, { timeoutMs: 50 }), (e: unknown) => e instanceof JqError && e.kind === 'limit');
    assert.throws(() => compileJq('range(1e9)').run(null, undefined, { timeoutMs: 50, maxResults: 1e10 }), (e: unknown) => e instanceof JqError && e.kind === 'limit');
    assert.ok(performance.now() - t < 1000);
  });
});
