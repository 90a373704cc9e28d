/** Builtins over arrays and strings: sorting, grouping, searching, string and regex functions. */
import { arr, define, define0, defineV, num, str, typeError, typeError1 } from './builtin-registry.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { arrayIndices, iterValues } from './ops.ts';
import { captureObject, cpLength, cpSlice, matches, splitRegex, test } from './regex.ts';
import { collect, fromGen, fromOne, tick } from './runtime.ts';
import type { Compiled, Env } from './types.ts';
import type { JqObject, JqValue } from './values.ts';
import { compare, equals, setKey, toString } from './values.ts';

// ---- sorting and grouping -------------------------------------------------------------------------------------

/** Stable sort of `xs` by the array of outputs of `f` (jq sorts by `[f]`). */
function keyed(name: string, x: JqValue, f: Compiled | null, env: Env | null): Array<{ k: JqValue; v: JqValue }> {
  const xs = arr(name, x);
  return xs.map((v) => ({ k: f ? collect(f, v, env) : v, v }));
}

function sortedKeyed(name: string, x: JqValue, f: Compiled | null, env: Env | null): Array<{ k: JqValue; v: JqValue }> {
  const ks = keyed(name, x, f, env);
  return ks.sort((a, b) => compare(a.k, b.k));
}

define0('sort', (x) => arr('sort', x).slice().sort(compare));
define('sort_by', 1, ([f]) => fromOne((x, env) => sortedKeyed('sort_by', x, f, env).map((e) => e.v)));
define('group_by', 1, ([f]) =>
  fromOne((x, env) => {
    const out: JqValue[][] = [];
    let prev: JqValue | undefined;
    for (const e of sortedKeyed('group_by', x, f, env)) {
      if (out.length > 0 && equals(prev as JqValue, e.k)) out[out.length - 1].push(e.v);
      else out.push([e.v]);
      prev = e.k;
    }
    return out;
  }),
);
function uniqueBy(name: string, x: JqValue, f: Compiled | null, env: Env | null): JqValue[] {
  const out: JqValue[] = [];
  let prev: JqValue | undefined;
  for (const e of sortedKeyed(name, x, f, env)) {
    if (out.length === 0 || !equals(prev as JqValue, e.k)) out.push(e.v);
    prev = e.k;
  }
  return out;
}
define0('unique', (x) => uniqueBy('unique', x, null, null));
define('unique_by', 1, ([f]) => fromOne((x, env) => uniqueBy('unique_by', x, f, env)));

/** min keeps the first of equal minima, max the last of equal maxima (jq and gojq). */
function extreme(name: string, x: JqValue, f: Compiled | null, env: Env | null, wantMax: boolean): JqValue {
  const ks = keyed(name, x, f, env);
  if (ks.length === 0) return null;
  let best = ks[0];
  for (let i = 1; i < ks.length; i++) {
    const c = compare(ks[i].k, best.k);
    if (wantMax ? c >= 0 : c < 0) best = ks[i];
  }
  return best.v;
}
define0('min', (x) => extreme('min', x, null, null, false));
define0('max', (x) => extreme('max', x, null, null, true));
define('min_by', 1, ([f]) => fromOne((x, env) => extreme('min_by', x, f, env, false)));
define('max_by', 1, ([f]) => fromOne((x, env) => extreme('max_by', x, f, env, true)));

// Arrays only (gojq); null gives [] as in jq.
define0('reverse', (x) => (x === null ? [] : arr('reverse', x).slice().reverse()));

function flatten(xs: JqValue[], depth: number, out: JqValue[]): JqValue[] {
  for (const v of xs) {
    if (Array.isArray(v) && depth !== 0) flatten(v, depth - 1, out);
    else out.push(v);
  }
  return out;
}
// Objects flatten their values (gojq and jq).
const flattenInput = (x: JqValue): JqValue[] => (x !== null && typeof x === 'object' ? iterValues(x) : typeError('flatten', x));
define0('flatten', (x) => flatten(flattenInput(x), -1, []));
defineV('flatten', 1, (x, [d]) => {
  const depth = num('flatten', d);
  if (depth < 0) return fail('flatten depth must not be negative');
  return flatten(flattenInput(x), depth, []);
});

define0('transpose', (x) => {
  const rows = arr('transpose', x).map((r) => arr('transpose', r));
  const n = rows.reduce((m, r) => Math.max(m, r.length), 0);
  const out: JqValue[] = [];
  for (let i = 0; i < n; i++) out.push(rows.map((r) => (i < r.length ? r[i] : null)));
  return out;
});

function combinations(rows: JqValue[], emit: (v: JqValue) => void): void {
  const acc: JqValue[] = [];
  const rec = (i: number): void => {
    tick();
    if (i === rows.length) {
      emit(acc.slice());
      return;
    }
    for (const v of iterValues(rows[i])) {
      acc.push(v);
      rec(i + 1);
      acc.pop();
    }
  };
  rec(0);
}
define('combinations', 0, () => fromGen((x, _env, emit) => combinations(iterValues(x), emit)));
define('combinations', 1, ([n]) =>
  fromGen((x, env, emit) =>
    n.gen(x, env, (nv) => {
      const k = num('combinations', nv);
      combinations(Array.from({ length: Math.max(0, Math.ceil(k)) }, () => x), emit);
    }),
  ),
);

define('IN', 1, ([s]) =>
  fromOne((x, env) => {
    let found = false;
    for (const v of collect(s, x, env)) if (equals(v, x)) found = true;
    return found;
  }),
);
define('IN', 2, ([src, s]) =>
  fromOne((x, env) => {
    const candidates = collect(s, x, env);
    let found = false;
    src.gen(x, env, (v) => {
      if (candidates.some((c) => equals(c, v))) found = true;
    });
    return found;
  }),
);
function indexBy(rows: (emit: (v: JqValue) => void) => void, key: Compiled, env: Env | null): JqObject {
  const o: JqObject = {};
  rows((row) => {
    for (const k of collect(key, row, env)) setKey(o, toString(k), row);
  });
  return o;
}
define('INDEX', 1, ([key]) => fromOne((x, env) => indexBy((e) => iterValues(x).forEach(e), key, env)));
define('INDEX', 2, ([src, key]) => fromOne((x, env) => indexBy((e) => src.gen(x, env, e), key, env)));

// ---- searching -----------------------------------------------------------------------------------------------------

/** Code-point positions of `sub` in `s`, overlapping occurrences included. */
function stringIndices(s: string, sub: string): number[] {
  const out: number[] = [];
  if (sub === '') return out;
  const ascii = !/[\ud800-\udfff]/.test(s);
  let i = s.indexOf(sub);
  while (i >= 0) {
    out.push(ascii ? i : cpLength(s.slice(0, i)));
    i = s.indexOf(sub, i + 1);
  }
  return out;
}

function indicesOf(name: string, x: JqValue, k: JqValue): JqValue {
  if (x === null) return null;
  if (typeof x === 'string' && typeof k === 'string') return stringIndices(x, k);
  if (Array.isArray(x)) {
    if (Array.isArray(k)) return arrayIndices(x, k);
    const out: number[] = [];
    x.forEach((v, i) => {
      if (equals(v, k)) out.push(i);
    });
    return out;
  }
  return typeError1(name, x, k);
}
defineV('indices', 1, (x, [k]) => indicesOf('indices', x, k));
defineV('index', 1, (x, [k]) => {
  const r = indicesOf('index', x, k);
  return Array.isArray(r) && r.length > 0 ? r[0] : null;
});
defineV('rindex', 1, (x, [k]) => {
  const r = indicesOf('rindex', x, k);
  return Array.isArray(r) && r.length > 0 ? r[r.length - 1] : null;
});

// ---- strings ---------------------------------------------------------------------------------------------------------

defineV('startswith', 1, (x, [p]) => (typeof x === 'string' && typeof p === 'string' ? x.startsWith(p) : typeError1('startswith', x, p)));
defineV('endswith', 1, (x, [p]) => (typeof x === 'string' && typeof p === 'string' ? x.endsWith(p) : typeError1('endswith', x, p)));
defineV('ltrimstr', 1, (x, [p]) => (typeof x === 'string' && typeof p === 'string' && x.startsWith(p) ? x.slice(p.length) : x));
defineV('rtrimstr', 1, (x, [p]) =>
  typeof x === 'string' && typeof p === 'string' && x.endsWith(p) && p !== '' ? x.slice(0, x.length - p.length) : x,
);
defineV('trimstr', 1, (x, [p]) => {
  if (typeof x !== 'string' || typeof p !== 'string') return typeError1('trimstr', x, p);
  const l = x.startsWith(p) ? x.slice(p.length) : x;
  return p !== '' && l.endsWith(p) ? l.slice(0, l.length - p.length) : l;
});
const WS = /^[\s\u0085]+|[\s\u0085]+$/g;
define0('trim', (x) => str('trim', x).replace(WS, ''));
define0('ltrim', (x) => str('ltrim', x).replace(/^[\s\u0085]+/, ''));
define0('rtrim', (x) => str('rtrim', x).replace(/[\s\u0085]+$/, ''));
define0('ascii_downcase', (x) => str('ascii_downcase', x).replace(/[A-Z]+/g, (m) => m.toLowerCase()));
define0('ascii_upcase', (x) => str('ascii_upcase', x).replace(/[a-z]+/g, (m) => m.toUpperCase()));
define0('explode', (x) => Array.from(str('explode', x), (c) => c.codePointAt(0)!));
define0('implode', (x) => {
  const cps = arr('implode', x);
  let s = '';
  for (const c of cps) {
    if (typeof c !== 'number' || c < 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return typeError('implode', x);
    s += String.fromCodePoint(Math.floor(c));
  }
  return s;
});
define0('ascii', (x) => String.fromCodePoint(num('ascii', x)));
defineV('split', 1, (x, [sep]) => {
  const s = str('split', x);
  const p = str('split', sep);
  // Go's strings.Split semantics (gojq): "" splits into characters, and "" split by a separator is [""]
  // (jq 1.7 gives [] for the latter).
  if (p === '') return Array.from(s);
  return s.split(p);
});
defineV('split', 2, (x, [re, flags]) => splitRegex(x, re, flags));
defineV('join', 1, (x, [sep]) => {
  const items = Array.isArray(x) ? x : iterValues(x);
  if (items.length === 0) return '';
  const s = str('join', sep);
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (i > 0) out += s;
    if (v === null) continue;
    if (typeof v === 'object') return fail(`cannot join: ${typeErrorPreview(v)}`);
    out += toString(v);
  }
  return out;
});

// ---- regular expressions -------------------------------------------------------------------------------------------

defineV('test', 1, (x, [re]) => test(x, re, null));
defineV('test', 2, (x, [re, f]) => test(x, re, f));
define('match', 1, ([re]) => fromGen((x, env, emit) => re.gen(x, env, (r) => matches(x, r, null).forEach((m) => emit(m)))));
define('match', 2, ([re, fl]) =>
  fromGen((x, env, emit) => re.gen(x, env, (r) => fl.gen(x, env, (f) => matches(x, r, f).forEach((m) => emit(m))))),
);
const capture = (x: JqValue, r: JqValue, f: JqValue, emit: (v: JqValue) => void): void => {
  for (const m of matches(x, r, f)) emit(captureObject(m));
};
define('capture', 1, ([re]) => fromGen((x, env, emit) => re.gen(x, env, (r) => capture(x, r, null, emit))));
define('capture', 2, ([re, fl]) => fromGen((x, env, emit) => re.gen(x, env, (r) => fl.gen(x, env, (f) => capture(x, r, f, emit)))));
const scan = (x: JqValue, r: JqValue, f: JqValue, emit: (v: JqValue) => void): void => {
  for (const m of matches(x, r, f, true)) {
    const caps = m.captures as JqObject[];
    emit(caps.length > 0 ? caps.map((c) => c.string) : m.string);
  }
};
define('scan', 1, ([re]) => fromGen((x, env, emit) => re.gen(x, env, (r) => scan(x, r, null, emit))));
define('scan', 2, ([re, fl]) => fromGen((x, env, emit) => re.gen(x, env, (r) => fl.gen(x, env, (f) => scan(x, r, f, emit)))));
define('splits', 1, ([re]) => fromGen((x, env, emit) => re.gen(x, env, (r) => splitRegex(x, r, null).forEach((s) => emit(s)))));
define('splits', 2, ([re, fl]) =>
  fromGen((x, env, emit) => re.gen(x, env, (r) => fl.gen(x, env, (f) => splitRegex(x, r, f).forEach((s) => emit(s))))),
);

/**
 * sub/gsub: the replacement is a filter over the named captures; several outputs multiply the results
 * (first match's replacements vary slowest, as in gojq's recursive definition).
 */
function substitute(x: JqValue, re: JqValue, repl: Compiled, flags: JqValue, env: Env | null, emit: (v: JqValue) => void): void {
  const s = str('sub', x);
  const ms = matches(s, re, flags);
  const cps = Array.from(s);
  let partials = [''];
  let prev = 0;
  for (const m of ms) {
    const gap = cps.slice(prev, m.offset as number).join('');
    const next: string[] = [];
    for (const p of partials) {
      for (const r of collect(repl, captureObject(m), env)) {
        if (typeof r !== 'string') return void fail(`cannot add: string (${JSON.stringify(p + gap)}) and ${typeErrorPreview(r)}`);
        next.push(p + gap + r);
      }
    }
    partials = next;
    prev = (m.offset as number) + (m.length as number);
  }
  const tail = prev === 0 ? s : cpSlice(s, prev);
  for (const p of partials) emit(p + tail);
}
define('sub', 2, ([re, repl]) => fromGen((x, env, emit) => re.gen(x, env, (r) => substitute(x, r, repl, null, env, emit))));
define('sub', 3, ([re, repl, fl]) =>
  fromGen((x, env, emit) => re.gen(x, env, (r) => fl.gen(x, env, (f) => substitute(x, r, repl, f, env, emit)))),
);
define('gsub', 2, ([re, repl]) => fromGen((x, env, emit) => re.gen(x, env, (r) => substitute(x, r, repl, 'g', env, emit))));
define('gsub', 3, ([re, repl, fl]) =>
  fromGen((x, env, emit) =>
    re.gen(x, env, (r) => fl.gen(x, env, (f) => substitute(x, r, repl, `${typeof f === 'string' ? f : ''}g`, env, emit))),
  ),
);

