/** Destructuring patterns of `as`, `reduce` and `foreach`: `$x`, `[$a, $b]`, `{k: $v, $w, "s": $x, (e): $y}`. */
import type { Node, Pattern } from './ast.ts';
import type { Parser } from './parser.ts';
import { parseString } from './parser-strings.ts';

export function parsePattern(p: Parser): Pattern {
  const t = p.next();
  if (t.kind === 'var') return { t: 'pvar', name: t.text };
  if (t.kind === 'punct' && t.text === '[') {
    if (p.isPunct(']')) p.fail();
    return { t: 'parray', items: p.list(',', ']', () => parsePattern(p)) };
  }
  if (t.kind === 'punct' && t.text === '{') return { t: 'pobject', entries: p.list(',', '}', () => parseObjectPatternEntry(p)) };
  return p.fail(t);
}

function parseObjectPatternEntry(p: Parser): { key: Node; keyVar?: string; value: Pattern | null } {
  const k = p.peek();
  if (k.kind === 'var') {
    p.next();
    const value = p.accept(':') ? parsePattern(p) : null;
    return { key: { t: 'literal', value: k.text, pos: k.pos }, keyVar: k.text, value };
  }
  let key: Node;
  if (k.kind === 'ident' || k.kind === 'keyword') {
    p.next();
    key = { t: 'literal', value: k.text, pos: k.pos };
  } else if (k.kind === 'str_start') {
    key = parseString(p, null);
  } else if (k.kind === 'punct' && k.text === '(') {
    p.next();
    key = p.parsePipe();
    p.expectPunct(')');
  } else return p.fail(k);
  p.expectPunct(':');
  return { key, value: parsePattern(p) };
}
