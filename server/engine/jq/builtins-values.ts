/** Builtins over single values: types, lengths, keys, has, contains, add, numbers, conversions, environment. */
import { define, define0, defineV, num, typeError, typeError1 } from './builtin-registry.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { add as addValues, iterValues } from './ops.ts';
import { alloc, chargeText, checkDepth, SLOT, tick } from './budget.ts';
import { fromGen, fromOne } from './runtime.ts';
import type { JqValue } from './values.ts';
import { encode, hasKey, isNormal, isObject, objectKeys, objectSize, toString, typeOf } from './values.ts';

// ---- types, lengths, keys -----------------------------------------------------------------------------------------

define0('type', (x) => typeOf(x));
define0('length', (x) => {
  if (x === null) return 0;
  switch (typeof x) {
    case 'boolean':
      return typeError('length', x);
    case 'number':
      return Math.abs(x);
    case 'string': {
      chargeText(x.length);
      let n = 0;
      for (let i = 0; i < x.length; i++) {
        const c = x.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < x.length) i++;
        n++;
      }
      return n;
    }
    default:
      return Array.isArray(x) ? x.length : objectSize(x);
  }
});
define0('utf8bytelength', (x) => {
  if (typeof x !== 'string') return typeError('utf8bytelength', x);
  chargeText(x.length);
  return Buffer.byteLength(x, 'utf8');
});
define0('keys', (x) => {
  if (isObject(x)) {
    const keys = objectKeys(x);
    alloc(keys.length * SLOT);
    return keys;
  }
  if (Array.isArray(x)) {
    alloc(x.length * SLOT);
    return x.map((_v, i) => i);
  }
  return typeError('keys', x);
});

function has(x: JqValue, k: JqValue): boolean {
  if (isObject(x) && typeof k === 'string') return hasKey(x, k);
  if (Array.isArray(x) && typeof k === 'number') return k >= 0 && k < x.length;
  if (x === null) return false;
  return typeError1('has', x, k);
}
defineV('has', 1, (x, [k]) => has(x, k));
define('in', 1, ([o]) => fromGen((x, env, emit) => o.gen(x, env, (ov) => emit(has(ov, x)))));

/**
 * Containment; a type mismatch is an error only at the top level (nested mismatches are just false). A step
 * per pair of values compared, so `contains(.)` on a value shared many times over is charged for its work.
 */
function containsValue(a: JqValue, b: JqValue, level: number): boolean | undefined {
  tick();
  checkDepth(level);
  if (isObject(a) && isObject(b)) return objectKeys(b).every((k) => hasKey(a, k) && containsValue(a[k], b[k], level + 1) === true);
  if (Array.isArray(a) && Array.isArray(b)) return b.every((y) => a.some((x) => containsValue(x, y, level + 1) === true));
  if (typeof a === 'string' && typeof b === 'string') {
    chargeText(a.length + b.length);
    return a.includes(b);
  }
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a === b) return true;
  return undefined;
}

function contains(a: JqValue, b: JqValue): boolean {
  const r = containsValue(a, b, 0);
  return r === undefined ? typeError1('contains', a, b) : r;
}
defineV('contains', 1, (x, [b]) => contains(x, b));
define('inside', 1, ([b]) => fromGen((x, env, emit) => b.gen(x, env, (bv) => emit(contains(bv, x)))));

define0('add', (x) => {
  if (x === null || typeof x !== 'object') return typeError('add', x);
  let acc: JqValue = null;
  for (const v of iterValues(x)) acc = addValues(acc, v);
  return acc;
});
define('add', 1, ([f]) =>
  fromOne((x, env) => {
    let acc: JqValue = null;
    f.gen(x, env, (v) => {
      acc = addValues(acc, v);
    });
    return acc;
  }),
);

// ---- numbers ------------------------------------------------------------------------------------------------------

const MATH1: Record<string, (n: number) => number> = {
  floor: Math.floor,
  ceil: Math.ceil,
  round: (n) => (n < 0 ? -Math.round(-n) : Math.round(n)),
  sqrt: Math.sqrt,
  fabs: Math.abs,
  trunc: Math.trunc,
  log: Math.log,
  log10: Math.log10,
  log2: Math.log2,
  log1p: Math.log1p,
  exp: Math.exp,
  exp2: (n) => 2 ** n,
  exp10: (n) => 10 ** n,
  expm1: Math.expm1,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  cbrt: Math.cbrt,
  significand: (n) => {
    if (n === 0 || !Number.isFinite(n)) return n;
    const e = Math.floor(Math.log2(Math.abs(n)));
    return n / 2 ** e;
  },
  logb: (n) => Math.floor(Math.log2(Math.abs(n))),
  nearbyint: (n) => {
    const r = Math.round(n);
    return Math.abs(n % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  },
  rint: (n) => {
    const r = Math.round(n);
    return Math.abs(n % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  },
};
for (const [name, f] of Object.entries(MATH1)) define0(name, (x) => f(num(name, x)));
define0('abs', (x) => (typeof x === 'number' ? (x < 0 ? -x : x) : typeError('abs', x)));
defineV('pow', 2, (_x, [a, b]) => Math.pow(num('pow', a), num('pow', b)));
defineV('atan2', 2, (_x, [a, b]) => Math.atan2(num('atan2', a), num('atan2', b)));
defineV('fmin', 2, (_x, [a, b]) => Math.min(num('fmin', a), num('fmin', b)));
defineV('fmax', 2, (_x, [a, b]) => Math.max(num('fmax', a), num('fmax', b)));
define0('infinite', () => Infinity);
define0('nan', () => NaN);
// gojq: isinfinite/isnormal are false for non-numbers, isnan is false for null.
define0('isinfinite', (x) => x === Infinity || x === -Infinity);
define0('isnan', (x) => (x === null ? false : Number.isNaN(num('isnan', x))));
define0('isnormal', (x) => typeof x === 'number' && isNormal(x));
define0('isfinite', (x) => typeof x === 'number' && Number.isFinite(x));
define0('toboolean', (x) => {
  if (typeof x === 'boolean') return x;
  if (x === 'true' || x === 'false') return x === 'true';
  return typeof x === 'string' ? fail(`toboolean cannot be applied to: ${typeErrorPreview(x)}: invalid boolean`) : typeError('toboolean', x);
});

// unambiguous, so that a long run of digits cannot make it backtrack (`\d+\.?\d*` is quadratic on "111…1x")
const NUMBER_TEXT = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
define0('tonumber', (x) => {
  if (typeof x === 'number') return x;
  if (typeof x === 'string') {
    chargeText(x.length);
    // gojq accepts exactly its number literal syntax: no surrounding space, no sign other than a leading minus
    if (!NUMBER_TEXT.test(x)) return fail(`tonumber cannot be applied to: ${typeErrorPreview(x)}: invalid number`);
    return Number(x);
  }
  return typeError('tonumber', x);
});
define0('tostring', (x) => toString(x));
define0('tojson', (x) => encode(x));
define0('fromjson', (x) => {
  if (typeof x !== 'string') return typeError('fromjson', x);
  // the values parsed are about as large as their text
  chargeText(x.length);
  alloc(x.length);
  try {
    return JSON.parse(x) as JqValue;
  } catch {
    if (x.trim() === 'nan' || x.trim() === 'NaN') return NaN;
    return fail(`${x} (while parsing '${x}')`);
  }
});
define0('toarray', (x) => (Array.isArray(x) ? x : [x]));

// ---- environment and side-effect-free stand-ins ------------------------------------------------------------------

// The engine has no process access: `env` and `$ENV` are empty objects.
define0('env', () => ({}));
define0('input_filename', () => null);
// debug/stderr write to stderr in jq; the engine is pure, so they only pass the value through.
define0('debug', (x) => x);
define('debug', 1, () => fromOne((x) => x));
define0('stderr', (x) => x);
