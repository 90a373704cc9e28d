import type { JqValue } from './values.ts';

/** Every node carries the source offset it starts at, for error messages. */
interface Base {
  pos: number;
}

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=';
export type AssignOp = '=' | '|=' | '+=' | '-=' | '*=' | '/=' | '%=' | '//=';

export type Pattern =
  | { t: 'pvar'; name: string }
  | { t: 'parray'; items: Pattern[] }
  | { t: 'pobject'; entries: Array<{ key: Node; keyVar?: string; value: Pattern | null }> };

export interface ObjectEntry {
  /** constant key, or an expression producing the key */
  key: string | Node;
  /** null: `{a}` / `{"a"}` / `{$x}` shorthand; the compiler fills in the value */
  value: Node | null;
  /** `{$x}`: the variable to read */
  varName?: string;
}

export type Node = Base &
  (
    | { t: 'identity' }
    | { t: 'recurse_default' }
    // `opt`: a `?` right after this suffix guards the indexing step only, not the target (`.a.b?` is
    // `.a | .b?` in jq and gojq: an error from `.a` still propagates)
    | { t: 'field'; target: Node; name: string; opt?: true }
    | { t: 'index'; target: Node; index: Node; opt?: true }
    | { t: 'slice'; target: Node; from: Node | null; to: Node | null; opt?: true }
    | { t: 'iterate'; target: Node; opt?: true }
    | { t: 'try'; body: Node; handler: Node | null }
    | { t: 'literal'; value: JqValue }
    | { t: 'string'; parts: Array<string | Node>; format: string | null }
    | { t: 'format'; name: string }
    | { t: 'array'; body: Node | null }
    | { t: 'object'; entries: ObjectEntry[] }
    | { t: 'neg'; body: Node }
    | { t: 'pipe'; left: Node; right: Node }
    | { t: 'comma'; left: Node; right: Node }
    | { t: 'binary'; op: BinaryOp; left: Node; right: Node }
    | { t: 'and'; left: Node; right: Node }
    | { t: 'or'; left: Node; right: Node }
    | { t: 'alt'; left: Node; right: Node }
    | { t: 'assign'; op: AssignOp; left: Node; right: Node }
    | { t: 'if'; cond: Node; then: Node; else: Node | null }
    | { t: 'reduce'; source: Node; pattern: Pattern; init: Node; update: Node }
    | { t: 'foreach'; source: Node; pattern: Pattern; init: Node; update: Node; extract: Node | null }
    | { t: 'bind'; source: Node; pattern: Pattern; body: Node }
    | { t: 'funcdef'; name: string; params: string[]; body: Node; rest: Node }
    | { t: 'call'; name: string; args: Node[] }
    | { t: 'var'; name: string }
    | { t: 'label'; name: string; body: Node }
    | { t: 'break'; name: string }
  );

export type NodeOf<T extends Node['t']> = Extract<Node, { t: T }>;

/** Every expression directly below a node, so that the walk misses no position (upstream pitfall P-08). */
export function childNodes(n: Node): Node[] {
  switch (n.t) {
    case 'identity':
    case 'recurse_default':
    case 'literal':
    case 'format':
    case 'var':
    case 'break':
      return [];
    case 'field':
    case 'iterate':
      return [n.target];
    case 'index':
      return [n.target, n.index];
    case 'slice':
      return [n.target, ...(n.from ? [n.from] : []), ...(n.to ? [n.to] : [])];
    case 'try':
      return [n.body, ...(n.handler ? [n.handler] : [])];
    case 'string':
      return n.parts.filter((p): p is Node => typeof p !== 'string');
    case 'array':
      return n.body ? [n.body] : [];
    case 'object':
      return n.entries.flatMap((e) => [...(typeof e.key === 'string' ? [] : [e.key]), ...(e.value ? [e.value] : [])]);
    case 'neg':
      return [n.body];
    case 'pipe':
    case 'comma':
    case 'binary':
    case 'and':
    case 'or':
    case 'alt':
    case 'assign':
      return [n.left, n.right];
    case 'if':
      return [n.cond, n.then, ...(n.else ? [n.else] : [])];
    case 'reduce':
      return [n.source, ...patternNodes(n.pattern), n.init, n.update];
    case 'foreach':
      return [n.source, ...patternNodes(n.pattern), n.init, n.update, ...(n.extract ? [n.extract] : [])];
    case 'bind':
      return [n.source, ...patternNodes(n.pattern), n.body];
    case 'funcdef':
      return [n.body, n.rest];
    case 'call':
      return n.args;
    case 'label':
      return [n.body];
  }
}

function patternNodes(p: Pattern): Node[] {
  if (p.t === 'pvar') return [];
  if (p.t === 'parray') return p.items.flatMap(patternNodes);
  return p.entries.flatMap((e) => [e.key, ...(e.value ? patternNodes(e.value) : [])]);
}

/** The depth of the tree below `n` (1 for a leaf) and its deepest node, computed without recursion. */
export function deepestNode(n: Node): { depth: number; node: Node } {
  let best = { depth: 0, node: n };
  const stack: Array<[Node, number]> = [[n, 1]];
  while (stack.length > 0) {
    const [m, d] = stack.pop()!;
    if (d > best.depth) best = { depth: d, node: m };
    for (const c of childNodes(m)) stack.push([c, d + 1]);
  }
  return best;
}
