/**
 * AST → closures. The Compiler dispatches each node to the function of its concern: paths (`compile-paths.ts`),
 * value constructors (`compile-constructors.ts`), pipes and operators (`compile-operators.ts`), control flow
 * (`compile-control.ts`), reduce/foreach (`compile-reductions.ts`), variables and patterns
 * (`compile-bindings.ts`), function definitions and calls (`compile-functions.ts`). Those take the Compiler to
 * compile their sub-expressions, so that none of them imports another's dispatch.
 */
import type { Node, NodeOf } from './ast.ts';
import type { Compiled } from './types.ts';
import { compileBind, compileVar } from './compile-bindings.ts';
import { compileArray, compileFormat, compileLiteral, compileObject, compileString } from './compile-constructors.ts';
import { compileBreak, compileIf, compileLabel, compileTry } from './compile-control.ts';
import { compileCall, compileFuncDef } from './compile-functions.ts';
import { compileAlt, compileAssign, compileBinary, compileComma, compileLogic, compileNeg, compilePipe } from './compile-operators.ts';
import { compileSuffix, IDENTITY } from './compile-paths.ts';
import { compileForeach, compileReduce } from './compile-reductions.ts';
import type { Scope } from './scope.ts';

type NodeCompiler<T extends Node['t']> = (c: Compiler, node: NodeOf<T>, scope: Scope | null) => Compiled;

/** One entry per node type (the mapped type makes a missing one a type error). */
const COMPILERS: { [T in Node['t']]: NodeCompiler<T> } = {
  identity: () => IDENTITY,
  recurse_default: (c, node, scope) => compileCall(c, { t: 'call', name: 'recurse', args: [], pos: node.pos }, scope),
  field: compileSuffix,
  index: compileSuffix,
  slice: compileSuffix,
  iterate: compileSuffix,
  try: compileTry,
  literal: compileLiteral,
  string: compileString,
  format: compileFormat,
  array: compileArray,
  object: compileObject,
  neg: compileNeg,
  pipe: compilePipe,
  comma: compileComma,
  binary: compileBinary,
  and: compileLogic,
  or: compileLogic,
  alt: compileAlt,
  assign: compileAssign,
  if: compileIf,
  reduce: compileReduce,
  foreach: compileForeach,
  bind: compileBind,
  funcdef: compileFuncDef,
  call: compileCall,
  var: compileVar,
  label: compileLabel,
  break: compileBreak,
};

export class Compiler {
  compile(node: Node, scope: Scope | null): Compiled {
    return (COMPILERS[node.t] as NodeCompiler<Node['t']>)(this, node, scope);
  }
}
