import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileJq, JqError } from './index.ts';

type Case = [program: string, input: unknown, outputs: unknown[]];
type ErrorCase = [program: string, input: unknown, message: RegExp];

function check(cases: Case[]): void {
  for (const [src, input, want] of cases) {
    let got: unknown;
    try {
      got = compileJq(src).run(input);
    } catch (e) {
      assert.fail(`${src}: threw ${(e as Error).message}`);
    }
    assert.deepStrictEqual(got, want, src);
  }
}

function checkErrors(cases: ErrorCase[]): void {
  for (const [src, input, re] of cases) {
    assert.throws(
      () => compileJq(src).run(input),
      (e: unknown) => e instanceof JqError && e.kind === 'runtime' && re.test(e.message),
      src,
    );
  }
}

describe('paths, iteration and slices', () => {
  it('index and slice', () => {
    check([
      ['.[0], .[-1], .[5], .[-5]', [1, 2, 3], [1, 3, null, null]],
      ['.[1.7]', [1, 2, 3], [2]],
      ['.[1:], .[:-1], .[-2:], .[5:], .[1:1]', [1, 2, 3], [[2, 3], [1, 2], [2, 3], [], []]],
      ['.[1:3]', 'héllo', ['él']],
      ['.[2:]', 'ab😀cd', ['😀cd']],
      ['.["a"], ."b", .["x-y"], ."x-y"', { a: 1, b: 2, 'x-y': 3 }, [1, 2, 3, 3]],
      ['."\\(.k)"', { k: 'a', a: 9 }, [9]],
      ['.[.k]', { k: 'a', a: 9 }, [9]],
      ['.a[.i]', { a: [5, 6], i: 1 }, [6]],
      ['.[(0, 1)]', [5, 6], [5, 6]],
      ['.[[1, 2]]', [0, 1, 2, 1, 2], [[1, 3]]],
      ['.constructor, .toString, .__proto__', {}, [null, null, null]],
      ['.a', { a: undefined }, [null]],
      ['[.[]]', { a: undefined, b: 1 }, [[1]]],
      ['keys, length', { a: undefined, b: 1 }, [['b'], 1]],
      ['.[1:3] | length', null, [0]],
    ]);
  });
  it('object iteration is sorted bytewise (Go order)', () => {
    check([
      ['keys', { b: 1, a: 2, B: 3, é: 4, z: 5, '10': 6, '9': 7 }, [['10', '9', 'B', 'a', 'b', 'z', 'é']]],
      ['[.[]]', { b: 1, a: 2 }, [[2, 1]]],
      ['tostring', { b: { d: 1, c: 2 }, a: [] }, ['{"a":[],"b":{"c":2,"d":1}}']],
      ['keys', { '\u{ffff}': 1, '\u{1f600}': 2 }, [['\u{ffff}', '\u{1f600}']]],
    ]);
  });
  it('optional suffixes guard only the last step', () => {
    check([
      ['.a[]?', { a: 1 }, []],
      ['[.[]?]', 'str', [[]]],
      ['.a.b?', { a: 'x' }, []],
      ['(.a.b)?', 3, []],
      ['try (.a.b) catch "caught"', 3, ['caught']],
      ['[.[] | .a?]', [1, { a: 2 }, 'x', null], [[2, null]]],
    ]);
    checkErrors([
      ['.a[]?', 'str', /expected an object but got: string/],
      ['.a.b?', 3, /expected an object but got: number \(3\)/],
    ]);
  });
  it('recursive descent', () => {
    check([['[..]', { a: [1], b: 2 }, [[{ a: [1], b: 2 }, [1], 1, 2]]]]);
    check([['[.. | numbers]', [[1, [2]], { x: 3 }], [[1, 2, 3]]]]);
  });
});

describe('operators', () => {
  it('arithmetic', () => {
    check([
      ['1 + 2, 5 - 7, 3 * 4, 7 / 2, 7 % 3, -7 % 3, 7 % -3, 5.5 % 2', null, [3, -2, 12, 3.5, 1, -1, 1, 1]],
      ['"a" + "b", [1] + [2], {a: 1} + {b: 2, a: 3}, null + null', null, ['ab', [1, 2], { a: 3, b: 2 }, null]],
      ['[1, 2, 1, 3] - [1]', null, [[2, 3]]],
      ['"ab" * 3, 3 * "ab", "ab" * 0, "ab" * 0.5, "ab" * -1', null, ['ababab', 'ababab', null, 'ab', null]],
      ['{a: {b: 1, c: 2}, d: 1} * {a: {b: 3}, e: 4}', null, [{ a: { b: 3, c: 2 }, d: 1, e: 4 }]],
      ['"a,b,c" / ",", "" / ","', null, [['a', 'b', 'c'], []]],
      ['-(1, 2)', null, [-1, -2]],
      ['.a - 1', { a: 3 }, [2]],
      ['1e1000 | . == infinite', null, [true]],
    ]);
    checkErrors([
      ['1 / 0', null, /^cannot divide number \(1\) by: number \(0\)$/],
      ['1 % 0', null, /^cannot modulo number \(1\) by: number \(0\)$/],
      ['{} - {}', null, /^cannot subtract: object \(\{\}\) and object \(\{\}\)$/],
      ['[] * 2', null, /^cannot multiply: array \(\[\]\) and number \(2\)$/],
      ['1 + "a"', null, /^cannot add: number \(1\) and string \("a"\)$/],
      ['-"a"', null, /^cannot negate: string \("a"\)$/],
      ['"a" / 1', null, /^cannot divide: string \("a"\) and number \(1\)$/],
    ]);
  });
  it('comparisons use the total order', () => {
    check([
      ['[null, false, true, 0, "", [], {}] | [.[0] < .[1], .[1] < .[2], .[2] < .[3], .[3] < .[4], .[4] < .[5], .[5] < .[6]]', null, [[true, true, true, true, true, true]]],
      ['1 == 1.0, [1, {a: 2}] == [1, {a: 2}], {a: 1, b: 2} == {b: 2, a: 1}, "a" != "b", nan == nan', null, [true, true, true, true, false]],
      // objects compare by their sorted key lists first: ["a"] < ["a","b"] < ["b"]
      ['[{b: 1}, {a: 0, b: 0}, {a: 1}] | sort', null, [[{ a: 1 }, { a: 0, b: 0 }, { b: 1 }]]],
      ['[[1, 2], [1], [0, 5]] | sort', null, [[[0, 5], [1], [1, 2]]]],
    ]);
  });
  it('and / or / not short-circuit and iterate like jq', () => {
    check([
      ['(true, false) and (true, false)', null, [true, false, false]],
      ['(true, false) or (true, false)', null, [true, true, false]],
      ['false and error("x"), true or error("x")', null, [false, true]],
      ['[null, 0, "", false] | map(not)', null, [[true, false, false, true]]],
    ]);
  });
  it('alternative', () => {
    check([
      ['.a // .b // "c"', { b: false }, ['c']],
      ['(.a, .b) // 3', { a: 1, b: 2 }, [1, 2]],
      ['empty // 1', null, [1]],
      ['(false, null) // empty', null, []],
    ]);
  });
  it('assignment operators', () => {
    check([
      ['.a = 1', {}, [{ a: 1 }]],
      ['.a.b.c = 1', null, [{ a: { b: { c: 1 } } }]],
      ['.a[2] = 1', {}, [{ a: [null, null, 1] }]],
      ['.a = (1, 2)', {}, [{ a: 1 }, { a: 2 }]],
      ['.[] = 0', [1, 2], [[0, 0]]],
      ['(.a, .b) = .c', { c: 5 }, [{ a: 5, b: 5, c: 5 }]],
      ['.a |= . + 1', { a: 1 }, [{ a: 2 }]],
      ['.[] |= select(. > 1)', [1, 2, 3, 1], [[2, 3]]],
      ['.a |= empty', { a: 1, b: 2 }, [{ b: 2 }]],
      ['.a += 1, .a -= 1, .a *= 2, .a /= 2, .a %= 2', { a: 3 }, [{ a: 4 }, { a: 2 }, { a: 6 }, { a: 1.5 }, { a: 1 }]],
      ['.a += .b', { a: 1, b: 2 }, [{ a: 3, b: 2 }]],
      ['.a //= 5, .b //= 5', { a: 1 }, [{ a: 1 }, { a: 1, b: 5 }]],
      ['.[1:] = ["x"]', [1, 2, 3], [[1, 'x']]],
      ['.[1:] |= map(. * 10)', [1, 2, 3], [[1, 20, 30]]],
    ]);
    assert.deepEqual(compileJq('(.spec.replicas) = $val').run({ spec: { replicas: 1 } }, { val: 4 }), [{ spec: { replicas: 4 } }]);
    assert.deepEqual(
      compileJq('reduce range(0; $p | length) as $i (.; setpath($p[$i]; $v[$i]))').run({}, { p: [['a'], ['b', 0]], v: [1, 2] }),
      [{ a: 1, b: [2] }],
    );
  });
  it('never mutates the input', () => {
    const input = { a: { b: [1, 2] }, c: { d: 1 } };
    const snapshot = JSON.stringify(input);
    for (const src of ['.a.b[0] = 9', '.a.b |= map(. + 1)', 'del(.a.b[0])', 'setpath(["c", "d"]; 2)', 'delpaths([["c"]])', '.c += {e: 1}', 'to_entries', 'with_entries(.value = 1)', '.a * {x: 1}', '. + {z: 1}', 'map_values(1)', '.a.b |= sort', 'walk(if type == "number" then 0 else . end)']) {
      compileJq(src).run(input);
      assert.equal(JSON.stringify(input), snapshot, src);
    }
  });
});

describe('control flow', () => {
  it('if / elif / else / optional else', () => {
    check([
      ['if . == 1 then "one" elif . == 2 then "two" else "many" end', 2, ['two']],
      ['if . then "t" end', false, [false]],
      ['if (true, false) then 1 else 2 end', null, [1, 2]],
      ['if empty then 1 else 2 end', null, []],
    ]);
  });
  it('try / catch / error', () => {
    check([
      ['try error("x") catch .', null, ['x']],
      ['try error({a: 1}) catch .a', null, [1]],
      ['try error(null) catch .', null, [null]],
      ['try (1, error("x"), 3) catch .', null, [1, 'x']],
      ['[.[] | try if . == 2 then error("two") else . end catch "c"]', [1, 2, 3], [[1, 'c', 3]]],
      ['try error catch .', 'v', ['v']],
      ['try ("a" | tonumber) catch "nan"', null, ['nan']],
      ['[.[] | (1 / .)?]', [1, 0, 2], [[1, 0.5]]],
    ]);
    // errors raised after the try (downstream) are not caught by it
    checkErrors([['(try 1 catch "c") | error("after")', null, /^error: after$/]]);
    checkErrors([['error("boom")', null, /^error: boom$/], ['error({a: 1})', null, /^error: \{"a":1\}$/]]);
  });
  it('reduce / foreach / bindings / destructuring', () => {
    check([
      ['reduce .[] as $x (0; . + $x)', [1, 2, 3], [6]],
      ['reduce .[] as [$a, $b] (0; . + $a * $b)', [[1, 2], [3, 4]], [14]],
      ['reduce empty as $x (7; . + 1)', null, [7]],
      ['reduce .[] as $x (0; empty)', [1], [null]],
      ['[foreach .[] as $x (0; . + $x)]', [1, 2, 3], [[1, 3, 6]]],
      ['[foreach .[] as $x (0; . + $x; [$x, .])]', [1, 2], [[[1, 1], [2, 3]]]],
      ['. as [$a, $b, {c: $c}] | [$a, $b, $c]', [1, 2, { c: 3 }], [[1, 2, 3]]],
      ['. as {a: $x, $b, "c": [$y]} | [$x, $b, $y]', { a: 1, b: 2, c: [3] }, [[1, 2, 3]]],
      ['. as {$a: {b: $b}} | [$a, $b]', { a: { b: 1 } }, [[{ b: 1 }, 1]]],
      ['.[] as $x | .[] as $y | [$x, $y]', [1, 2], [[1, 1], [1, 2], [2, 1], [2, 2]]],
      ['1 as $x | 2 as $y | [$x, $y, $__loc__]', null, [[1, 2, { file: '<top-level>', line: 1 }]]],
      ['1 |\n\n{$__loc__}', null, [{ __loc__: { file: '<top-level>', line: 3 } }]],
      ['[.[] as $x | $x * 2]', [1, 2], [[2, 4]]],
      ['. as $d | keys | map($d[.])', { b: 2, a: 1 }, [[1, 2]]],
    ]);
  });
  it('user functions, closures and recursion', () => {
    check([
      ['def inc: . + 1; [.[] | inc]', [1, 2], [[2, 3]]],
      ['def f(g): [g, g]; f(. + 1)', 1, [[2, 2]]],
      ['def f($a; $b): $a + $b; f(1; 2)', null, [3]],
      ['def f(a; $b): a + $b; f(.x; .y)', { x: 1, y: 2 }, [3]],
      ['def fac: if . <= 1 then 1 else . * (. - 1 | fac) end; fac', 10, [3628800]],
      ['def f: def g: 3; g * 2; f', null, [6]],
      ['def f(x): x | x; 2 | f(. * .)', null, [16]],
      ['1 as $x | def f: $x + 1; 10 as $x | f', null, [2]],
      ['def f: .+1; def g: f | f; 1 | g', null, [3]],
      ['def f: 1; def f(a): 2; [f, f(0)]', null, [[1, 2]]],
      ['def map(f): "mine"; [1] | map(.)', null, ['mine']],
    ]);
  });
  it('label / break, limit, first, last, nth, until, while, repeat, isempty', () => {
    check([
      ['[label $out | 1, 2, break $out, 3]', null, [[1, 2]]],
      ['[limit(3; range(10))], [limit(0; 1, 2)], [limit(-1; 1, 2)]', null, [[0, 1, 2], [], [1, 2]]],
      ['first(range(5; 10)), last(range(5)), nth(2; range(10)), [first(empty)], last(empty)', null, [5, 4, 2, [], null]],
      ['first, last, nth(1)', [1, 2, 3], [1, 3, 2]],
      ['[.[] | until(. > 100; . * 2)]', [1, 3], [[128, 192]]],
      ['[while(. < 20; . * 2)]', 1, [[1, 2, 4, 8, 16]]],
      // repeat(f) applies f to the same input again and again (jq 1.7 and gojq)
      ['[limit(4; repeat(. * 2))], [limit(3; repeat(1, 2))]', 1, [[2, 2, 2, 2], [1, 2, 1]]],
      ['isempty(empty), isempty(1, error("x"))', null, [true, false]],
      ['[range(3)], [range(1; 3)], [range(0; 10; 3)], [range(5; 0; -2)], [range(0; 1; 0)]', null, [[0, 1, 2], [1, 2], [0, 3, 6, 9], [5, 3, 1], []]],
      ['[range(0, 1; 3, 4)]', null, [[0, 1, 2, 0, 1, 2, 3, 1, 2, 1, 2, 3]]],
      ['0 | until(. >= 100000; . + 1)', null, [100000]],
    ]);
  });
});

describe('builtins', () => {
  it('types and lengths', () => {
    check([
      ['[.[] | type]', [null, true, 1, 's', [], {}], [['null', 'boolean', 'number', 'string', 'array', 'object']]],
      ['[.[] | length]', [null, -3, 'héllo😀', [1, 2], { a: 1 }], [[0, 3, 6, 2, 1]]],
      ['utf8bytelength', 'héllo😀', [10]],
      ['[.[] | numbers], [.[] | strings], [.[] | iterables], [.[] | scalars], [.[] | values], [.[] | nulls], [.[] | booleans], [.[] | arrays], [.[] | objects]', [1, 'a', null, [], {}, true], [[1], ['a'], [[], {}], [1, 'a', null, true], [1, 'a', [], {}, true], [null], [true], [[]], [{}]]],
      ['[infinite, -infinite, nan] | map(isinfinite), map(isnan), map(isnormal)', null, [[true, true, false], [false, false, true], [false, false, false]]],
      ['nan | isnan, (null | isnan), ("a" | isinfinite)', null, [true, false, false]],
      ['[.[] | tostring]', [1, 1.5, 'a', null, true, [1, 'a'], 1e21, 1e-7, 100000000000000000000], [['1', '1.5', 'a', 'null', 'true', '[1,"a"]', '1e+21', '1e-7', '100000000000000000000']]],
      ['[.[] | tonumber]', ['1', '-1.5', '1e3', 2], [[1, -1.5, 1000, 2]]],
      ['tojson, (tojson | fromjson)', { a: [1, 'x\n"'] }, ['{"a":[1,"x\\n\\""]}', { a: [1, 'x\n"'] }]],
      ['[nan, infinite, -infinite] | tojson', null, ['[null,1.7976931348623157e+308,-1.7976931348623157e+308]']],
      ['"\\u007f\\u0001\\t" | tojson', null, ['"\\u007f\\u0001\\t"']],
    ]);
    checkErrors([
      ['length', true, /^length cannot be applied to: boolean \(true\)$/],
      ['"1 " | tonumber', null, /tonumber cannot be applied to/],
      ['[] | tonumber', null, /^tonumber cannot be applied to: array \(\[\]\)$/],
      ['keys', 1, /^keys cannot be applied to: number \(1\)$/],
      ['utf8bytelength', 1, /utf8bytelength cannot be applied to/],
    ]);
  });
  it('keys, has, in, contains, inside, to_entries, from_entries, with_entries', () => {
    check([
      ['keys', [5, 6], [[0, 1]]],
      ['has("a"), has("z")', { a: null }, [true, false]],
      ['has(0), has(2), has(-1)', [1, 2], [true, false, false]],
      ['has("a")', null, [false]],
      ['.[] | in({"a": 1})', ['a', 'b'], [true, false]],
      ['contains("bar")', 'foobar', [true]],
      ['contains(["baz", "bar"])', ['foobar', 'foobaz', 'blarp'], [true]],
      ['contains({foo: 12, bar: [{barp: 12}]})', { foo: 12, bar: [1, 2, { barp: 12, blip: 13 }] }, [true]],
      ['contains({foo: 12, bar: [{barp: 15}]})', { foo: 12, bar: [1, 2, { barp: 12, blip: 13 }] }, [false]],
      ['[1, 2] | contains(["a"])', null, [false]],
      ['inside("foobar")', 'bar', [true]],
      ['to_entries', { b: 1, a: 2 }, [[{ key: 'a', value: 2 }, { key: 'b', value: 1 }]]],
      ['to_entries', ['x'], [[{ key: 0, value: 'x' }]]],
      ['from_entries', [{ key: 'a', value: 1 }, { k: 'b', v: 2 }, { name: 'c', value: 3 }, { Name: 'd', Value: 4 }, { key: 'e' }], [{ a: 1, b: 2, c: 3, d: 4, e: null }]],
      ['with_entries(.value += 1)', { a: 1, b: 2 }, [{ a: 2, b: 3 }]],
      ['with_entries(select(.key != "a"))', { a: 1, b: 2 }, [{ b: 2 }]],
    ]);
    checkErrors([
      ['has(0)', { a: 1 }, /^has\(0\) cannot be applied to: object \(\{"a":1\}\)$/],
      ['contains(1)', 'a', /^contains\(1\) cannot be applied to: string \("a"\)$/],
      ['from_entries', [{ key: 1, value: 2 }], /expected a string for object key but got: number \(1\)/],
    ]);
  });
  it('map, map_values, select, add, any, all, flatten, range, floor, sqrt, pow, log', () => {
    check([
      ['map(. * 2)', [1, 2], [[2, 4]]],
      ['map(.a)', { x: { a: 1 }, y: { a: 2 } }, [[1, 2]]],
      ['map(empty), map(., .)', [1, 2], [[], [1, 1, 2, 2]]],
      ['map_values(. + 1)', { a: 1, b: 2 }, [{ a: 2, b: 3 }]],
      ['map_values(empty)', [1, 2], [[]]],
      ['map(select(. > 1))', [1, 2, 3], [[2, 3]]],
      ['select(.a, .a)', { a: true }, [{ a: true }, { a: true }]],
      ['add, (map(tostring) | add), ([] | add), ([[1], [2]] | add), ({a: 1, b: 2} | add)', [1, 2], [3, '12', null, [1, 2], 3]],
      ['add(.[] | . * 2)', [1, 2], [6]],
      ['any, all', [true, false], [true, false]],
      ['any, all', [], [false, true]],
      ['any(. > 2), all(. > 0)', [1, 3], [true, true]],
      ['any(.[]; . == 1), all(.[]; . == 1)', [1, 2], [true, false]],
      ['any(true, error("x"); .)', null, [true]],
      ['flatten, flatten(1), flatten(0)', [1, [2, [3]]], [[1, 2, 3], [1, 2, [3]], [1, [2, [3]]]]],
      ['flatten', { a: [1, [2]], b: 3 }, [[1, 2, 3]]],
      ['map(floor), map(ceil), map(round), map(fabs), map(trunc)', [1.5, -1.5, 2.4], [[1, -2, 2], [2, -1, 3], [2, -2, 2], [1.5, 1.5, 2.4], [1, -1, 2]]],
      ['[sqrt, pow(.; 2), (log | floor), (log10 | floor)]', 100, [[10, 10000, 4, 2]]],
      ['abs', -5, [5]],
      ['[pow(2, 3; 2)]', null, [[4, 9]]],
    ]);
    checkErrors([
      ['map(.)', null, /^cannot iterate over: null$/],
      ['add', null, /add cannot be applied to: null/],
      ['floor', 'a', /^floor cannot be applied to: string \("a"\)$/],
      ['flatten(-1)', [], /flatten depth must not be negative/],
      ['range("a")', null, /range cannot be applied to/],
    ]);
  });
  it('sort, group, unique, min, max, reverse, indices', () => {
    check([
      ['sort', [3, 'a', null, [1], { a: 1 }, true, false, 1], [[null, false, true, 1, 3, 'a', [1], { a: 1 }]]],
      ['sort_by(.a)', [{ a: 2, i: 0 }, { a: 1 }, { a: 2, i: 1 }], [[{ a: 1 }, { a: 2, i: 0 }, { a: 2, i: 1 }]]],
      ['sort_by(.a, .b)', [{ a: 1, b: 2 }, { a: 1, b: 1 }], [[{ a: 1, b: 1 }, { a: 1, b: 2 }]]],
      ['group_by(.a) | map(length)', [{ a: 1 }, { a: 2 }, { a: 1 }], [[2, 1]]],
      ['unique, unique_by(length)', ['ab', 'c', 'ab', 'de'], [['ab', 'c', 'de'], ['c', 'ab']]],
      ['min, max, ([] | min)', [3, 1, 2], [1, 3, null]],
      ['min_by(.a), max_by(.a)', [{ a: 1, i: 0 }, { a: 3, i: 1 }, { a: 1, i: 2 }, { a: 3, i: 3 }], [{ a: 1, i: 0 }, { a: 3, i: 3 }]],
      ['reverse, (null | reverse)', [1, 2, 3], [[3, 2, 1], []]],
      ['index(","), rindex(","), indices(",")', 'a,b, cd, efg', [1, 7, [1, 3, 7]]],
      ['indices("aa")', 'aaaa', [[0, 1, 2]]],
      ['index("é"), indices("b")', 'aébéb', [1, [2, 4]]],
      ['indices(1), indices([1, 2]), index(2), rindex(1)', [0, 1, 2, 1, 3, 1, 2], [[1, 3, 5], [1, 5], 2, 5]],
      ['null | index("a")', null, [null]],
      ['transpose', [[1, 2], [3]], [[[1, 3], [2, null]]]],
      ['[combinations]', [[1, 2], [3, 4]], [[[1, 3], [1, 4], [2, 3], [2, 4]]]],
      ['[IN(2, 3)], [[1, 5] | IN(.[]; 5, 6)]', 2, [[true], [true]]],
      ['INDEX(.id)', [{ id: 1, v: 'a' }, { id: 'x', v: 'b' }], [{ '1': { id: 1, v: 'a' }, x: { id: 'x', v: 'b' } }]],
    ]);
    checkErrors([
      ['sort', { a: 1 }, /^sort cannot be applied to: object/],
      ['reverse', 'abc', /reverse cannot be applied to/],
    ]);
  });
  it('strings', () => {
    check([
      ['startswith("ab"), endswith("bc"), ltrimstr("a"), rtrimstr("c"), ltrimstr("x")', 'abc', [true, true, 'bc', 'ab', 'abc']],
      ['ltrimstr("a")', 1, [1]],
      ['trimstr("a")', 'abca', ['bc']],
      ['[.[] | toboolean]', [true, 'false', 'true'], [[true, false, true]]],
      ['[.[] | isfinite]', [1, 'a'], [[true, false]]],
      ['ascii_downcase, ascii_upcase', 'AbÉ-z', ['abÉ-z', 'ABÉ-Z']],
      ['explode, (explode | implode)', 'a😀', [[97, 128512], 'a😀']],
      ['split(", "), split(""), ("" | split(","))', 'a, b, c', [['a', 'b', 'c'], ['a', ',', ' ', 'b', ',', ' ', 'c'], ['']]],
      ['join(", "), join("")', ['a', 1, null, true], ['a, 1, , true', 'a1true']],
      ['join("-")', [], ['']],
      ['trim, ltrim, rtrim', '  a b \n', ['a b', 'a b \n', '  a b']],
      ['@text, @json, @html, @uri, @csv, @tsv, @sh, @base64', [1, 'a b', '<&>\'"'], ['[1,"a b","<&>\'\\""]', '[1,"a b","<&>\'\\""]', '[1,&quot;a b&quot;,&quot;&lt;&amp;&gt;&#39;\\&quot;&quot;]', '%5B1%2C%22a%20b%22%2C%22%3C%26%3E%27%5C%22%22%5D', '1,"a b","<&>\'"""', '1\ta b\t<&>\'"', "1 'a b' '<&>'\\''\"'", 'WzEsImEgYiIsIjwmPidcIiJd']],
      ['@base64d', 'aGVsbG8=', ['hello']],
      ['@base32, (@base32 | @base32d)', 'hello', ['NBSWY3DP', 'hello']],
      ['@json "v=\\(.)", @uri "q=\\(.a)"', { a: 'x y' }, ['v={"a":"x y"}', 'q=x%20y']],
      ['"\\(1 + 2) and \\("x") \\([1])"', null, ['3 and x [1]']],
      ['"a\\tb\\n\\u00e9\\\\\\/\\""', null, ['a\tb\né\\/"']],
    ]);
    checkErrors([
      ['startswith(1)', 'a', /^startswith\(1\) cannot be applied to: string \("a"\)$/],
      ['ascii_downcase', 1, /ascii_downcase cannot be applied to: number \(1\)/],
      ['join(",")', [[1]], /cannot join/],
      ['implode', ['a'], /implode cannot be applied to/],
    ]);
  });
  it('regular expressions', () => {
    check([
      ['test("b"), test("B"), test("B"; "i"), test("a b"; "x"), test("a  d"; "x")', 'abc', [true, false, true, true, false]],
      ['test("a.c"; "s"), test("a.c")', 'a\nc', [true, false]],
      ['[match("a+"; "g") | [.offset, .length, .string]]', 'aa b aaa', [[[0, 2, 'aa'], [5, 3, 'aaa']]]],
      ['match("(?<x>a)(b)?(c)") | .captures | map([.name, .string, .offset])', 'ac', [[['x', 'a', 0], [null, null, -1], [null, 'c', 1]]]],
      ['[match("é"; "g").offset]', 'aéaé', [[1, 3]]],
      ['capture("(?<y>\\\\d+)-(?<m>\\\\d+)")', '2026-03', [{ y: '2026', m: '03' }]],
      ['[scan("\\\\d")], [scan("(a)(b)")]', 'a1b2ab', [['1', '2'], [['a', 'b']]]],
      ['sub("a"; "x"), gsub("a"; "x"), gsub("(?<l>[a-z])"; "<\\(.l)>"), gsub(""; "-"), gsub("^"; ">")', 'aba', ['xba', 'xbx', '<a><b><a>', '-a-b-a-', '>aba']],
      ['[sub("(?<x>a)"; "1\\(.x)", "2\\(.x)")]', 'ab', [['1ab', '2ab']]],
      ['gsub("A"; "x"; "i")', 'aA', ['xx']],
      ['[splits(", *")], split(", *"; null)', 'a, b,c', [['a', 'b', 'c'], ['a', 'b', 'c']]],
      ['[match("a*"; "gn") | .offset]', 'baab', [[1]]],
    ]);
    checkErrors([
      ['test("(")', 'a', /is not a valid regex/],
      ['test("a"; "q")', 'a', /is not a valid modifier string/],
      ['test("a")', 1, /cannot be matched, as it is not a string/],
    ]);
  });
  it('paths, getpath, setpath, delpaths, del, pick, tostream', () => {
    check([
      ['[paths]', { a: [1, { b: 2 }], c: 3 }, [[['a'], ['a', 0], ['a', 1], ['a', 1, 'b'], ['c']]]],
      ['[paths(type == "number")], [leaf_paths]', { a: [1], b: 'x' }, [[['a', 0]], [['a', 0], ['b']]]],
      ['[path(.a[].b, .c?, first(.d, .e), getpath(["x", "y"]), .. )]', { a: [{ b: 1 }] }, [[['a', 0, 'b'], ['c'], ['d'], ['x', 'y'], [], ['a'], ['a', 0], ['a', 0, 'b']]]],
      ['[path(.[1:3], .[2:], last, .[-1])]', [1, 2, 3], [[[{ start: 1, end: 3 }], [{ start: 2, end: null }], [-1], [-1]]]],
      ['[path(.a | select(.b == 0))], [path(if .a then .a else .b end)], [path(.a // .b)]', { a: { b: 0 } }, [[['a']], [['a']], [['a']]]],
      ['getpath(["a", "b"]), getpath(["x", 0, "y"])', { a: { b: 5 } }, [5, null]],
      ['setpath(["a", 1]; 9), setpath([]; 1)', null, [{ a: [null, 9] }, 1]],
      ['delpaths([["a", 0], ["b"]]), del(.a[0, 1]), del(.[]), del(.missing)', { a: [1, 2, 3], b: 1 }, [{ a: [2, 3] }, { a: [3], b: 1 }, {}, { a: [1, 2, 3], b: 1 }]],
      ['del(.[1:3]), del(.[] | select(. > 2))', [1, 2, 3, 4], [[1, 4], [1, 2]]],
      ['pick(.a.b, .c)', { a: { b: 1, x: 2 }, c: 3, d: 4 }, [{ a: { b: 1 }, c: 3 }]],
      ['[tostream]', { a: [1, 2] }, [[[['a', 0], 1], [['a', 1], 2], [['a', 1]], [['a']]]]],
      ['to_entries | map(.key) | .[0] as $k | $k', { z: 1, y: 2 }, ['y']],
    ]);
    checkErrors([
      ['getpath(["a", "b"])', { a: 1 }, /cannot getpath/],
      ['setpath([-1]; 1)', [], /array index should not be negative/],
      ['path(1)', null, /^invalid path against: number \(1\)$/],
      ['path(.a | tostring)', null, /^invalid path against: string \("null"\)$/],
      ['.a + 1 |= 2', null, /invalid path/],
    ]);
  });
  it('environment stand-ins and unsupported functions', () => {
    check([
      ['env, $ENV, input_filename', null, [{}, {}, null]],
      ['debug, stderr', 1, [1, 1]],
    ]);
    for (const src of ['now', 'todate', 'input', 'inputs', 'keys_unsorted', 'mktime', 'halt', 'strftime("%Y")', 'foo', 'map(.; .)']) {
      assert.throws(() => compileJq(src), (e: unknown) => e instanceof JqError && e.kind === 'compile' && /^function not defined: /.test(e.message), src);
    }
    assert.throws(() => compileJq('@nope'), (e: unknown) => e instanceof JqError && e.kind === 'compile' && /format not defined: @nope/.test(e.message));
    assert.throws(() => compileJq('$undefined').run(null), (e: unknown) => e instanceof JqError && e.kind === 'runtime' && /variable not defined: \$undefined/.test(e.message));
  });
});
