import { alloc, charge, chargeText, checkDepth, SLOT, tick } from './budget.ts';

/** JSON values as jq sees them. Object properties whose value is `undefined` count as absent. */
export type JqValue = null | boolean | number | string | JqValue[] | { [k: string]: JqValue };
export type JqObject = { [k: string]: JqValue };

export type JqType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function typeOf(v: unknown): JqType {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return Array.isArray(v) ? 'array' : 'object';
  }
}

export function isObject(v: unknown): v is JqObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A finite, non-zero number that is not subnormal. */
export function isNormal(n: number): boolean {
  return Number.isFinite(n) && n !== 0 && Math.abs(n) >= 2.2250738585072014e-308;
}

export function truthy(v: JqValue): boolean {
  return v !== null && v !== false && v !== undefined;
}

/**
 * Code-point (= UTF-8 byte) order, the order Go sorts map keys in. JS compares UTF-16 code units, which
 * disagrees only between astral characters (surrogates) and U+E000..U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  chargeText(n);
  if (a === b) return 0;
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca !== cb) {
      if (ca >= 0xd800 && cb >= 0xd800) {
        ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
        cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
      }
      return ca < cb ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Keys of an object that hold a value, in gojq's (sorted) order. */
export function objectKeys(o: JqObject): string[] {
  const keys: string[] = [];
  for (const k in o) {
    if (o[k] !== undefined && Object.prototype.hasOwnProperty.call(o, k)) keys.push(k);
  }
  // listing and sorting the keys is work proportional to their number
  charge(keys.length);
  if (keys.length > 1) keys.sort(compareStrings);
  return keys;
}

/** Own value of a key, or null when absent (inputs may carry `undefined` and inherited names like `constructor`). */
export function getKey(o: JqObject, k: string): JqValue {
  const v = o[k];
  if (v === undefined) return null;
  if (typeof v === 'function' || !Object.prototype.hasOwnProperty.call(o, k)) return null;
  return v;
}

export function hasKey(o: JqObject, k: string): boolean {
  return o[k] !== undefined && Object.prototype.hasOwnProperty.call(o, k);
}

export function objectSize(o: JqObject): number {
  let n = 0;
  for (const k in o) if (o[k] !== undefined && Object.prototype.hasOwnProperty.call(o, k)) n++;
  return n;
}

/** Shallow copy keeping only present keys. */
export function copyObject(o: JqObject): JqObject {
  const r: JqObject = {};
  let n = 0;
  for (const k in o) {
    const v = o[k];
    if (v !== undefined && Object.prototype.hasOwnProperty.call(o, k)) {
      r[k] = v;
      n++;
    }
  }
  charge(n);
  alloc(n * SLOT);
  return r;
}

/** Defines a property even for keys like `__proto__`, which plain assignment would not store. */
export function setKey(o: JqObject, k: string, v: JqValue): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

const TYPE_RANK: Record<JqType, number> = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5 };

/** jq's total order: null < false < true < numbers < strings < arrays < objects. */
export function compare(a: JqValue, b: JqValue, level = 0): number {
  if (a === b) return 0;
  const ta = typeOf(a);
  const tb = typeOf(b);
  if (ta !== tb) return TYPE_RANK[ta] < TYPE_RANK[tb] ? -1 : 1;
  switch (ta) {
    case 'null':
      return 0;
    case 'boolean':
      return a === b ? 0 : a ? 1 : -1;
    case 'number': {
      const x = a as number;
      const y = b as number;
      // NaN sorts below every number, itself included, as in jq (`nan < nan` is true, `[nan] == [nan]` false).
      if (x < y) return -1;
      if (x > y) return 1;
      if (x === y) return 0;
      return Number.isNaN(x) ? -1 : 1;
    }
    case 'string':
      return compareStrings(a as string, b as string);
    case 'array': {
      const x = a as JqValue[];
      const y = b as JqValue[];
      const n = Math.min(x.length, y.length);
      charge(n + 1);
      checkDepth(level);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i], y[i], level + 1);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    default: {
      // Objects compare first by their sorted key sets, then value by value.
      const x = a as JqObject;
      const y = b as JqObject;
      tick();
      checkDepth(level);
      const kx = objectKeys(x);
      const ky = objectKeys(y);
      const c = compare(kx, ky);
      if (c !== 0) return c;
      for (const k of kx) {
        const d = compare(x[k], y[k], level + 1);
        if (d !== 0) return d;
      }
      return 0;
    }
  }
}

export function equals(a: JqValue, b: JqValue): boolean {
  // comparing long strings is work proportional to their length, whether or not they are the same string
  if (typeof a === 'string' && typeof b === 'string') chargeText(Math.min(a.length, b.length));
  if (a === b) return true;
  if (typeof a !== typeof b || typeof a !== 'object') {
    // Numbers: NaN is never equal; -0 == 0.
    return false;
  }
  return compare(a, b) === 0;
}

/** Number text as gojq prints it: shortest round-trip form, exponent below 1e-6 and from 1e21, NaN as null. */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'null';
  if (n === Infinity) return '1.7976931348623157e+308';
  if (n === -Infinity) return '-1.7976931348623157e+308';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  return String(n);
}

const HEX = '0123456789abcdef';

export function encodeString(s: string): string {
  // Fast path: nothing to escape.
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x7f || (c >= 0xd800 && c <= 0xdfff)) {
      plain = false;
      break;
    }
  }
  if (plain) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      default:
        if (c < 0x20 || c === 0x7f) {
          out += `\\u00${HEX[c >> 4]}${HEX[c & 15]}`;
        } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
          out += s[i] + s[i + 1];
          i++;
        } else if (c >= 0xd800 && c <= 0xdfff) {
          // A lone surrogate is not valid UTF-8; Go would have replaced it.
          out += '\ufffd';
        } else {
          out += s[i];
        }
    }
  }
  return out + '"';
}

/**
 * Where JSON text goes: evaluation output is charged to the size budget piece by piece (a value shared many
 * times over, like `[.,.] | [.,.] | …`, is stopped while its text grows, not after); previews for messages
 * stop at `room` characters without charging.
 */
interface TextSink {
  /** pieces, joined at the end (appending to one string builds a rope the garbage collector chokes on) */
  parts: string[];
  length: number;
  /** characters wanted at most (previews), or -1 when charged to the budget */
  room: number;
}

/** Thrown when a bounded sink is full. */
const FULL = new Error('full');

function put(w: TextSink, piece: string): void {
  w.parts.push(piece);
  w.length += piece.length;
  if (w.room < 0) alloc(piece.length);
  else if (w.length > w.room) throw FULL;
}

function scalarText(v: unknown): string {
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return formatNumber(v);
    case 'string':
      return encodeString(v);
    default:
      return 'null';
  }
}

function write(v: unknown, w: TextSink, level: number): void {
  if (v === null || typeof v !== 'object') {
    put(w, scalarText(v));
    return;
  }
  checkDepth(level);
  if (Array.isArray(v)) {
    put(w, '[');
    for (let i = 0; i < v.length; i++) {
      tick();
      if (i > 0) put(w, ',');
      write(v[i], w, level + 1);
    }
    put(w, ']');
    return;
  }
  const o = v as JqObject;
  put(w, '{');
  let first = true;
  for (const k of objectKeys(o)) {
    tick();
    put(w, first ? `${encodeString(k)}:` : `,${encodeString(k)}:`);
    first = false;
    write(o[k], w, level + 1);
  }
  put(w, '}');
}

/** Compact JSON with sorted object keys (gojq's encoder), charged to the size budget as it is written. */
export function encode(v: unknown): string {
  if (v === null || typeof v !== 'object') {
    const s = scalarText(v);
    alloc(s.length);
    return s;
  }
  const w: TextSink = { parts: [], length: 0, room: -1 };
  write(v, w, 0);
  return w.parts.join('');
}

/** The JSON text of `v` if it has at most `max` characters, else its first `max` characters and `...` (uncharged). */
export function encodeBounded(v: unknown, max: number): string {
  const w: TextSink = { parts: [], length: 0, room: max };
  try {
    write(v, w, 0);
    return w.parts.join('');
  } catch (e) {
    if (e !== FULL) throw e;
    return `${w.parts.join('').slice(0, max)}...`;
  }
}

/** jq's `tostring`. */
export function toString(v: unknown): string {
  return typeof v === 'string' ? v : encode(v);
}

/**
 * Normalises an input into a JqValue without copying when it is already JSON-shaped. Values jq cannot hold
 * (undefined, functions, symbols, bigint) become null; the object graph itself is read lazily elsewhere.
 */
export function fromInput(v: unknown): JqValue {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return null;
  if (typeof v === 'bigint') return Number(v);
  return v as JqValue;
}
