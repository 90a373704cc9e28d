/** Postfix suffixes on a term: `.k`, `."k"`, `[e]`, `[a:b]`, `[]`, `?`, and `as $pattern | body`. */
import type { Node } from './ast.ts';
import type { Parser } from './parser.ts';
import { parsePattern } from './parser-patterns.ts';
import { parseString } from './parser-strings.ts';
import { parsePrimary } from './parser-terms.ts';

export function parsePostfix(p: Parser, allowAs: boolean): Node {
  let term = parsePrimary(p);
  // true right after a suffix (`.k`, `[…]`) applied in this loop, so `X.k?` guards only the suffix while
  // `(X.k)?` (a parenthesised primary) guards everything
  let afterSuffix = false;
  while (true) {
    const t = p.peek();
    if (t.kind === 'field') {
      p.next();
      term = { t: 'field', target: term, name: t.text, pos: t.pos };
      afterSuffix = true;
    } else if (t.kind === 'punct' && t.text === '.' && p.peek(1).kind === 'str_start') {
      p.next();
      term = fieldOrIndex(term, parseString(p, null), t.pos);
      afterSuffix = true;
    } else if (t.kind === 'punct' && t.text === '.' && p.isPunct('[', 1)) {
      p.next();
      term = parseBracketSuffix(p, term);
      afterSuffix = true;
    } else if (t.kind === 'punct' && t.text === '[') {
      term = parseBracketSuffix(p, term);
      afterSuffix = true;
    } else if (t.kind === 'punct' && t.text === '?') {
      p.next();
      const s = term;
      if (afterSuffix && (s.t === 'field' || s.t === 'index' || s.t === 'slice' || s.t === 'iterate') && s.target.t !== 'identity') {
        term = { ...s, opt: true };
      } else term = { t: 'try', body: term, handler: null, pos: t.pos };
      afterSuffix = false;
    } else if (allowAs && t.kind === 'keyword' && t.text === 'as') {
      p.next();
      const pattern = parsePattern(p);
      p.expectPunct('|');
      const body = p.parsePipe();
      return { t: 'bind', source: term, pattern, body, pos: t.pos };
    } else {
      return term;
    }
  }
}

/** A constant string key is a field access (`."k"`, `.["k"]` are `.k`), anything else an index. */
function fieldOrIndex(target: Node, index: Node, pos: number): Node {
  if (index.t === 'literal' && typeof index.value === 'string') return { t: 'field', target, name: index.value, pos };
  return { t: 'index', target, index, pos };
}

function parseBracketSuffix(p: Parser, target: Node): Node {
  const pos = p.expectPunct('[').pos;
  if (p.accept(']')) return { t: 'iterate', target, pos };
  if (p.accept(':')) {
    const to = p.parsePipe();
    p.expectPunct(']');
    return { t: 'slice', target, from: null, to, pos };
  }
  const index = p.parsePipe();
  if (p.accept(':')) {
    if (p.accept(']')) return { t: 'slice', target, from: index, to: null, pos };
    const to = p.parsePipe();
    p.expectPunct(']');
    return { t: 'slice', target, from: index, to, pos };
  }
  p.expectPunct(']');
  return fieldOrIndex(target, index, pos);
}
