/** Object construction: `{a, $x, "k": v, (e): v, @fmt "k": v, …}`. */
import type { Node, ObjectEntry } from './ast.ts';
import type { Parser } from './parser.ts';
import { parseString } from './parser-strings.ts';

export function parseObject(p: Parser): Node {
  const pos = p.expectPunct('{').pos;
  const entries: ObjectEntry[] = [];
  if (p.accept('}')) return { t: 'object', entries, pos };
  while (true) {
    const t = p.peek();
    let entry: ObjectEntry;
    if (t.kind === 'var') {
      p.next();
      entry = { key: t.text, value: null, varName: t.text };
      if (t.text === '__loc__') entry = { key: '__loc__', value: p.location(t) };
    } else if (t.kind === 'ident' || t.kind === 'keyword') {
      p.next();
      entry = { key: t.text, value: null };
    } else if (t.kind === 'number') {
      p.next();
      entry = { key: { t: 'literal', value: t.num ?? 0, pos: t.pos }, value: null };
    } else if (t.kind === 'str_start' || t.kind === 'format') {
      if (t.kind === 'format') p.next();
      const s = parseString(p, t.kind === 'format' ? t.text : null);
      entry = { key: s.t === 'literal' && typeof s.value === 'string' ? s.value : s, value: null };
    } else if (t.kind === 'punct' && t.text === '(') {
      p.next();
      const key = p.parsePipe();
      p.expectPunct(')');
      if (!p.isPunct(':')) p.fail();
      entry = { key, value: null };
    } else {
      p.fail(t);
    }
    if (p.accept(':')) {
      entry = { key: entry.key, value: parseObjectValue(p) };
    } else if (entry.key !== null && typeof entry.key !== 'string' && entry.key.t === 'literal') {
      // a bare number key `{1}` is not valid jq
      p.fail();
    }
    entries.push(entry);
    if (p.accept(',')) {
      if (p.accept('}')) break;
      continue;
    }
    p.expectPunct('}');
    break;
  }
  return { t: 'object', entries, pos };
}

/**
 * Object values are jq's `ExpD`: terms (optionally negated) joined by `|`; anything else needs parentheses
 * (`{a: 1 + 2}` is a syntax error in jq and gojq).
 */
function parseObjectValue(p: Parser): Node {
  let v = p.parseUnary(false);
  while (p.isPunct('|')) {
    const pos = p.next().pos;
    v = { t: 'pipe', left: v, right: p.parseUnary(false), pos };
  }
  return v;
}
