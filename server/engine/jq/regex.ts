import { fail, typeErrorPreview } from './errors.ts';
import type { JqObject, JqValue } from './values.ts';

/**
 * jq's regex functions on top of JS RegExp. Flags as jq: g (all matches), i (ignore case), x (extended:
 * whitespace and # comments ignored), n (ignore empty matches), s (dot matches newline), l and p accepted.
 * Offsets and lengths are in code points, as jq reports them.
 */
interface CompiledRegex {
  rx: RegExp;
  names: Array<string | null>;
  global: boolean;
  skipEmpty: boolean;
}

const CACHE = new Map<string, CompiledRegex>();
const CACHE_MAX = 512;

/** Names of the capture groups in order (null for unnamed ones), skipping escapes and character classes. */
function groupNames(src: string): Array<string | null> {
  const names: Array<string | null> = [];
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') {
      if (src[i + 1] !== '?') names.push(null);
      else if (src[i + 2] === '<' && src[i + 3] !== '=' && src[i + 3] !== '!') {
        const end = src.indexOf('>', i + 3);
        names.push(src.slice(i + 3, end));
      } else if (src[i + 2] === 'P' && src[i + 3] === '<') {
        const end = src.indexOf('>', i + 4);
        names.push(src.slice(i + 4, end));
      }
    }
  }
  return names;
}

function stripExtended(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      out += c + (src[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

export function compileRegex(re: JqValue, flags: JqValue): CompiledRegex {
  if (typeof re !== 'string') return fail(`${typeErrorPreview(re)} cannot be matched, as it is not a string`);
  if (flags !== null && typeof flags !== 'string') return fail(`${typeErrorPreview(flags)} is not a string`);
  const f = flags ?? '';
  const key = `${f}\u0000${re}`;
  const hit = CACHE.get(key);
  if (hit) return hit;
  let js = 'gud';
  let src = re;
  let global = false;
  let skipEmpty = false;
  for (const ch of f) {
    switch (ch) {
      case 'g':
        global = true;
        break;
      case 'i':
        js += 'i';
        break;
      case 'x':
        src = stripExtended(src);
        break;
      case 'n':
        skipEmpty = true;
        break;
      case 's':
        if (!js.includes('s')) js += 's';
        break;
      case 'p':
        if (!js.includes('s')) js += 's';
        break;
      case 'l':
        break;
      default:
        return fail(`${f} is not a valid modifier string`);
    }
  }
  // Oniguruma/RE2 spell named groups (?P<name>…) too.
  src = src.replace(/\(\?P</g, '(?<');
  let rx: RegExp;
  try {
    rx = new RegExp(src, js);
  } catch {
    try {
      // Unicode mode rejects escapes like `\-` that Oniguruma accepts; retry without it.
      rx = new RegExp(src, js.replace('u', ''));
    } catch (e) {
      return fail(`${re} (at offset 0) is not a valid regex: ${(e as Error).message}`);
    }
  }
  const compiled: CompiledRegex = { rx, names: groupNames(src), global, skipEmpty };
  if (CACHE.size >= CACHE_MAX) CACHE.clear();
  CACHE.set(key, compiled);
  return compiled;
}

/** UTF-16 offset → code point offset converter for one subject string. */
function cpOffsets(s: string): (i: number) => number {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 0xd800 && s.charCodeAt(i) <= 0xdbff) {
      ascii = false;
      break;
    }
  }
  if (ascii) return (i) => i;
  const map = new Int32Array(s.length + 1);
  let cp = 0;
  for (let i = 0; i < s.length; i++) {
    map[i] = cp;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      map[i + 1] = cp;
      i++;
    }
    cp++;
  }
  map[s.length] = cp;
  return (i) => map[i];
}

export function cpLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    n++;
  }
  return n;
}

/** jq's match objects for `s`: one when not global, all otherwise. */
export function matches(s: JqValue, re: JqValue, flags: JqValue, forceGlobal = false): JqObject[] {
  if (typeof s !== 'string') return fail(`${typeErrorPreview(s)} cannot be matched, as it is not a string`);
  const c = compileRegex(re, flags);
  const global = c.global || forceGlobal;
  const rx = c.rx;
  const cp = cpOffsets(s);
  const out: JqObject[] = [];
  rx.lastIndex = 0;
  while (rx.lastIndex <= s.length) {
    const m = rx.exec(s);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    if (m[0].length === 0) {
      // step over the empty match by one code point
      const code = s.charCodeAt(end);
      rx.lastIndex = end + (code >= 0xd800 && code <= 0xdbff ? 2 : 1);
    }
    if (m[0].length === 0 && c.skipEmpty) {
      if (!global) break;
      continue;
    }
    const captures: JqValue[] = [];
    const indices = (m as RegExpExecArray & { indices?: Array<[number, number] | undefined> }).indices;
    for (let g = 1; g < m.length; g++) {
      const name = c.names[g - 1] ?? null;
      const range = indices?.[g];
      if (m[g] === undefined || !range) {
        captures.push({ offset: -1, length: 0, string: null, name });
      } else {
        captures.push({ offset: cp(range[0]), length: cpLength(m[g]), string: m[g], name });
      }
    }
    out.push({ offset: cp(start), length: cpLength(m[0]), string: m[0], captures });
    if (!global) break;
  }
  return out;
}

export function test(s: JqValue, re: JqValue, flags: JqValue): boolean {
  if (typeof s !== 'string') return fail(`${typeErrorPreview(s)} cannot be matched, as it is not a string`);
  const c = compileRegex(re, flags);
  if (c.skipEmpty) return matches(s, re, flags).length > 0;
  c.rx.lastIndex = 0;
  return c.rx.test(s);
}

/** Named captures of a match as an object (`capture`, and the input of `sub` replacements). */
export function captureObject(m: JqObject): JqObject {
  const o: JqObject = {};
  for (const c of m.captures as JqObject[]) {
    if (c.name !== null) o[c.name as string] = c.string;
  }
  return o;
}

/** Code-point slice of a string. */
export function cpSlice(s: string, from: number, to?: number): string {
  return Array.from(s).slice(from, to).join('');
}

export function splitRegex(s: JqValue, re: JqValue, flags: JqValue): JqValue[] {
  if (typeof s !== 'string') return fail(`split cannot be applied to: ${typeErrorPreview(s)}`);
  const ms = matches(s, re, flags, true);
  const cps = Array.from(s);
  const out: JqValue[] = [];
  let prev = 0;
  for (const m of ms) {
    const off = m.offset as number;
    out.push(cps.slice(prev, off).join(''));
    prev = off + (m.length as number);
  }
  out.push(cps.slice(prev).join(''));
  return out;
}
