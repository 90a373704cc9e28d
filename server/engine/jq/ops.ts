import { alloc, charge, chargeText, checkDepth, SLOT } from './budget.ts';
import { fail, typeErrorPreview } from './errors.ts';
import type { JqObject, JqValue } from './values.ts';
import { compare, copyObject, equals, getKey, isObject, objectKeys, setKey } from './values.ts';

/** `.k` on a value (gojq: null stays null, objects look the key up, everything else is an error). */
export function indexField(v: JqValue, k: string): JqValue {
  if (v === null) return null;
  if (typeof v === 'object' && !Array.isArray(v)) return getKey(v, k);
  return fail(`expected an object but got: ${typeErrorPreview(v)}`);
}

/** Like indexField for keys that cannot collide with Object.prototype members (the common case). */
export function indexPlainField(v: JqValue, k: string): JqValue {
  if (v === null) return null;
  if (typeof v === 'object' && !Array.isArray(v)) {
    const r = v[k];
    return r === undefined ? null : r;
  }
  return fail(`expected an object but got: ${typeErrorPreview(v)}`);
}

export function indexNumber(v: JqValue, n: number): JqValue {
  if (v === null) return null;
  if (Array.isArray(v)) {
    if (Number.isNaN(n)) return null;
    let i = Math.floor(n);
    if (i < 0) i += v.length;
    if (i < 0 || i >= v.length) return null;
    const r = v[i];
    return r === undefined ? null : r;
  }
  return fail(`expected an array but got: ${typeErrorPreview(v)}`);
}

/** `.[k]` with a computed key: string, number, array (indices) or a `{start, end}` slice object. */
export function indexValue(v: JqValue, k: JqValue): JqValue {
  if (typeof k === 'string') return indexField(v, k);
  if (typeof k === 'number') return indexNumber(v, k);
  if (Array.isArray(k)) {
    if (v === null) return null;
    if (Array.isArray(v)) return arrayIndices(v, k);
    return fail(`expected an array but got: ${typeErrorPreview(v)}`);
  }
  if (isObject(k)) {
    if (v === null) return null;
    if (!('start' in k) || !('end' in k)) return fail(`expected "start" and "end" for slicing but got: ${typeErrorPreview(k)}`);
    return slice(v, getKey(k, 'start'), getKey(k, 'end'));
  }
  if (v === null) return null;
  if (Array.isArray(v)) return fail(`expected a number for indexing an array but got: ${typeErrorPreview(k)}`);
  return fail(`expected a string for object key but got: ${typeErrorPreview(k)}`);
}

/** Positions where `sub` occurs as a contiguous run inside `arr` (jq's `indices` for arrays). */
export function arrayIndices(arr: JqValue[], sub: JqValue[]): JqValue {
  const out: number[] = [];
  if (sub.length === 0) return null;
  if (arr.length >= sub.length) charge((arr.length - sub.length + 1) * sub.length);
  for (let i = 0; i + sub.length <= arr.length; i++) {
    let ok = true;
    for (let j = 0; j < sub.length; j++) {
      if (!equals(arr[i + j], sub[j])) {
        ok = false;
        break;
      }
    }
    if (ok) {
      alloc(SLOT);
      out.push(i);
    }
  }
  return out;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function clampSlice(len: number, from: JqValue, to: JqValue): [number, number] {
  const num = (x: JqValue, name: string): number => {
    if (typeof x !== 'number') return fail(`expected a number for slicing ${name} but got: ${typeErrorPreview(x)}`);
    return x;
  };
  let s = from === null ? 0 : Math.floor(num(from, 'start'));
  let e = to === null ? len : Math.ceil(num(to, 'end'));
  if (s < 0) s = Math.max(0, len + s);
  if (e < 0) e = Math.max(0, len + e);
  if (s > len) s = len;
  if (e > len) e = len;
  if (e < s) e = s;
  return [s, e];
}

/** `.[from:to]` on arrays and strings (strings by code point, as jq). */
export function slice(v: JqValue, from: JqValue, to: JqValue): JqValue {
  if (v === null) return null;
  if (Array.isArray(v)) {
    const [s, e] = clampSlice(v.length, from, to);
    alloc((e - s) * SLOT);
    return v.slice(s, e);
  }
  if (typeof v === 'string') {
    chargeText(v.length);
    if (isAscii(v)) {
      const [s, e] = clampSlice(v.length, from, to);
      alloc(e - s);
      return v.slice(s, e);
    }
    alloc(v.length * SLOT);
    const cps = Array.from(v);
    const [s, e] = clampSlice(cps.length, from, to);
    return cps.slice(s, e).join('');
  }
  return fail(`cannot slice ${typeErrorPreview(v)}`);
}

export function iterError(v: JqValue): never {
  return fail(`cannot iterate over: ${typeErrorPreview(v)}`);
}

/** Children of a container, objects in sorted key order (gojq). */
export function iterValues(v: JqValue): JqValue[] {
  // a step per element: callers loop over them
  if (Array.isArray(v)) {
    charge(v.length);
    return v;
  }
  if (v !== null && typeof v === 'object') {
    const keys = objectKeys(v);
    alloc(keys.length * SLOT);
    const out = new Array<JqValue>(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = v[keys[i]];
    return out;
  }
  return iterError(v);
}

// ---- arithmetic ------------------------------------------------------------------------------------------

export function add(l: JqValue, r: JqValue): JqValue {
  if (l === null) return r;
  if (r === null) return l;
  if (typeof l === 'number' && typeof r === 'number') return l + r;
  if (typeof l === 'string' && typeof r === 'string') {
    alloc(l.length + r.length);
    return l + r;
  }
  if (Array.isArray(l) && Array.isArray(r)) {
    alloc((l.length + r.length) * SLOT);
    return l.concat(r);
  }
  if (isObject(l) && isObject(r)) {
    const m = copyObject(l);
    for (const k of objectKeys(r)) {
      alloc(SLOT);
      setKey(m, k, r[k]);
    }
    return m;
  }
  return fail(`cannot add: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
}

export function subtract(l: JqValue, r: JqValue): JqValue {
  if (typeof l === 'number' && typeof r === 'number') return l - r;
  if (Array.isArray(l) && Array.isArray(r)) {
    charge(l.length * r.length);
    alloc(l.length * SLOT);
    return l.filter((x) => !r.some((y) => equals(x, y)));
  }
  return fail(`cannot subtract: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
}

function repeatString(s: string, n: number): JqValue {
  // gojq: non-positive (or NaN) counts give null, counts below 1 give the string once.
  if (!(n > 0)) return null;
  if (n < 1) return s;
  const times = Math.floor(n);
  // charged before it is built: `"abcd" * 1e9` fails at once
  alloc(s.length * times);
  return s.repeat(times);
}

export function deepMerge(l: JqObject, r: JqObject, level = 0): JqObject {
  checkDepth(level);
  const m = copyObject(l);
  for (const k of objectKeys(r)) {
    const a = getKey(m, k);
    const b = r[k];
    alloc(SLOT);
    setKey(m, k, isObject(a) && isObject(b) ? deepMerge(a, b, level + 1) : b);
  }
  return m;
}

export function multiply(l: JqValue, r: JqValue): JqValue {
  if (typeof l === 'number' && typeof r === 'number') return l * r;
  if (typeof l === 'string' && typeof r === 'number') return repeatString(l, r);
  if (typeof l === 'number' && typeof r === 'string') return repeatString(r, l);
  if (isObject(l) && isObject(r)) return deepMerge(l, r);
  return fail(`cannot multiply: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
}

export function divide(l: JqValue, r: JqValue): JqValue {
  if (typeof l === 'number' && typeof r === 'number') {
    if (r === 0) return fail(`cannot divide ${typeErrorPreview(l)} by: ${typeErrorPreview(r)}`);
    return l / r;
  }
  if (typeof l === 'string' && typeof r === 'string') {
    if (l === '') return [];
    chargeText(l.length);
    const parts = l.split(r);
    alloc(l.length + parts.length * SLOT);
    return parts;
  }
  return fail(`cannot divide: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
}

export function modulo(l: JqValue, r: JqValue): JqValue {
  if (typeof l === 'number' && typeof r === 'number') {
    const a = Math.trunc(l);
    const b = Math.trunc(r);
    if (b === 0 || Number.isNaN(b)) return fail(`cannot modulo ${typeErrorPreview(l)} by: ${typeErrorPreview(r)}`);
    const m = a % b;
    return m === 0 ? 0 : m;
  }
  return fail(`cannot modulo: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
}

export function negate(v: JqValue): JqValue {
  if (typeof v === 'number') return -v;
  return fail(`cannot negate: ${typeErrorPreview(v)}`);
}

export type BinaryFn = (l: JqValue, r: JqValue) => JqValue;

export const BINARY: Record<string, BinaryFn> = {
  '+': add,
  '-': subtract,
  '*': multiply,
  '/': divide,
  '%': modulo,
  '==': (l, r) => equals(l, r),
  '!=': (l, r) => !equals(l, r),
  '<': (l, r) => compare(l, r) < 0,
  '<=': (l, r) => compare(l, r) <= 0,
  '>': (l, r) => compare(l, r) > 0,
  '>=': (l, r) => compare(l, r) >= 0,
};

