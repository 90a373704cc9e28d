/** Builtins over arrays and strings: sorting, grouping, searching, string and regex functions. */
import { arr, define, define0, defineV, num, str, typeError, typeError1 } from './builtin-registry.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { arrayIndices, iterValues } from './ops.ts';
import { captureObject, cpLength, cpSlice, matches, splitRegex, test } from './regex.ts';
import { alloc, charge, chargeSort, chargeText, checkDepth, SLOT } from './budget.ts';
import { collect, fromGen, fromOne, tick } from './runtime.ts';
import type { Compiled, Env } from './types.ts';
import type { JqObject, JqValue } from './values.ts';
import { compare, equals, setKey, toString } from './values.ts';

// ---- sorting and grouping -------------------------------------------------------------------------------------

/** Stable sort of `xs` by the array of outputs of `f` (jq sorts by `[f]`). */
function keyed(name: string, x: JqValue, f: Compiled | null, env: Env | null): Array<{ k: JqValue; v: JqValue }> {
  const xs = arr(name, x);
  alloc(xs.length * 2 * SLOT);
  return xs.map((v) => ({ k: f ? collect(f, v, env) : v, v }));
}

function sortedKeyed(name: string, x: JqValue, f: Compiled | null, env: Env | null): Array<{ k: JqValue; v: JqValue }> {
  const ks = keyed(name, x, f, env);
  chargeSort(ks.length);
  alloc(ks.length * SLOT);
  return ks.sort((a, b) => compare(a.k, b.k));
}

define0('sort', (x) => {
  const xs = arr('sort', x);
  chargeSort(xs.length);
  alloc(xs.length * SLOT);
  return xs.slice().sort(compare);
});
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
define0('reverse', (x) => {
  if (x === null) return [];
  const xs = arr('reverse', x);
  alloc(xs.length * SLOT);
  return xs.slice().reverse();
});

function flatten(xs: JqValue[], depth: number, out: JqValue[], level = 0): JqValue[] {
  checkDepth(level);
  charge(xs.length);
  for (const v of xs) {
    if (Array.isArray(v) && depth !== 0) flatten(v, depth - 1, out, level + 1);
    else {
      alloc(SLOT);
      out.push(v);
    }
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
  alloc(n * (rows.length + 1) * SLOT);
  const out: JqValue[] = [];
  for (let i = 0; i < n; i++) out.push(rows.map((r) => (i < r.length ? r[i] : null)));
  return out;
});

function combinations(rows: JqValue[], emit: (v: JqValue) => void): void {
  const acc: JqValue[] = [];
  const rec = (i: number): void => {
    tick();
    if (i === rows.length) {
      alloc(rows.length * SLOT);
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
    for (const k of collect(key, row, env)) {
      alloc(SLOT);
      setKey(o, toString(k), row);
    }
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
  chargeText(s.length);
  const ascii = !/[\ud800-\udfff]/.test(s);
  // code points before the previous occurrence, so that converting offsets stays linear
  let cpBefore = 0;
  let prev = 0;
  let i = s.indexOf(sub);
  while (i >= 0) {
    // each occurrence compares the whole of `sub`
    tick();
    chargeText(sub.length);
    alloc(SLOT);
    if (!ascii) {
      cpBefore += cpLength(s.slice(prev, i));
      prev = i;
    }
    out.push(ascii ? i : cpBefore);
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
    charge(x.length);
    x.forEach((v, i) => {
      if (equals(v, k)) {
        alloc(SLOT);
        out.push(i);
      }
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

/** `x.startsWith(p)` / `x.endsWith(p)`, charged for the text compared. */
function startsWith(x: string, p: string): boolean {
  chargeText(p.length);
  return x.startsWith(p);
}
function endsWith(x: string, p: string): boolean {
  chargeText(p.length);
  return x.endsWith(p);
}
/** A new string: its length is charged (a slice counts as built, whatever V8 shares). */
function built(s: string): string {
  alloc(s.length);
  return s;
}
defineV('startswith', 1, (x, [p]) => (typeof x === 'string' && typeof p === 'string' ? startsWith(x, p) : typeError1('startswith', x, p)));
defineV('endswith', 1, (x, [p]) => (typeof x === 'string' && typeof p === 'string' ? endsWith(x, p) : typeError1('endswith', x, p)));
defineV('ltrimstr', 1, (x, [p]) => (typeof x === 'string' && typeof p === 'string' && startsWith(x, p) ? built(x.slice(p.length)) : x));
defineV('rtrimstr', 1, (x, [p]) =>
  typeof x === 'string' && typeof p === 'string' && endsWith(x, p) && p !== '' ? built(x.slice(0, x.length - p.length)) : x,
);
defineV('trimstr', 1, (x, [p]) => {
  if (typeof x !== 'string' || typeof p !== 'string') return typeError1('trimstr', x, p);
  const l = startsWith(x, p) ? x.slice(p.length) : x;
  return built(p !== '' && endsWith(l, p) ? l.slice(0, l.length - p.length) : l);
});

const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
/**
 * Whitespace trimming by scanning from the ends (`/\s+$/` backtracks quadratically on long runs of spaces
 * followed by something else); JavaScript's `\s` plus U+0085, as before.
 */
function trimSpace(name: string, x: JqValue, left: boolean, right: boolean): string {
  const s = str(name, x);
  chargeText(s.length);
  let a = 0;
  let b = s.length;
  if (left) while (a < b && isSpace(s.charCodeAt(a))) a++;
  if (right) while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return built(s.slice(a, b));
}
define0('trim', (x) => trimSpace('trim', x, true, true));
define0('ltrim', (x) => trimSpace('ltrim', x, true, false));
define0('rtrim', (x) => trimSpace('rtrim', x, false, true));
/** ASCII case mapping, charged for the scan and the new string. */
function asciiCase(name: string, x: JqValue, upper: boolean): string {
  const s = str(name, x);
  chargeText(s.length);
  return built(upper ? s.replace(/[a-z]+/g, (m) => m.toUpperCase()) : s.replace(/[A-Z]+/g, (m) => m.toLowerCase()));
}
define0('ascii_downcase', (x) => asciiCase('ascii_downcase', x, false));
define0('ascii_upcase', (x) => asciiCase('ascii_upcase', x, true));
define0('explode', (x) => {
  const s = str('explode', x);
  alloc(s.length * SLOT);
  return Array.from(s, (c) => c.codePointAt(0)!);
});
define0('implode', (x) => {
  const cps = arr('implode', x);
  charge(cps.length);
  alloc(cps.length * 2);
  let s = '';
  for (const c of cps) {
    if (typeof c !== 'number' || c < 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return typeError('implode', x);
    s += String.fromCodePoint(Math.floor(c));
  }
  return s;
});
define0('ascii', (x) => {
  const c = num('ascii', x);
  // String.fromCodePoint throws a RangeError outside the code points
  if (!Number.isInteger(c) || c < 0 || c > 0x10ffff) return typeError('ascii', x);
  return String.fromCodePoint(c);
});
defineV('split', 1, (x, [sep]) => {
  const s = str('split', x);
  const p = str('split', sep);
  chargeText(s.length);
  // Go's strings.Split semantics (gojq): "" splits into characters, and "" split by a separator is [""]
  // (jq 1.7 gives [] for the latter).
  if (p === '') {
    alloc(s.length * (SLOT + 1));
    return Array.from(s);
  }
  const parts = s.split(p);
  alloc(s.length + parts.length * SLOT);
  return parts;
});
defineV('split', 2, (x, [re, flags]) => splitRegex(x, re, flags));
defineV('join', 1, (x, [sep]) => {
  const items = Array.isArray(x) ? x : iterValues(x);
  if (items.length === 0) return '';
  const s = str('join', sep);
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (i > 0) {
      alloc(s.length);
      out += s;
    }
    if (v === null) continue;
    if (typeof v === 'object') return fail(`cannot join: ${typeErrorPreview(v)}`);
    const t = toString(v);
    if (typeof v === 'string') alloc(t.length);
    out += t;
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
  alloc(s.length * SLOT);
  const cps = Array.from(s);
  let partials = [''];
  let prev = 0;
  for (const m of ms) {
    const gap = cps.slice(prev, m.offset as number).join('');
    const next: string[] = [];
    for (const p of partials) {
      for (const r of collect(repl, captureObject(m), env)) {
        if (typeof r !== 'string') return void fail(`cannot add: string (${JSON.stringify(p + gap)}) and ${typeErrorPreview(r)}`);
        // several replacement outputs multiply the partial results: each is charged as built
        alloc(SLOT + p.length + gap.length + r.length);
        next.push(p + gap + r);
      }
    }
    partials = next;
    prev = (m.offset as number) + (m.length as number);
  }
  const tail = prev === 0 ? s : cpSlice(s, prev);
  for (const p of partials) {
    alloc(p.length + tail.length);
    emit(p + tail);
  }
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

