import { RE2JS } from 're2js';
import { alloc, charge, SLOT, tick } from './budget.ts';
import { fail, typeErrorPreview } from './errors.ts';
import type { JqObject, JqValue } from './values.ts';

/**
 * jq's regex functions on RE2 (re2js, a port of Go's regexp — gojq's engine): matching takes time linear in
 * the subject, whatever the pattern, so a pattern from a definition or an object cannot hang the process.
 * RE2 syntax, as gojq: no backreferences, no lookaround (a pattern using them is an error naming it).
 * Flags as jq: g (all matches), i (ignore case), x (extended: whitespace and # comments ignored), n (ignore
 * empty matches), s and p (dot matches newline, as gojq's flag), l accepted. Offsets and lengths are in code
 * points, as jq reports them.
 *
 * Budget: compiling charges the pattern's length (whether or not the pattern is cached, so that the charge
 * does not depend on what ran before); each search charges the text it scans times a factor that grows with
 * the compiled program, because RE2's time is linear in the text and in the program.
 */
interface CompiledRegex {
  re: RE2JS;
  names: Array<string | null>;
  global: boolean;
  skipEmpty: boolean;
  /** steps per UTF-16 unit scanned: measured, a search with captures takes ~100 ns per unit for small programs */
  cost: number;
}

const CACHE = new Map<string, CompiledRegex>();
const CACHE_MAX = 512;

/** Names of the capture groups in order (null for unnamed ones). */
function groupNames(re: RE2JS): Array<string | null> {
  const names = new Array<string | null>(re.groupCount()).fill(null);
  const named = re.namedGroups();
  for (const name of Object.keys(named)) names[named[name] - 1] = name;
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

const RE2_HINT = 'regular expressions are RE2 syntax, as in gojq: no backreferences, no lookaround';

export function compileRegex(re: JqValue, flags: JqValue): CompiledRegex {
  if (typeof re !== 'string') return fail(`${typeErrorPreview(re)} cannot be matched, as it is not a string`);
  if (flags !== null && typeof flags !== 'string') return fail(`${typeErrorPreview(flags)} is not a string`);
  // compiling is linear in the pattern (RE2 bounds repetition counts); charged whether or not cached
  charge(1 + re.length);
  const f = flags ?? '';
  const key = `${f}\u0000${re}`;
  const hit = CACHE.get(key);
  if (hit) return hit;
  let src = re;
  let bits = 0;
  let global = false;
  let skipEmpty = false;
  for (const ch of f) {
    switch (ch) {
      case 'g':
        global = true;
        break;
      case 'i':
        bits |= RE2JS.CASE_INSENSITIVE;
        break;
      case 'x':
        src = stripExtended(src);
        break;
      case 'n':
        skipEmpty = true;
        break;
      case 's':
      case 'p':
        bits |= RE2JS.DOTALL;
        break;
      case 'l':
        break;
      default:
        return fail(`${f} is not a valid modifier string`);
    }
  }
  let rx: RE2JS;
  try {
    rx = RE2JS.compile(src, bits);
  } catch (e) {
    return fail(`${re} (at offset 0) is not a valid regex: ${(e as Error).message} (${RE2_HINT})`);
  }
  const compiled: CompiledRegex = { re: rx, names: groupNames(rx), global, skipEmpty, cost: 4 + (rx.programSize() >>> 3) };
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
  const m = c.re.matcher(s);
  const groups = c.names.length;
  const cp = cpOffsets(s);
  const out: JqObject[] = [];
  let pos = 0;
  while (pos <= s.length) {
    // Charged for the rest of the text, whatever the search reads: a search may read to the end of the text
    // even when its match is short (`a*x|a` on "aaa…" does, every time), so that global matching costs the
    // number of matches times the length of the text — linear per search, as RE2 promises, but not overall.
    charge((s.length - pos + 1) * c.cost);
    const found = m.find(pos);
    if (!found) break;
    const start = m.start();
    const end = m.end();
    // step over an empty match by one code point
    const code = s.charCodeAt(end);
    pos = end > start ? end : end + (code >= 0xd800 && code <= 0xdbff ? 2 : 1);
    if (end === start && c.skipEmpty) {
      if (!global) break;
      continue;
    }
    tick();
    alloc((4 + groups * 4) * SLOT + (end - start));
    const captures: JqValue[] = [];
    for (let g = 1; g <= groups; g++) {
      const name = c.names[g - 1];
      const gs = m.start(g);
      if (gs < 0) {
        captures.push({ offset: -1, length: 0, string: null, name });
      } else {
        const ge = m.end(g);
        captures.push({ offset: cp(gs), length: cp(ge) - cp(gs), string: s.slice(gs, ge), name });
      }
    }
    out.push({ offset: cp(start), length: cp(end) - cp(start), string: s.slice(start, end), captures });
    if (!global) break;
  }
  return out;
}

export function test(s: JqValue, re: JqValue, flags: JqValue): boolean {
  if (typeof s !== 'string') return fail(`${typeErrorPreview(s)} cannot be matched, as it is not a string`);
  const c = compileRegex(re, flags);
  if (c.skipEmpty) return matches(s, re, flags).length > 0;
  charge((s.length + 1) * c.cost);
  return c.re.test(s);
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
  alloc(s.length * SLOT);
  const cps = Array.from(s);
  const out: JqValue[] = [];
  let prev = 0;
  for (const m of ms) {
    const off = m.offset as number;
    out.push(cps.slice(prev, off).join(''));
    prev = off + (m.length as number);
  }
  out.push(cps.slice(prev).join(''));
  alloc(s.length + out.length * SLOT);
  return out;
}
