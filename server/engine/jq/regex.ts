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
 * does not depend on what ran before); each search charges the text it may read times a factor that grows
 * with the compiled program, because RE2's time is linear in the text and in the program (see `matches`).
 */
interface CompiledRegex {
  re: RE2JS;
  names: Array<string | null>;
  global: boolean;
  skipEmpty: boolean;
  /** steps per UTF-16 unit read: measured, a search with captures takes ~100–400 ns a unit for small programs */
  cost: number;
  /** the longest text (UTF-16 units) a match can span; Infinity when a loop makes it unbounded */
  longest: number;
}

interface ProgInst {
  op: number;
  out: number;
  arg: number;
}

// re2js's instruction codes (Inst.ALT …), the same as Go's regexp/syntax
const ALT = 1;
const ALT_MATCH = 2;
const FAIL = 5;
const MATCH = 6;
const RUNE_FIRST = 8;
const RUNE_LAST = 11;

/**
 * The longest match of a compiled program in UTF-16 units (a code point takes at most two), or Infinity when
 * the program has a loop: the longest path through its instructions, found without recursion.
 */
function longestMatch(rx: RE2JS): number {
  const prog = rx.re2().prog as { inst: ProgInst[]; start: number };
  const inst = prog.inst;
  // -1: not seen; -2: on the current path; ≥ 0: longest from here
  const memo = new Float64Array(inst.length).fill(-1);
  const stack = [prog.start];
  while (stack.length > 0) {
    const pc = stack[stack.length - 1];
    if (memo[pc] >= 0) {
      stack.pop();
      continue;
    }
    const i = inst[pc];
    const next = i.op === ALT || i.op === ALT_MATCH ? [i.out, i.arg] : i.op === MATCH || i.op === FAIL ? [] : [i.out];
    if (memo[pc] === -1) {
      memo[pc] = -2;
      for (const n of next) {
        if (memo[n] === -2) return Infinity;
        if (memo[n] === -1) stack.push(n);
      }
      continue;
    }
    let best = 0;
    for (const n of next) best = Math.max(best, memo[n]);
    memo[pc] = best + (i.op >= RUNE_FIRST && i.op <= RUNE_LAST ? 2 : 0);
    stack.pop();
  }
  return memo[prog.start];
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
  // the program's size was bounded by the pattern's length, which was charged
  const compiled: CompiledRegex = { re: rx, names: groupNames(rx), global, skipEmpty, cost: 2 + (rx.programSize() >>> 3), longest: longestMatch(rx) };
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
    // A search from `pos` that finds a match starting at `start` reads no further than `start` plus the
    // longest match the pattern has (threads started earlier die sooner), and to the end of the text when it
    // finds none. With a loop in the pattern the bound is the end of the text: `a*x|a` on "aaa…" reads to the
    // end for every short match, so global matching with such a pattern is charged matches × text length.
    const found = m.find(pos);
    const start = found ? m.start() : s.length;
    charge((Math.min(s.length, start + c.longest) - pos + 1) * c.cost);
    if (!found) break;
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
