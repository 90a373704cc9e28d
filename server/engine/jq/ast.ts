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
