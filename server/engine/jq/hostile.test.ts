/**
 * Hostile programs and inputs (issue 11). A definition is code from a cluster: each of these must end with a
 * clear error naming the budget it broke (or, for patterns RE2 runs in linear time, with the right answer),
 * quickly, without a crash, and leave the evaluator working for the next program. Budgets are deterministic,
 * so each case always ends the same way; the time bound only guards against a budget that stops too late,
 * and is generous for a loaded 2-core machine (on an idle one the slowest case takes about 150 ms).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindExpression } from '../expression.ts';
import { EngineFailure } from '../errors.ts';
import { compileJq, JqError } from './index.ts';

const TIME_BOUND_MS = 5000;

const LABELLED = { metadata: { name: 'w', labels: { x: `${'a'.repeat(38)}!` } }, spec: { a: [1, 2, 3] } };
/** `[.,.] | [.,.] | …` n times: a value whose size doubles n times over (shared, so building it is cheap). */
const doubled = (n: number): string => Array.from({ length: n }, () => '[.,.]').join(' | ');

type Outcome = 'steps' | 'bytes' | 'calls' | 'depth' | 'nesting' | 'length' | RegExp | { value: unknown };

const EXPECTED: Record<Exclude<Outcome, RegExp | { value: unknown }>, RegExp> = {
  steps: /^jq evaluation exceeded its step budget of 1000000$/,
  bytes: /^jq evaluation exceeded its size budget of 4194304 bytes$/,
  calls: /^jq evaluation exceeded its recursion depth budget of 200$/,
  depth: /^jq evaluation exceeded its nesting depth budget of 1000$/,
  nesting: /^expression nests deeper than 256 levels$/,
  length: /^expression is longer than 65536 characters$/,
};

interface Case {
  name: string;
  program: string;
  input?: unknown;
  outcome: Outcome;
}

const CASES: Case[] = [
  // ---- the cases of the issue -------------------------------------------------------------------------------
  { name: 'JSON text of a value doubled 22 times', program: `${doubled(22)} | tojson | length > 0`, input: LABELLED, outcome: 'bytes' },
  { name: 'catastrophic backtracking pattern on a 38-character label', program: '.metadata.labels.x | test("^(a+)+$")', input: LABELLED, outcome: { value: [false] } },
  { name: 'nested `as` iterations ending in empty', program: 'range(100) as $a | range(100) as $b | range(100) as $c | range(100) as $d | empty', outcome: 'steps' },
  { name: 'contains(.) on a doubled value', program: `${doubled(22)} | contains(.)`, input: LABELLED, outcome: 'steps' },
  { name: 'tostring of a doubled value', program: `${doubled(22)} | tostring | length`, input: LABELLED, outcome: 'bytes' },
  { name: '@base64 of a doubled value', program: `${doubled(22)} | @base64 | length`, input: LABELLED, outcome: 'bytes' },
  { name: 'string interpolation of a doubled value', program: `${doubled(22)} | "\\(.)" | length`, input: LABELLED, outcome: 'bytes' },
  { name: '3,000 nested parentheses (poison pill)', program: `${'('.repeat(3000)}1${')'.repeat(3000)}`, outcome: 'nesting' },

  // ---- exponential and unbounded generators ------------------------------------------------------------------
  { name: 'comma doubling 40 times ending in empty', program: `${Array.from({ length: 40 }, () => '(1,1)').join(' | ')} | empty`, outcome: 'steps' },
  { name: 'cartesian object construction', program: `{${Array.from({ length: 30 }, (_, i) => `k${i}: (1,2)`).join(', ')}} | empty`, outcome: 'bytes' },
  { name: 'cartesian string interpolation', program: `"${Array.from({ length: 8 }, () => '\\(range(10))').join('')}" | empty`, outcome: 'bytes' },
  { name: 'huge range under limit', program: '[limit(1e9; range(1e12))] | length', outcome: 'bytes' },
  { name: 'huge range under limit, nothing kept', program: '[limit(1e9; range(1e12)) | select(false)]', outcome: 'steps' },
  { name: '[range(1e9)]', program: '[range(1e9)] | length', outcome: 'bytes' },
  { name: 'repeat forever', program: '[repeat(1)] | length', outcome: 'bytes' },
  { name: 'until that never holds', program: 'until(false; .)', outcome: 'steps' },
  { name: 'while that always holds', program: '[while(true; .)] | length', outcome: 'bytes' },
  { name: 'combinations of four 100-element arrays', program: '[range(100)] as $r | [$r, $r, $r, $r] | [combinations] | length', outcome: 'bytes' },

  // ---- recursion -------------------------------------------------------------------------------------------------
  { name: 'def f: f', program: 'def f: f; f', outcome: 'calls' },
  { name: 'def f: [f]', program: 'def f: [f]; f', outcome: 'calls' },
  { name: 'def f: (f, f)', program: 'def f: (f, f); f', outcome: 'calls' },
  { name: 'counting recursion 100,000 deep', program: 'def f: if . < 100000 then . + 1 | f else . end; 0 | f', outcome: 'calls' },
  { name: 'a recursive body that takes many frames a level', program: 'def f: {a: (. + 1 | f)} | .a | (., empty) | select(. != null) | tostring | tonumber; 0 | f', outcome: 'calls' },
  { name: 'recurse(. + 1)', program: '[recurse(. + 1)] | length', input: 0, outcome: 'calls' },
  { name: 'while with a generator condition, forever', program: '[while((true, true); .)] | length', outcome: 'calls' },
  { name: 'tojson of a value nested 100,000 deep', program: 'reduce range(100000) as $i (null; [.]) | tojson | length', outcome: 'depth' },
  { name: '.. over a value nested 5,000 deep', program: 'reduce range(5000) as $i (0; [.]) | [..] | length', outcome: 'depth' },
  { name: 'setpath with a 5,000-element path', program: 'setpath([range(5000) | 0]; 1)', outcome: 'depth' },
  { name: 'fromjson of text nested 3,000 deep, compared with a copy', program: '[range(2) | "[" * 3000 + "]" * 3000 | fromjson] | .[0] == .[1]', outcome: 'depth' },

  // ---- values that grow ----------------------------------------------------------------------------------------
  { name: 'reduce growing a string', program: 'reduce range(1e7) as $i (""; . + "x") | length', outcome: 'bytes' },
  { name: 'tostring of a 1e6-element array', program: '[range(1e6)] | tostring | length', outcome: 'bytes' },
  { name: 'string repetition by 1e9', program: '"abcd" * 1e9 | length', outcome: 'bytes' },
  { name: 'setpath padding to the largest index', program: 'setpath([536870911]; 1) | length', outcome: 'bytes' },
  { name: 'assignment far past the end of an array', program: '.[100000000] = 1 | length', input: [], outcome: 'bytes' },
  { name: 'getpath with a 1e6-element path', program: 'getpath([range(1e6) | "a"])', input: {}, outcome: 'bytes' },
  { name: 'paths of a doubled value', program: 'reduce range(30) as $i ([1]; [., .]) | [paths] | length', outcome: 'bytes' },
  { name: 'tostream of a doubled value', program: `${doubled(24)} | [tostream] | length`, input: 1, outcome: 'bytes' },
  { name: 'walk over a doubled value', program: 'reduce range(24) as $i ([0]; [., .]) | walk(.) | length', outcome: 'bytes' },
  { name: 'flatten of a doubled value', program: 'reduce range(24) as $i ([0]; [., .]) | flatten | length', outcome: 'steps' },
  { name: '@base64d of huge input', program: '"QUFB" * 1e7 | @base64d | length', outcome: 'bytes' },
  { name: 'implode of a large array', program: '[range(1e7)] | implode | length', outcome: 'bytes' },
  { name: 'explode of a long string', program: '"x" * 1e6 | explode | length', outcome: 'bytes' },
  { name: 'ascii on big input', program: '"x" * 1e8 | ascii', outcome: 'bytes' },
  { name: 'ltrimstr loop over a long string', program: '"a" * 1000000 | until(. == ""; ltrimstr("a"))', outcome: 'bytes' },
  { name: 'adding up single-key objects (copies grow)', program: '[range(1e5) | {(tostring): .}] | add | length', outcome: 'bytes' },
  { name: 'gsub with two replacements per match', program: '"a" * 1000 | [gsub("a"; "x", "y")] | length', outcome: 'bytes' },
  { name: '@csv of a 1e6-element array', program: '[range(1e6)] | @csv | length', outcome: 'bytes' },

  // ---- comparisons and scans of big values ---------------------------------------------------------------------
  { name: 'array difference of two 1e5-element arrays', program: '[range(1e5)] | . - . | length', outcome: 'steps' },
  { name: 'array indices of a 5,000-element run', program: '[range(1e4)] | indices([range(5000)]) | length', outcome: 'steps' },
  { name: 'string indices of a long needle', program: '"a" * 1e6 | indices("a" * 1000) | length', outcome: 'steps' },
  { name: 'equality of two separately built doubled values', program: `(${doubled(24)}) as $a | (${doubled(24)}) as $b | $a == $b`, input: 1, outcome: 'steps' },
  { name: 'sorting 3e5 numbers', program: '[range(3e5)] | sort | length', outcome: 'steps' },
  { name: 'startswith of a long string against itself, many times', program: '("a" * 1000000) as $s | [range(1e4) | $s | startswith($s)] | length', outcome: 'steps' },

  // ---- regular expressions: linear time, and charged for the text they read -------------------------------------
  { name: 'splits with a catastrophic pattern', program: '"a" * 100000 + "b" | [splits("(a+)+c")] | length', outcome: { value: [1] } },
  { name: 'test with nested quantifiers on a long text', program: '"a" * 100000 + "!" | test("^(a|a?)+$")', outcome: { value: [false] } },
  { name: 'global match whose every search reads to the end', program: '"a" * 100000 | [match("a*x|a"; "g")] | length', outcome: 'steps' },
  { name: 'global match of every character of a long text', program: '"x" * 1e6 | [match("."; "g")] | length', outcome: 'bytes' },
  { name: 'splits over a long joined text', program: '[range(1e5) | tostring] | join(",") | [splits(",")] | length', outcome: 'steps' },
  { name: 'lookahead is not RE2', program: '"a" | test("(?=a)")', outcome: /^\(\?=a\) \(at offset 0\) is not a valid regex: .*unsupported Perl syntax.*no lookaround\)$/ },
  { name: 'backreference is not RE2', program: '"aa" | test("(a)\\\\1")', outcome: /^\(a\)\\1 \(at offset 0\) is not a valid regex: .*invalid escape sequence.*no backreferences/ },
  { name: 'tonumber of a long run of digits (no backtracking)', program: '"1" * 100000 + "x" | try tonumber catch "bad"', outcome: { value: ['bad'] } },
  { name: 'rtrim of a long run of spaces (no backtracking)', program: '" " * 100000 + "x" | rtrim | length', outcome: { value: [100001] } },

  // ---- the program text ------------------------------------------------------------------------------------------
  { name: 'array brackets nested 300 deep', program: `${'['.repeat(300)}${']'.repeat(300)}`, outcome: 'nesting' },
  { name: 'a pipe chain of 300 stages', program: Array.from({ length: 300 }, () => '.').join(' | '), outcome: 'nesting' },
  { name: '10,000 additions in a row', program: Array.from({ length: 10000 }, () => '1').join(' + '), outcome: 'nesting' },
  { name: 'unary minus 3,000 times', program: `${'-'.repeat(3000)}1`, outcome: 'nesting' },
  { name: 'elif chain of 2,000', program: `if false then 0 ${Array.from({ length: 2000 }, () => 'elif false then 0').join(' ')} else 1 end`, outcome: 'nesting' },
  { name: 'a program longer than 64 KiB', program: `.a${' '.repeat(70000)}`, outcome: 'length' },
];

function outcomeOf(program: string, input: unknown): { ms: number; error?: JqError; value?: unknown[] } {
  const start = performance.now();
  try {
    const value = compileJq(program).run(input);
    return { ms: performance.now() - start, value };
  } catch (e) {
    if (!(e instanceof JqError)) throw e;
    return { ms: performance.now() - start, error: e };
  }
}

describe('hostile programs end with a clear error, quickly, and leave the evaluator working', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const r = outcomeOf(c.program, c.input ?? null);
      assert.ok(r.ms < TIME_BOUND_MS, `${c.name}: took ${Math.round(r.ms)} ms`);
      if (typeof c.outcome === 'object' && !(c.outcome instanceof RegExp)) {
        assert.equal(r.error, undefined, `${c.name}: ${r.error?.message}`);
        assert.deepEqual(r.value, c.outcome.value);
      } else {
        assert.ok(r.error, `${c.name}: expected an error, got ${JSON.stringify(r.value)?.slice(0, 100)}`);
        const pattern = c.outcome instanceof RegExp ? c.outcome : EXPECTED[c.outcome];
        assert.match(r.error.message, pattern, c.name);
        const kind = c.outcome instanceof RegExp ? 'runtime' : c.outcome === 'nesting' || c.outcome === 'length' ? 'parse' : 'limit';
        assert.equal(r.error.kind, kind, `${c.name}: ${r.error.message}`);
      }
      // and the next, ordinary evaluation is unaffected
      assert.deepEqual(compileJq('.metadata.labels.x | length').run(LABELLED), [39]);
      assert.deepEqual(compileJq('[.spec.a[] | . * 2]').run(LABELLED), [[2, 4, 6]]);
    });
  }

  it('has the cases the issue names and at least 25 more', () => {
    assert.ok(CASES.length >= 8 + 25, `${CASES.length} cases`);
  });
});

describe('ordinary programs near the bounds still work', () => {
  const within: Array<[string, unknown, unknown[]]> = [
    ['def f: if . < 150 then {a: (. + 1 | f)} | .a | (., empty) | select(. != null) | tostring | tonumber else . end; 0 | f', null, [150]],
    ['[limit(199; recurse(. + 1))] | length', 0, [199]],
    ['reduce range(999) as $i (0; [.]) | tojson | length', null, [1999]],
    ['[range(100000)] | length', null, [100000]],
    ['[range(1000) | tostring] | join(",") | [splits(",")] | length', null, [1000]],
    ['"a" * 1000 | gsub("a"; "b") | length', null, [1000]],
    ['[range(10000) | tostring] | join(",") | [match("[0-9]"; "g")] | length', null, [38890]],
    ['[range(200) | tostring] | join(",  ") | [splits(", *")] | length', null, [200]],
    ['[range(10000)] | sort | .[-1]', null, [9999]],
    [`${doubled(10)} | tojson | length`, 1, [4093]],
  ];
  for (const [program, input, expected] of within) {
    it(program.slice(0, 70), () => assert.deepEqual(compileJq(program).run(input), expected));
  }
});

describe('budgets are deterministic', () => {
  it('the same hostile input fails the same way every time', () => {
    for (const program of [`${doubled(22)} | tojson`, 'range(100) as $a | range(100) as $b | range(100) as $c | empty', 'def f: f; f', '"a" * 100000 | [match("a*x|a"; "g")]']) {
      const a = outcomeOf(program, LABELLED);
      const b = outcomeOf(program, LABELLED);
      assert.ok(a.error && b.error, program);
      assert.equal(a.error.message, b.error.message, program);
    }
  });

  it('the budget is charged the same whether or not a regex or program is already cached', () => {
    // a budget just big enough for the first run must be enough for the second, and one step less too little
    const program = compileJq('.metadata.labels.x | [match("a"; "g")] | length');
    let fits = 0;
    for (let steps = 1; steps < 100_000 && fits === 0; steps *= 2) {
      try {
        program.run(LABELLED, undefined, { maxSteps: steps });
        fits = steps;
      } catch {
        // too small
      }
    }
    let lo = fits / 2;
    let hi = fits;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      try {
        program.run(LABELLED, undefined, { maxSteps: mid });
        hi = mid;
      } catch {
        lo = mid;
      }
    }
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(program.run(LABELLED, undefined, { maxSteps: hi }), [38]);
      assert.throws(() => program.run(LABELLED, undefined, { maxSteps: hi - 1 }), /step budget of/);
    }
  });
});

describe('through bindExpression: an expression.limit failure naming the field', () => {
  it('reports the budget and the field path', () => {
    const e = bindExpression('spec.structureDefinition.rootComponent.instanceIdPath', `${doubled(22)} | tojson`);
    assert.throws(
      () => e.run(LABELLED, 'JobSet ml/w'),
      (err: unknown) =>
        err instanceof EngineFailure &&
        err.code === 'expression.limit' &&
        err.path === 'spec.structureDefinition.rootComponent.instanceIdPath' &&
        /failed on JobSet ml\/w: jq evaluation exceeded its size budget of 4194304 bytes$/.test(err.message),
    );
  });

  it('a poison-pill expression is a compile failure naming the field, not a stack overflow', () => {
    assert.throws(
      () => bindExpression('spec.x.path', `${'('.repeat(3000)}1${')'.repeat(3000)}`),
      (err: unknown) => err instanceof EngineFailure && err.code === 'expression.compile' && err.path === 'spec.x.path' && /expression nests deeper than 256 levels/.test(err.message),
    );
  });
});
