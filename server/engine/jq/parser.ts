import type { AssignOp, BinaryOp, Node, ObjectEntry, Pattern } from './ast.ts';
import { JqError } from './errors.ts';
import type { Token } from './lexer.ts';
import { tokenize } from './lexer.ts';

const ASSIGN_OPS = new Set<string>(['=', '|=', '+=', '-=', '*=', '/=', '%=', '//=']);
const COMPARE_OPS = new Set<string>(['==', '!=', '<', '<=', '>', '>=']);

/**
 * Recursive-descent parser with gojq's precedence, lowest first:
 * `|` (right) < `,` < `//` (right) < `= |= += …` (non-assoc) < `or` < `and` < comparisons (non-assoc) < `+ -` < `* / %`
 * < unary minus < postfix (`.a`, `[…]`, `?`, `as $x | …`).
 */
/** 1-based line of a source offset (for `$__loc__`). */
function lineOf(src: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos; i++) if (src.charCodeAt(i) === 10) line++;
  return line;
}

class Parser {
  private i = 0;
  constructor(
    private readonly toks: Token[],
    private readonly src: string,
  ) {}

  private peek(offset = 0): Token {
    return this.toks[Math.min(this.i + offset, this.toks.length - 1)];
  }
  private next(): Token {
    const t = this.toks[this.i];
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }
  private isPunct(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'punct' && t.text === text;
  }
  private isKeyword(text: string): boolean {
    const t = this.peek();
    return t.kind === 'keyword' && t.text === text;
  }
  private fail(t: Token = this.peek()): never {
    if (t.kind === 'eof') throw new JqError('parse', 'unexpected EOF', t.pos);
    const shown = t.kind === 'str_start' || t.kind === 'str_end' ? '"' : t.kind === 'field' ? `.${t.text}` : t.kind === 'var' ? `$${t.text}` : t.text;
    throw new JqError('parse', `unexpected token ${JSON.stringify(shown)}`, t.pos);
  }
  private expectPunct(text: string): Token {
    if (!this.isPunct(text)) this.fail();
    return this.next();
  }
  private expectKeyword(text: string): Token {
    if (!this.isKeyword(text)) this.fail();
    return this.next();
  }

  parseProgram(): Node {
    // an empty program is the identity (jq)
    if (this.peek().kind === 'eof') return { t: 'identity', pos: 0 };
    const n = this.parsePipe();
    if (this.peek().kind !== 'eof') this.fail();
    return n;
  }

  private parsePipe(): Node {
    if (this.isKeyword('def')) {
      const def = this.parseFuncDef();
      const rest = this.parsePipe();
      return { ...def, rest };
    }
    const left = this.parseComma();
    if (this.isPunct('|')) {
      const pos = this.next().pos;
      return { t: 'pipe', left, right: this.parsePipe(), pos };
    }
    return left;
  }

  private parseFuncDef(): Omit<Extract<Node, { t: 'funcdef' }>, 'rest'> & { rest: Node } {
    const pos = this.expectKeyword('def').pos;
    const nameTok = this.next();
    if (nameTok.kind !== 'ident' && nameTok.kind !== 'keyword') this.fail(nameTok);
    const params: string[] = [];
    if (this.isPunct('(')) {
      this.next();
      while (true) {
        const p = this.next();
        if (p.kind === 'ident') params.push(p.text);
        else if (p.kind === 'var') params.push(`$${p.text}`);
        else this.fail(p);
        if (this.isPunct(';')) {
          this.next();
          continue;
        }
        this.expectPunct(')');
        break;
      }
    }
    this.expectPunct(':');
    let body = this.parsePipe();
    this.expectPunct(';');
    // `def f($a): body` is `def f(a): a as $a | body`.
    const plain: string[] = [];
    const bindings: string[] = [];
    for (const p of params) {
      if (p.startsWith('$')) {
        plain.push(p.slice(1));
        bindings.push(p.slice(1));
      } else plain.push(p);
    }
    for (let k = bindings.length - 1; k >= 0; k--) {
      const name = bindings[k];
      body = { t: 'bind', source: { t: 'call', name, args: [], pos }, pattern: { t: 'pvar', name }, body, pos };
    }
    return { t: 'funcdef', name: nameTok.text, params: plain, body, pos, rest: { t: 'identity', pos } };
  }

  private parseComma(): Node {
    let left = this.parseAlt();
    while (this.isPunct(',')) {
      const pos = this.next().pos;
      left = { t: 'comma', left, right: this.parseAlt(), pos };
    }
    return left;
  }

  private parseAlt(): Node {
    const left = this.parseAssign();
    if (this.isPunct('//')) {
      const pos = this.next().pos;
      return { t: 'alt', left, right: this.parseAlt(), pos };
    }
    return left;
  }

  private parseAssign(): Node {
    const left = this.parseOr();
    const t = this.peek();
    if (t.kind === 'punct' && ASSIGN_OPS.has(t.text)) {
      this.next();
      // Assignment binds tighter than `//`: `.a = .b // 1` is `(.a = .b) // 1` in jq and gojq.
      const right = this.parseOr();
      return { t: 'assign', op: t.text as AssignOp, left, right, pos: t.pos };
    }
    return left;
  }

  private parseOr(): Node {
    let left = this.parseAnd();
    while (this.isKeyword('or')) {
      const pos = this.next().pos;
      left = { t: 'or', left, right: this.parseAnd(), pos };
    }
    return left;
  }

  private parseAnd(): Node {
    let left = this.parseCompare();
    while (this.isKeyword('and')) {
      const pos = this.next().pos;
      left = { t: 'and', left, right: this.parseCompare(), pos };
    }
    return left;
  }

  private parseCompare(): Node {
    const left = this.parseAdditive();
    const t = this.peek();
    if (t.kind === 'punct' && COMPARE_OPS.has(t.text)) {
      this.next();
      const right = this.parseAdditive();
      const u = this.peek();
      if (u.kind === 'punct' && COMPARE_OPS.has(u.text)) this.fail(u);
      return { t: 'binary', op: t.text as BinaryOp, left, right, pos: t.pos };
    }
    return left;
  }

  private parseAdditive(): Node {
    let left = this.parseMultiplicative();
    while (this.isPunct('+') || this.isPunct('-')) {
      const t = this.next();
      left = { t: 'binary', op: t.text as BinaryOp, left, right: this.parseMultiplicative(), pos: t.pos };
    }
    return left;
  }

  private parseMultiplicative(): Node {
    let left = this.parseUnary();
    while (this.isPunct('*') || this.isPunct('/') || this.isPunct('%')) {
      const t = this.next();
      left = { t: 'binary', op: t.text as BinaryOp, left, right: this.parseUnary(), pos: t.pos };
    }
    return left;
  }

  private parseUnary(): Node {
    if (this.isPunct('-')) {
      const pos = this.next().pos;
      return { t: 'neg', body: this.parseUnary(), pos };
    }
    return this.parsePostfix(true);
  }

  private parsePostfix(allowAs: boolean): Node {
    let term = this.parsePrimary();
    // true right after a suffix (`.k`, `[…]`) applied in this loop, so `X.k?` guards only the suffix while
    // `(X.k)?` (a parenthesised primary) guards everything
    let afterSuffix = false;
    while (true) {
      const t = this.peek();
      if (t.kind === 'field') {
        this.next();
        term = { t: 'field', target: term, name: t.text, pos: t.pos };
        afterSuffix = true;
      } else if (t.kind === 'punct' && t.text === '.' && this.peek(1).kind === 'str_start') {
        this.next();
        term = this.stringIndex(term, this.parseString(null), t.pos);
        afterSuffix = true;
      } else if (t.kind === 'punct' && t.text === '.' && this.isPunct('[', 1)) {
        this.next();
        term = this.parseBracketSuffix(term);
        afterSuffix = true;
      } else if (t.kind === 'punct' && t.text === '[') {
        term = this.parseBracketSuffix(term);
        afterSuffix = true;
      } else if (t.kind === 'punct' && t.text === '?') {
        this.next();
        const s = term;
        if (afterSuffix && (s.t === 'field' || s.t === 'index' || s.t === 'slice' || s.t === 'iterate') && s.target.t !== 'identity') {
          term = { ...s, opt: true };
        } else term = { t: 'try', body: term, handler: null, pos: t.pos };
        afterSuffix = false;
      } else if (allowAs && t.kind === 'keyword' && t.text === 'as') {
        this.next();
        const pattern = this.parsePattern();
        this.expectPunct('|');
        const body = this.parsePipe();
        return { t: 'bind', source: term, pattern, body, pos: t.pos };
      } else {
        return term;
      }
    }
  }

  private stringIndex(target: Node, s: Node, pos: number): Node {
    if (s.t === 'string' && s.parts.length <= 1 && s.parts.every((p) => typeof p === 'string')) {
      return { t: 'field', target, name: (s.parts[0] as string | undefined) ?? '', pos };
    }
    return { t: 'index', target, index: s, pos };
  }

  private parseBracketSuffix(target: Node): Node {
    const pos = this.expectPunct('[').pos;
    if (this.isPunct(']')) {
      this.next();
      return { t: 'iterate', target, pos };
    }
    if (this.isPunct(':')) {
      this.next();
      const to = this.parsePipe();
      this.expectPunct(']');
      return { t: 'slice', target, from: null, to, pos };
    }
    const index = this.parsePipe();
    if (this.isPunct(':')) {
      this.next();
      if (this.isPunct(']')) {
        this.next();
        return { t: 'slice', target, from: index, to: null, pos };
      }
      const to = this.parsePipe();
      this.expectPunct(']');
      return { t: 'slice', target, from: index, to, pos };
    }
    this.expectPunct(']');
    if (index.t === 'literal' && typeof index.value === 'string') return { t: 'field', target, name: index.value, pos };
    if (index.t === 'string' && index.format === null && index.parts.length <= 1 && index.parts.every((p) => typeof p === 'string')) {
      return { t: 'field', target, name: (index.parts[0] as string | undefined) ?? '', pos };
    }
    return { t: 'index', target, index, pos };
  }

  private parseString(format: string | null): Node {
    const start = this.next();
    if (start.kind !== 'str_start') this.fail(start);
    const parts: Array<string | Node> = [];
    while (true) {
      const t = this.next();
      if (t.kind === 'str_end') break;
      if (t.kind === 'str_text') parts.push(t.text);
      else if (t.kind === 'interp_start') {
        parts.push(this.parsePipe());
        const e = this.next();
        if (e.kind !== 'interp_end') this.fail(e);
      } else this.fail(t);
    }
    if (format === null && parts.every((p) => typeof p === 'string')) {
      return { t: 'literal', value: parts.join(''), pos: start.pos };
    }
    return { t: 'string', parts, format, pos: start.pos };
  }

  private parsePrimary(): Node {
    const t = this.peek();
    switch (t.kind) {
      case 'number':
        this.next();
        return { t: 'literal', value: t.num ?? Number(t.text), pos: t.pos };
      case 'str_start':
        return this.parseString(null);
      case 'format':
        this.next();
        if (this.peek().kind === 'str_start') return this.parseString(t.text);
        return { t: 'format', name: t.text, pos: t.pos };
      case 'field':
        this.next();
        return { t: 'field', target: { t: 'identity', pos: t.pos }, name: t.text, pos: t.pos };
      case 'var':
        this.next();
        if (t.text === '__loc__') return { t: 'literal', value: { file: '<top-level>', line: lineOf(this.src, t.pos) }, pos: t.pos };
        return { t: 'var', name: t.text, pos: t.pos };
      case 'keyword':
        return this.parseKeywordTerm(t);
      case 'ident':
        return this.parseCall();
      case 'punct':
        break;
      default:
        this.fail(t);
    }
    switch (t.text) {
      case '.': {
        this.next();
        const identity: Node = { t: 'identity', pos: t.pos };
        if (this.peek().kind === 'str_start') return this.stringIndex(identity, this.parseString(null), t.pos);
        return identity;
      }
      case '..':
        this.next();
        return { t: 'recurse_default', pos: t.pos };
      case '(': {
        this.next();
        const body = this.parsePipe();
        this.expectPunct(')');
        return body;
      }
      case '[': {
        this.next();
        if (this.isPunct(']')) {
          this.next();
          return { t: 'array', body: null, pos: t.pos };
        }
        const body = this.parsePipe();
        this.expectPunct(']');
        return { t: 'array', body, pos: t.pos };
      }
      case '{':
        return this.parseObject();
      default:
        this.fail(t);
    }
  }

  private parseKeywordTerm(t: Token): Node {
    switch (t.text) {
      case 'if':
        return this.parseIf();
      case 'try': {
        this.next();
        const body = this.parsePostfixNoBind();
        let handler: Node | null = null;
        if (this.isKeyword('catch')) {
          this.next();
          handler = this.parsePostfixNoBind();
        }
        return { t: 'try', body, handler, pos: t.pos };
      }
      case 'reduce': {
        this.next();
        const source = this.parsePostfix(false);
        this.expectKeyword('as');
        const pattern = this.parsePattern();
        this.expectPunct('(');
        const init = this.parsePipe();
        this.expectPunct(';');
        const update = this.parsePipe();
        this.expectPunct(')');
        return { t: 'reduce', source, pattern, init, update, pos: t.pos };
      }
      case 'foreach': {
        this.next();
        const source = this.parsePostfix(false);
        this.expectKeyword('as');
        const pattern = this.parsePattern();
        this.expectPunct('(');
        const init = this.parsePipe();
        this.expectPunct(';');
        const update = this.parsePipe();
        let extract: Node | null = null;
        if (this.isPunct(';')) {
          this.next();
          extract = this.parsePipe();
        }
        this.expectPunct(')');
        return { t: 'foreach', source, pattern, init, update, extract, pos: t.pos };
      }
      case 'label': {
        this.next();
        const v = this.next();
        if (v.kind !== 'var') this.fail(v);
        this.expectPunct('|');
        return { t: 'label', name: v.text, body: this.parsePipe(), pos: t.pos };
      }
      case 'def': {
        const def = this.parseFuncDef();
        return { ...def, rest: this.parsePipe() };
      }
      default:
        this.fail(t);
    }
  }

  /** Bodies of `try`/`catch` are postfix terms (jq gives `try` the highest precedence). */
  private parsePostfixNoBind(): Node {
    if (this.isPunct('-')) {
      const pos = this.next().pos;
      return { t: 'neg', body: this.parsePostfixNoBind(), pos };
    }
    return this.parsePostfix(false);
  }

  private parseIf(): Node {
    const pos = this.expectKeyword('if').pos;
    const cond = this.parsePipe();
    this.expectKeyword('then');
    const then = this.parsePipe();
    let otherwise: Node | null = null;
    if (this.isKeyword('elif')) {
      // `elif` is a nested `if` that shares the `end`.
      const elifPos = this.peek().pos;
      this.toks[this.i] = { kind: 'keyword', text: 'if', pos: elifPos };
      otherwise = this.parseIf();
      return { t: 'if', cond, then, else: otherwise, pos };
    }
    if (this.isKeyword('else')) {
      this.next();
      otherwise = this.parsePipe();
    }
    this.expectKeyword('end');
    return { t: 'if', cond, then, else: otherwise, pos };
  }

  private parseCall(): Node {
    const t = this.next();
    if (t.text === 'break' && this.peek().kind === 'var') {
      return { t: 'break', name: this.next().text, pos: t.pos };
    }
    if ((t.text === 'null' || t.text === 'true' || t.text === 'false') && !this.isPunct('(')) {
      return { t: 'literal', value: t.text === 'null' ? null : t.text === 'true', pos: t.pos };
    }
    const args: Node[] = [];
    if (this.isPunct('(')) {
      this.next();
      while (true) {
        args.push(this.parsePipe());
        if (this.isPunct(';')) {
          this.next();
          continue;
        }
        this.expectPunct(')');
        break;
      }
    }
    return { t: 'call', name: t.text, args, pos: t.pos };
  }

  private parseObject(): Node {
    const pos = this.expectPunct('{').pos;
    const entries: ObjectEntry[] = [];
    if (this.isPunct('}')) {
      this.next();
      return { t: 'object', entries, pos };
    }
    while (true) {
      const t = this.peek();
      let entry: ObjectEntry;
      if (t.kind === 'var') {
        this.next();
        entry = { key: t.text, value: null, varName: t.text };
        if (t.text === '__loc__') entry = { key: '__loc__', value: { t: 'literal', value: { file: '<top-level>', line: lineOf(this.src, t.pos) }, pos: t.pos } };
      } else if (t.kind === 'ident' || t.kind === 'keyword') {
        this.next();
        entry = { key: t.text, value: null };
      } else if (t.kind === 'number') {
        this.next();
        entry = { key: { t: 'literal', value: t.num ?? 0, pos: t.pos }, value: null };
      } else if (t.kind === 'str_start' || t.kind === 'format') {
        let s: Node;
        if (t.kind === 'format') {
          this.next();
          s = this.parseString(t.text);
        } else s = this.parseString(null);
        entry = { key: s.t === 'literal' && typeof s.value === 'string' ? s.value : s, value: null };
      } else if (t.kind === 'punct' && t.text === '(') {
        this.next();
        const key = this.parsePipe();
        this.expectPunct(')');
        if (!this.isPunct(':')) this.fail();
        entry = { key, value: null };
      } else {
        this.fail(t);
      }
      if (this.isPunct(':')) {
        this.next();
        entry = { key: entry.key, value: this.parseObjectValue() };
      } else if (entry.key !== null && typeof entry.key !== 'string' && entry.key.t === 'literal') {
        // a bare number key `{1}` is not valid jq
        this.fail();
      }
      entries.push(entry);
      if (this.isPunct(',')) {
        this.next();
        if (this.isPunct('}')) {
          this.next();
          break;
        }
        continue;
      }
      this.expectPunct('}');
      break;
    }
    return { t: 'object', entries, pos };
  }

  /**
   * Object values are jq's `ExpD`: terms (optionally negated) joined by `|`; anything else needs parentheses
   * (`{a: 1 + 2}` is a syntax error in jq and gojq).
   */
  private parseObjectValue(): Node {
    let v = this.parsePostfixNoBind();
    while (this.isPunct('|')) {
      const pos = this.next().pos;
      v = { t: 'pipe', left: v, right: this.parsePostfixNoBind(), pos };
    }
    return v;
  }

  private parsePattern(): Pattern {
    const t = this.next();
    if (t.kind === 'var') return { t: 'pvar', name: t.text };
    if (t.kind === 'punct' && t.text === '[') {
      const items: Pattern[] = [];
      if (this.isPunct(']')) this.fail();
      while (true) {
        items.push(this.parsePattern());
        if (this.isPunct(',')) {
          this.next();
          continue;
        }
        this.expectPunct(']');
        break;
      }
      return { t: 'parray', items };
    }
    if (t.kind === 'punct' && t.text === '{') {
      const entries: Array<{ key: Node; keyVar?: string; value: Pattern | null }> = [];
      while (true) {
        const k = this.next();
        if (k.kind === 'var') {
          const value = this.isPunct(':') ? (this.next(), this.parsePattern()) : null;
          entries.push({ key: { t: 'literal', value: k.text, pos: k.pos }, keyVar: k.text, value });
        } else {
          let key: Node;
          if (k.kind === 'ident' || k.kind === 'keyword') key = { t: 'literal', value: k.text, pos: k.pos };
          else if (k.kind === 'str_start') {
            this.i--;
            key = this.parseString(null);
          } else if (k.kind === 'punct' && k.text === '(') {
            key = this.parsePipe();
            this.expectPunct(')');
          } else this.fail(k);
          this.expectPunct(':');
          entries.push({ key, value: this.parsePattern() });
        }
        if (this.isPunct(',')) {
          this.next();
          continue;
        }
        this.expectPunct('}');
        break;
      }
      return { t: 'pobject', entries };
    }
    this.fail(t);
  }
}

export function parse(source: string): Node {
  return new Parser(tokenize(source), source).parseProgram();
}
