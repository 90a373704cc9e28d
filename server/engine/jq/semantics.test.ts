import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileJq, JqError, jqCompare, jqToString } from './index.ts';

const run = (src: string, input: unknown = null, vars?: Record<string, unknown>): unknown[] => compileJq(src).run(input, vars);
const fails = (src: string, input: unknown, pattern: RegExp, kind: JqError['kind'] = 'runtime'): void => {
  assert.throws(
    () => run(src, input),
    (e: unknown) => e instanceof JqError && e.kind === kind && pattern.test(e.message),
  );
};

describe('gojq rules (reference §2.2)', () => {
  it('iterates objects in sorted key order, so to_entries ids align with .[] values (P-01)', () => {
    const graph = { spec: { services: { VllmDecodeWorker: { replicas: 2 }, Frontend: { replicas: 1 }, Planner: {} } } };
    assert.deepEqual(run('.spec.services | to_entries[] | .key', graph), ['Frontend', 'Planner', 'VllmDecodeWorker']);
    assert.deepEqual(run('.spec.services[] | .replicas // 1', graph), [1, 1, 2]);
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
  it('follows pipes, alternatives, selects, conditionals, bindings and user functions', () => {
    const js = {
      spec: {
        replicatedJobs: [
          { name: 'a', replicas: 1 },
          { name: 'b', replicas: 2 },
        ],
      },
    };
    const paths = (src: string, input: unknown = js): unknown => compileJq(src).paths(input);
    assert.deepEqual(paths('.spec.replicatedJobs[].replicas'), [['spec', 'replicatedJobs', 0, 'replicas'], ['spec', 'replicatedJobs', 1, 'replicas']]);
    assert.deepEqual(paths('.spec.replicatedJobs[1].name'), [['spec', 'replicatedJobs', 1, 'name']]);
    assert.deepEqual(paths('.spec.replicatedJobs[-1]'), [['spec', 'replicatedJobs', -1]]);
    assert.deepEqual(paths('.spec.replicatedJobs[] | select(.name == "b") | .replicas'), [['spec', 'replicatedJobs', 1, 'replicas']]);
    assert.deepEqual(paths('.spec.missing // .spec.replicatedJobs'), [['spec', 'replicatedJobs']]);
    assert.deepEqual(paths('if .spec then .spec.x else .y end'), [['spec', 'x']]);
    assert.deepEqual(paths('.spec as $s | .spec.replicatedJobs[0]'), [['spec', 'replicatedJobs', 0]]);
    assert.deepEqual(paths('def rj: .spec.replicatedJobs; rj[0]'), [['spec', 'replicatedJobs', 0]]);
    assert.deepEqual(paths('.["a-b"]."c"', {}), [['a-b', 'c']]);
    assert.deepEqual(paths('.a.b.c', null), [['a', 'b', 'c']]);
    assert.deepEqual(paths('.', 1), [[]]);
    assert.deepEqual(paths('empty'), []);
    assert.deepEqual(paths('.spec.replicatedJobs | first(.[]), last(.[])'), [['spec', 'replicatedJobs', 0], ['spec', 'replicatedJobs', 1]]);
    assert.deepEqual(paths('.spec.replicatedJobs[] | .name?'), [['spec', 'replicatedJobs', 0, 'name'], ['spec', 'replicatedJobs', 1, 'name']]);
    assert.deepEqual(paths('.a | getpath(["b", 0])', {}), [['a', 'b', 0]]);
  });
  it('applies maxResults to paths and fails on type errors like run()', () => {
    assert.throws(() => compileJq('.[]').paths([1, 2, 3], { maxResults: 2 }), (e: unknown) => e instanceof JqError && e.kind === 'limit');
    assert.throws(() => compileJq('.a').paths(1), (e: unknown) => e instanceof JqError && e.kind === 'runtime' && e.message === 'expected an object but got: number (1)');
  });
  it('rejects non-path expressions', () => {
    assert.throws(() => compileJq('.spec.services | to_entries[] | .key').paths({ spec: { services: { a: {} } } }), (e: unknown) => e instanceof JqError && e.kind === 'runtime');
    assert.throws(() => compileJq('$x').paths({}), (e: unknown) => e instanceof JqError && e.kind === 'runtime');
    assert.throws(() => compileJq('1').paths({}), (e: unknown) => e instanceof JqError && e.kind === 'runtime');
    assert.throws(() => compileJq('.a + 1').paths({ a: 1 }), (e: unknown) => e instanceof JqError && e.kind === 'runtime');
  });
});

describe('limits', () => {
  it('allows exactly maxResults outputs (upstream P-07 fails one early)', () => {
    assert.equal(compileJq('range(5)').run(null, undefined, { maxResults: 5 }).length, 5);
    assert.throws(() => compileJq('range(6)').run(null, undefined, { maxResults: 5 }), (e: unknown) => e instanceof JqError && e.kind === 'limit');
  });
  it('defaults to 1000 results and a step budget, not a clock', () => {
    assert.equal(compileJq('range(1000)').run(null).length, 1000);
    assert.throws(() => compileJq('range(1001)').run(null), (e: unknown) => e instanceof JqError && e.kind === 'limit' && e.message === 'query results exceed the allowed number 1000');
    const t = performance.now();
    assert.throws(() => compileJq('reduce range(1e12) as $x (0; . + $x)').run(null), (e: unknown) => e instanceof JqError && e.kind === 'limit' && /step budget of 1000000$/.test(e.message));
    assert.ok(performance.now() - t < 2000);
  });
  it('bounds collected arrays and repeated strings by the size budget', () => {
    assert.throws(() => compileJq('[range(1e12)] | length').run(null, undefined, { maxSteps: 1e12 }), (e: unknown) => e instanceof JqError && e.kind === 'limit' && /size budget of \d+ bytes/.test(e.message));
    assert.throws(() => compileJq('"abcd" * 1e8').run(null), (e: unknown) => e instanceof JqError && e.kind === 'limit' && /size budget/.test(e.message));
    assert.equal(compileJq('[range(100000)] | length').run(null)[0], 100000);
  });
  it('stops runaway programs within the budgets given', () => {
    assert.throws(() => compileJq('[limit(1e9; repeat(1))]').run(null, undefined, { maxSteps: 1000 }), (e: unknown) => e instanceof JqError && e.kind === 'limit' && /step budget of 1000$/.test(e.message));
    assert.throws(() => compileJq('range(1e9)').run(null, undefined, { maxSteps: 1000, maxResults: 1e10 }), (e: unknown) => e instanceof JqError && e.kind === 'limit');
    assert.equal(compileJq('[range(10)] | length').run(null, undefined, { maxSteps: 100, maxBytes: 100 })[0], 10);
    assert.throws(() => compileJq('[range(20)] | length').run(null, undefined, { maxBytes: 100 }), (e: unknown) => e instanceof JqError && /size budget of 100 bytes/.test(e.message));
  });
});

describe('errors', () => {
  const kindOf = (f: () => unknown): JqError => {
    try {
      f();
    } catch (e) {
      if (e instanceof JqError) return e;
      throw e;
    }
    assert.fail('did not throw');
  };
  it('parse errors carry the position', () => {
    const e = kindOf(() => compileJq('.a | | .b'));
    assert.equal(e.kind, 'parse');
    assert.equal(e.position, 5);
    assert.equal(e.message, 'unexpected token "|"');
    assert.equal(kindOf(() => compileJq('.a[')).message, 'unexpected EOF');
    assert.equal(kindOf(() => compileJq('"abc')).kind, 'parse');
    assert.equal(kindOf(() => compileJq('"\\q"')).kind, 'parse');
    assert.equal(kindOf(() => compileJq('1 == 2 == 3')).kind, 'parse');
    assert.equal(kindOf(() => compileJq('{a: 1 + 2}')).kind, 'parse');
    assert.equal(kindOf(() => compileJq('. as [] | 1')).kind, 'parse');
    // an empty program is the identity, as in jq
    assert.deepEqual(compileJq('  ').run({ a: 1 }), [{ a: 1 }]);
  });
  it('compile errors name the function and arity', () => {
    const e = kindOf(() => compileJq('.a | foo(1; 2)'));
    assert.equal(e.kind, 'compile');
    assert.equal(e.message, 'function not defined: foo/2');
    assert.equal(e.position, 5);
    assert.equal(kindOf(() => compileJq('def f(a): a; f')).message, 'function not defined: f/0');
    assert.equal(kindOf(() => compileJq('def f: g; 1')).message, 'function not defined: g/0');
  });
  it('runtime errors abort the whole evaluation (no partial results)', () => {
    const e = kindOf(() => compileJq('.[] | .a').run([{ a: 1 }, 2]));
    assert.equal(e.kind, 'runtime');
    assert.equal(e.message, 'expected an object but got: number (2)');
  });
  it('long values are previewed to 30 bytes', () => {
    assert.equal(kindOf(() => compileJq('.a').run('x'.repeat(100))).message, `expected an object but got: string ("${'x'.repeat(24)} ...")`);
    assert.equal(kindOf(() => compileJq('.[]').run(123456789012345680000)).message, 'cannot iterate over: number (123456789012345680000)');
  });
  it('stack exhaustion is reported as a limit, not thrown raw', () => {
    assert.equal(kindOf(() => compileJq('def f: f + 1; f').run(0)).kind, 'limit');
  });
});

describe('program cache and API', () => {
  it('caches compiled programs by source text', () => {
    assert.equal(compileJq('.a.b'), compileJq('.a.b'));
    assert.notEqual(compileJq('.a.b'), compileJq('.a .b'));
    assert.equal(compileJq('.x').source, '.x');
  });
  it('treats undefined object values as absent everywhere', () => {
    const obj = { a: 1, b: undefined };
    assert.deepEqual(compileJq('has("b"), (keys | length), (to_entries | length), tostring, . == {a: 1}, ([paths] | length)').run(obj), [false, 1, 1, '{"a":1}', true, 1]);
    assert.deepEqual(compileJq('.b // "absent"').run(obj), ['absent']);
  });
  it('does not leak variables between runs', () => {
    assert.deepEqual(compileJq('$v').run(null, { v: 1 }), [1]);
    assert.throws(() => compileJq('$v').run(null), (e: unknown) => e instanceof JqError && /variable not defined/.test(e.message));
  });
  it('passes variables', () => {
    assert.deepEqual(compileJq('$a + $b').run(null, { a: 1, b: 2 }), [3]);
    assert.deepEqual(compileJq('[$v[] | . * 2]').run(null, { v: [1, 2] }), [[2, 4]]);
    // the same compiled program with other values
    assert.deepEqual(compileJq('$a + $b').run(null, { a: 10, b: 20 }), [30]);
  });
  it('jqToString and jqCompare', () => {
    assert.equal(jqToString('s'), 's');
    assert.equal(jqToString(1000000), '1000000');
    assert.equal(jqToString(1.5), '1.5');
    assert.equal(jqToString({ b: 1, a: [true, null] }), '{"a":[true,null],"b":1}');
    assert.equal(jqToString(undefined), 'null');
    assert.equal(jqToString({ a: undefined, b: 1 }), '{"b":1}');
    const order = [null, false, true, -1, 0, 2, '', 'a', 'b', [], [0], {}, { a: 1 }];
    for (let i = 0; i < order.length; i++) {
      for (let j = 0; j < order.length; j++) {
        assert.equal(Math.sign(jqCompare(order[i], order[j])), Math.sign(i - j), `${JSON.stringify(order[i])} vs ${JSON.stringify(order[j])}`);
      }
    }
  });
});
