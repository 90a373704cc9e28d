/** The token stream under the parser: look-ahead, consumption, lists, and gojq-style "unexpected token" errors. */
import type { Node } from './ast.ts';
import { JqError } from './errors.ts';
import type { Token } from './lexer.ts';

/** 1-based line of a source offset (for `$__loc__`). */
function lineOf(src: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos; i++) if (src.charCodeAt(i) === 10) line++;
  return line;
}

/** Deepest nesting of an expression (its syntax tree's depth), and the longest source text accepted. */
export const MAX_NESTING = 256;
export const MAX_SOURCE_LENGTH = 64 * 1024;

export function nestingError(pos: number): never {
  throw new JqError('parse', `expression nests deeper than ${MAX_NESTING} levels`, pos);
}

export class TokenCursor {
  private i = 0;
  /**
   * Recursion units of the parser itself (a parenthesised level takes two: the program and the term in it),
   * bounded so that a poison pill like 3,000 nested parentheses is a parse error, never a stack overflow.
   */
  private depth = 0;
  constructor(
    private readonly toks: Token[],
    private readonly src: string,
  ) {}

  /** The token `offset` places ahead; the last token (eof) repeats past the end. */
  peek(offset = 0): Token {
    return this.toks[Math.min(this.i + offset, this.toks.length - 1)];
  }
  next(): Token {
    const t = this.toks[this.i];
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }
  isPunct(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'punct' && t.text === text;
  }
  isKeyword(text: string): boolean {
    const t = this.peek();
    return t.kind === 'keyword' && t.text === text;
  }
  /** Enters a recursive rule; pair with `ascend()` on the way out (an error ends parsing anyway). */
  descend(): void {
    if (++this.depth > 2 * MAX_NESTING) nestingError(this.peek().pos);
  }
  ascend(): void {
    this.depth--;
  }
  /** Consumes the punctuation `text` when it comes next. */
  accept(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.next();
    return true;
  }
  fail(t: Token = this.peek()): never {
    if (t.kind === 'eof') throw new JqError('parse', 'unexpected EOF', t.pos);
    const shown = t.kind === 'str_start' || t.kind === 'str_end' ? '"' : t.kind === 'field' ? `.${t.text}` : t.kind === 'var' ? `$${t.text}` : t.text;
    throw new JqError('parse', `unexpected token ${JSON.stringify(shown)}`, t.pos);
  }
  expectPunct(text: string): Token {
    if (!this.isPunct(text)) this.fail();
    return this.next();
  }
  expectKeyword(text: string): Token {
    if (!this.isKeyword(text)) this.fail();
    return this.next();
  }

  /** One or more items separated by `sep`, then the closing `close` (parameters, arguments, patterns). */
  list<T>(sep: string, close: string, item: () => T): T[] {
    const items: T[] = [];
    do items.push(item());
    while (this.accept(sep));
    this.expectPunct(close);
    return items;
  }

  /** `$__loc__` at token `t`: a constant, since programs are compiled once per source text. */
  location(t: Token): Node {
    return { t: 'literal', value: { file: '<top-level>', line: lineOf(this.src, t.pos) }, pos: t.pos };
  }
}
