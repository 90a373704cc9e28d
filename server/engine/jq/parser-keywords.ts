/** Keyword constructs: `if`, `try … catch`, `reduce`, `foreach`, `label`, and `def` function definitions. */
import type { Node, NodeOf, Pattern } from './ast.ts';
import type { Token } from './lexer.ts';
import type { Parser } from './parser.ts';
import { parsePattern } from './parser-patterns.ts';

export function parseKeywordTerm(p: Parser, t: Token): Node {
  switch (t.text) {
    case 'if':
      p.next();
      return parseIfRest(p, t.pos);
    case 'try': {
      p.next();
      const body = p.parseUnary(false);
      let handler: Node | null = null;
      if (p.isKeyword('catch')) {
        p.next();
        handler = p.parseUnary(false);
      }
      return { t: 'try', body, handler, pos: t.pos };
    }
    case 'reduce': {
      const { source, pattern, init, update } = parseFold(p);
      p.expectPunct(')');
      return { t: 'reduce', source, pattern, init, update, pos: t.pos };
    }
    case 'foreach': {
      const { source, pattern, init, update } = parseFold(p);
      const extract = p.accept(';') ? p.parsePipe() : null;
      p.expectPunct(')');
      return { t: 'foreach', source, pattern, init, update, extract, pos: t.pos };
    }
    case 'label': {
      p.next();
      const v = p.next();
      if (v.kind !== 'var') p.fail(v);
      p.expectPunct('|');
      return { t: 'label', name: v.text, body: p.parsePipe(), pos: t.pos };
    }
    case 'def': {
      const def = parseFuncDef(p);
      return { ...def, rest: p.parsePipe() };
    }
    default:
      p.fail(t);
  }
}

/** `if` after the keyword: `cond then a (elif …)* (else b)? end`. */
function parseIfRest(p: Parser, pos: number): Node {
  const cond = p.parsePipe();
  p.expectKeyword('then');
  const then = p.parsePipe();
  // `elif` is a nested `if` that shares the `end`.
  if (p.isKeyword('elif')) {
    p.descend();
    const otherwise = parseIfRest(p, p.next().pos);
    p.ascend();
    return { t: 'if', cond, then, else: otherwise, pos };
  }
  let otherwise: Node | null = null;
  if (p.isKeyword('else')) {
    p.next();
    otherwise = p.parsePipe();
  }
  p.expectKeyword('end');
  return { t: 'if', cond, then, else: otherwise, pos };
}

/** What `reduce` and `foreach` share, from the keyword up to the update: `SOURCE as $p (INIT; UPDATE`. */
function parseFold(p: Parser): { source: Node; pattern: Pattern; init: Node; update: Node } {
  p.next();
  const source = p.parsePostfix(false);
  p.expectKeyword('as');
  const pattern = parsePattern(p);
  p.expectPunct('(');
  const init = p.parsePipe();
  p.expectPunct(';');
  return { source, pattern, init, update: p.parsePipe() };
}

/** `def name(params): body;` — the caller parses what follows it into `rest`. */
export function parseFuncDef(p: Parser): Omit<NodeOf<'funcdef'>, 'rest'> {
  const pos = p.expectKeyword('def').pos;
  const nameTok = p.next();
  if (nameTok.kind !== 'ident' && nameTok.kind !== 'keyword') p.fail(nameTok);
  const params = !p.accept('(')
    ? []
    : p.list(';', ')', () => {
        const t = p.next();
        if (t.kind === 'ident') return t.text;
        if (t.kind === 'var') return `$${t.text}`;
        return p.fail(t);
      });
  p.expectPunct(':');
  let body = p.parsePipe();
  p.expectPunct(';');
  // `def f($a): body` is `def f(a): a as $a | body`.
  const plain: string[] = [];
  const bindings: string[] = [];
  for (const param of params) {
    if (param.startsWith('$')) {
      plain.push(param.slice(1));
      bindings.push(param.slice(1));
    } else plain.push(param);
  }
  for (let k = bindings.length - 1; k >= 0; k--) {
    const name = bindings[k];
    body = { t: 'bind', source: { t: 'call', name, args: [], pos }, pattern: { t: 'pvar', name }, body, pos };
  }
  return { t: 'funcdef', name: nameTok.text, params: plain, body, pos };
}
