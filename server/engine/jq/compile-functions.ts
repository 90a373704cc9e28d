/** Compilation of function definitions and calls: user functions, closure parameters and builtins. */
import type { NodeOf } from './ast.ts';
import { lookupBuiltin } from './builtins.ts';
import { enter, leave } from './budget.ts';
import { fromGen, fromOne, tick, walkEnv } from './runtime.ts';
import type { Compiled, Env, PathGen } from './types.ts';
import type { Compiler } from './compile.ts';
import type { FuncInfo, Scope } from './scope.ts';
import { compileError, extend } from './scope.ts';

export function compileFuncDef(c: Compiler, node: NodeOf<'funcdef'>, scope: Scope | null): Compiled {
  const info: FuncInfo = { name: node.name, params: node.params, compiled: null };
  const defScope = extend(scope, { kind: 'func', name: node.name, arity: node.params.length, info });
  let bodyScope: Scope = defScope;
  for (const p of node.params) bodyScope = extend(bodyScope, { kind: 'param', name: p });
  info.compiled = c.compile(node.body, bodyScope);
  const rest = c.compile(node.rest, defScope);
  // the definition's frame: calls find the function a fixed number of hops up from here
  const frame = (env: Env | null): Env => ({ v: null, c: null, up: env });
  const path = (): PathGen => {
    const rp = rest.path();
    return (x, p, env, emit) => rp(x, p, frame(env), emit);
  };
  if (rest.one) {
    const ro = rest.one;
    return fromOne((x, env) => ro(x, frame(env)), path);
  }
  return fromGen((x, env, emit) => rest.gen(x, frame(env), emit), path);
}

export function compileCall(c: Compiler, node: NodeOf<'call'>, scope: Scope | null): Compiled {
  const arity = node.args.length;
  let depth = 0;
  for (let s = scope; s; s = s.up, depth++) {
    const e = s.e;
    if (e.kind === 'param' && e.name === node.name && arity === 0) {
      const d = depth;
      return fromGen(
        (x, _env, emit) => {
          const c = walkEnv(_env, d).c!;
          c.fn.gen(x, c.env, emit);
        },
        () => (x, p, env, emit) => {
          const c = walkEnv(env, d).c!;
          c.fn.path()(x, p, c.env, emit);
        },
      );
    }
    if (e.kind === 'func' && e.name === node.name && e.arity === arity) {
      const d = depth;
      const info = e.info;
      const args = node.args.map((a) => c.compile(a, scope));
      const bodyEnv = (env: Env | null): Env => {
        let be = walkEnv(env, d);
        for (const a of args) be = { v: null, c: { fn: a, env }, up: be };
        return be;
      };
      // A step per call, and a level of the depth budget while the body runs (its outputs are consumed inside
      // the call, so this is the nesting of the JavaScript stack too).
      return fromGen(
        (x, env, emit) => {
          tick();
          enter();
          try {
            info.compiled!.gen(x, bodyEnv(env), emit);
          } finally {
            leave();
          }
        },
        () => (x, p, env, emit) => {
          tick();
          enter();
          try {
            info.compiled!.path()(x, p, bodyEnv(env), emit);
          } finally {
            leave();
          }
        },
      );
    }
  }
  const builtin = lookupBuiltin(node.name, arity);
  if (!builtin) {
    return compileError(`function not defined: ${node.name}/${arity}`, node.pos);
  }
  const args = node.args.map((a) => c.compile(a, scope));
  return builtin(args);
}
