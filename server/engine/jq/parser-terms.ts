/** Primary terms: literals, `.`, `..`, `$x`, formats, parentheses, arrays, objects, calls and keyword constructs. */
import type { Node } from './ast.ts';
import type { Parser } from './parser.ts';
import { parseKeywordTerm } from './parser-keywords.ts';
import { parseObject } from './parser-object.ts';
import { parseString } from './parser-strings.ts';

export function parsePrimary(p: Parser): Node {
  const t = p.peek();
  switch (t.kind) {
    case 'number':
      p.next();
      return { t: 'literal', value: t.num ?? Number(t.text), pos: t.pos };
    case 'str_start':
      return parseString(p, null);
    case 'format':
      p.next();
      if (p.peek().kind === 'str_start') return parseString(p, t.text);
      return { t: 'format', name: t.text, pos: t.pos };
    case 'field':
      p.next();
      return { t: 'field', target: { t: 'identity', pos: t.pos }, name: t.text, pos: t.pos };
    case 'var':
      p.next();
      if (t.text === '__loc__') return p.location(t);
      return { t: 'var', name: t.text, pos: t.pos };
    case 'keyword':
      return parseKeywordTerm(p, t);
    case 'ident':
      return parseCall(p);
    case 'punct':
      break;
    default:
      p.fail(t);
  }
  switch (t.text) {
    case '.':
      // `."k"` is the suffix `."k"` on the identity: the postfix loop reads the dot and the string
      if (p.peek(1).kind !== 'str_start') p.next();
      return { t: 'identity', pos: t.pos };
    case '..':
      p.next();
      return { t: 'recurse_default', pos: t.pos };
    case '(': {
      p.next();
      const body = p.parsePipe();
      p.expectPunct(')');
      return body;
    }
    case '[': {
      p.next();
      if (p.accept(']')) return { t: 'array', body: null, pos: t.pos };
      const body = p.parsePipe();
      p.expectPunct(']');
      return { t: 'array', body, pos: t.pos };
    }
    case '{':
      return parseObject(p);
    default:
      p.fail(t);
  }
}

/** `name`, `name(a; b)`, the constants null/true/false, and `break $label`. */
function parseCall(p: Parser): Node {
  const t = p.next();
  if (t.text === 'break' && p.peek().kind === 'var') {
    return { t: 'break', name: p.next().text, pos: t.pos };
  }
  if ((t.text === 'null' || t.text === 'true' || t.text === 'false') && !p.isPunct('(')) {
    return { t: 'literal', value: t.text === 'null' ? null : t.text === 'true', pos: t.pos };
  }
  const args = p.accept('(') ? p.list(';', ')', () => p.parsePipe()) : [];
  return { t: 'call', name: t.text, args, pos: t.pos };
}
