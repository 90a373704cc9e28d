/**
 * Recursive-descent parser with gojq's precedence, lowest first:
 * `|` (right) < `,` < `//` (right) < `= |= += …` (non-assoc) < `or` < `and` < comparisons (non-assoc) < `+ -` < `* / %`
 * < unary minus < postfix (`.a`, `[…]`, `?`, `as $x | …`).
 *
 * This file holds the entry point and the binary operators; postfix suffixes (`parser-postfix.ts`), terms
 * (`parser-terms.ts`), keyword constructs (`parser-keywords.ts`), object construction (`parser-object.ts`),
 * destructuring patterns (`parser-patterns.ts`) and string interpolation (`parser-strings.ts`) are parsed by
 * functions that take the Parser and call back into it for nested expressions, as the compiler does.
 */
import type { AssignOp, BinaryOp, Node } from './ast.ts';
import { deepestNode } from './ast.ts';
import { JqError } from './errors.ts';
import { tokenize } from './lexer.ts';
import { parseFuncDef } from './parser-keywords.ts';
import { MAX_NESTING, MAX_SOURCE_LENGTH, nestingError, TokenCursor } from './parser-cursor.ts';
import { parsePostfix } from './parser-postfix.ts';

interface Level {
  /** operator texts: punctuation, or the keywords `and` / `or` */
  ops: ReadonlySet<string>;
  /** `none`: a second operator of the same level right after the first one is a syntax error */
  assoc: 'left' | 'right' | 'none';
  node: (op: string, left: Node, right: Node, pos: number) => Node;
}

const binary = (op: string, left: Node, right: Node, pos: number): Node => ({ t: 'binary', op: op as BinaryOp, left, right, pos });

/** The levels between `|` and unary minus, loosest first. */
const LEVELS: Level[] = [
  { ops: new Set([',']), assoc: 'left', node: (_op, left, right, pos) => ({ t: 'comma', left, right, pos }) },
  { ops: new Set(['//']), assoc: 'right', node: (_op, left, right, pos) => ({ t: 'alt', left, right, pos }) },
  // Assignment binds tighter than `//`: `.a = .b // 1` is `(.a = .b) // 1` in jq and gojq.
  {
    ops: new Set(['=', '|=', '+=', '-=', '*=', '/=', '%=', '//=']),
    assoc: 'none',
    node: (op, left, right, pos) => ({ t: 'assign', op: op as AssignOp, left, right, pos }),
  },
  { ops: new Set(['or']), assoc: 'left', node: (_op, left, right, pos) => ({ t: 'or', left, right, pos }) },
  { ops: new Set(['and']), assoc: 'left', node: (_op, left, right, pos) => ({ t: 'and', left, right, pos }) },
  { ops: new Set(['==', '!=', '<', '<=', '>', '>=']), assoc: 'none', node: binary },
  { ops: new Set(['+', '-']), assoc: 'left', node: binary },
  { ops: new Set(['*', '/', '%']), assoc: 'left', node: binary },
];

/** Operator text → its index in LEVELS. */
const LEVEL_OF = new Map<string, number>(LEVELS.flatMap((l, i) => [...l.ops].map((op) => [op, i] as [string, number])));

export class Parser extends TokenCursor {
  parseProgram(): Node {
    // an empty program is the identity (jq)
    if (this.peek().kind === 'eof') return { t: 'identity', pos: 0 };
    const n = this.parsePipe();
    if (this.peek().kind !== 'eof') this.fail();
    return n;
  }

  parsePipe(): Node {
    this.descend();
    const n = this.parsePipeBody();
    this.ascend();
    return n;
  }

  private parsePipeBody(): Node {
    if (this.isKeyword('def')) {
      const def = parseFuncDef(this);
      return { ...def, rest: this.parsePipe() };
    }
    const left = this.parseLevel(0);
    if (this.isPunct('|')) {
      const pos = this.next().pos;
      return { t: 'pipe', left, right: this.parsePipe(), pos };
    }
    return left;
  }

  /**
   * Precedence climbing: an expression whose binary operators are all of level `min` or tighter. One
   * look-up per operator (LEVEL_OF) rather than one descent and test per level for every term.
   */
  private parseLevel(min: number): Node {
    let left = this.parseUnary(true);
    for (;;) {
      const k = this.operatorLevel();
      if (k < min) return left;
      const level = LEVELS[k];
      const t = this.next();
      // A right-associative operator takes the rest of its own level as its right operand.
      left = level.node(t.text, left, this.parseLevel(level.assoc === 'right' ? k : k + 1), t.pos);
      // Non-associative: `a == b == c` is a syntax error, as in jq.
      if (level.assoc === 'none' && this.operatorLevel() === k) this.fail();
    }
  }

  /** The LEVELS index of the binary operator next, or -1 when none comes. */
  private operatorLevel(): number {
    const t = this.peek();
    if (t.kind !== 'punct' && t.kind !== 'keyword') return -1;
    return LEVEL_OF.get(t.text) ?? -1;
  }

  /**
   * Unary minus over a postfix term. `allowAs` is false where jq wants a plain term: bodies of `try`/`catch`
   * (jq gives `try` the highest precedence) and object values, where `X as $x | …` cannot start.
   */
  parseUnary(allowAs: boolean): Node {
    if (this.isPunct('-')) {
      const pos = this.next().pos;
      this.descend();
      const body = this.parseUnary(allowAs);
      this.ascend();
      return { t: 'neg', body, pos };
    }
    return this.parsePostfix(allowAs);
  }

  parsePostfix(allowAs: boolean): Node {
    this.descend();
    const n = parsePostfix(this, allowAs);
    this.ascend();
    return n;
  }
}

/**
 * Source text → syntax tree. Untrusted input is bounded: at most MAX_SOURCE_LENGTH characters, and a tree at
 * most MAX_NESTING deep (checked without recursion), so that compiling and evaluating cannot exhaust the stack.
 */
export function parse(source: string): Node {
  if (source.length > MAX_SOURCE_LENGTH) throw new JqError('parse', `expression is longer than ${MAX_SOURCE_LENGTH} characters`, MAX_SOURCE_LENGTH);
  const ast = new Parser(tokenize(source), source).parseProgram();
  const deepest = deepestNode(ast);
  if (deepest.depth > MAX_NESTING) nestingError(deepest.node.pos);
  return ast;
}
