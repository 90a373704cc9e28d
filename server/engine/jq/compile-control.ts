/** Compilation of control flow: `if`, `try … catch` and `?`, `label $l | …` and `break $l`. */
import type { NodeOf } from './ast.ts';
import { JqRuntimeError } from './errors.ts';
import { BreakSignal, fromGen, fromOne, invalidPath, walkEnv } from './runtime.ts';
import type { Path } from './path-ops.ts';
import type { Compiled, Emit, Env, Gen, PathEmit, PathGen } from './types.ts';
import type { JqValue } from './values.ts';
import { truthy } from './values.ts';
import type { Compiler } from './compile.ts';
import { IDENTITY } from './compile-paths.ts';
import type { Scope } from './scope.ts';
import { compileError, depthOf, extend } from './scope.ts';

export function compileIf(c: Compiler, node: NodeOf<'if'>, scope: Scope | null): Compiled {
  const cond = c.compile(node.cond, scope);
  const t = c.compile(node.then, scope);
  const e = node.else ? c.compile(node.else, scope) : IDENTITY;
  const path = (): PathGen => {
    const tp = t.path();
    const ep = e.path();
    return (x, p, env, emit) => cond.gen(x, env, (v) => (truthy(v) ? tp : ep)(x, p, env, emit));
  };
  if (cond.one && t.one && e.one) {
    const co = cond.one;
    const to = t.one;
    const eo = e.one;
    return fromOne((x, env) => (truthy(co(x, env)) ? to(x, env) : eo(x, env)), path);
  }
  if (cond.one) {
    const co = cond.one;
    return fromGen((x, env, emit) => (truthy(co(x, env)) ? t : e).gen(x, env, emit), path);
  }
  return fromGen((x, env, emit) => cond.gen(x, env, (v) => (truthy(v) ? t : e).gen(x, env, emit)), path);
}

/**
 * Runs `body` with `emit`, telling errors raised by the body apart from errors raised downstream of it. Value
 * mode and path mode each have their own copy: one generic version needs a closure per run, which made `try`
 * about a third slower.
 */
function guarded(body: Gen, x: JqValue, env: Env | null, emit: Emit, onError: (e: JqRuntimeError) => void): void {
  let downstream = false;
  try {
    body(x, env, (v) => {
      try {
        emit(v);
      } catch (e) {
        downstream = true;
        throw e;
      }
    });
  } catch (e) {
    if (downstream || !(e instanceof JqRuntimeError)) throw e;
    onError(e);
  }
}

function guardedPath(body: PathGen, x: JqValue, p: Path, env: Env | null, emit: PathEmit, onError: (e: JqRuntimeError) => void): void {
  let downstream = false;
  try {
    body(x, p, env, (v, q) => {
      try {
        emit(v, q);
      } catch (e) {
        downstream = true;
        throw e;
      }
    });
  } catch (e) {
    if (downstream || !(e instanceof JqRuntimeError)) throw e;
    onError(e);
  }
}

export function compileTry(c: Compiler, node: NodeOf<'try'>, scope: Scope | null): Compiled {
  const body = c.compile(node.body, scope);
  const handler = node.handler ? c.compile(node.handler, scope) : null;
  let gen: Gen;
  if (body.one) {
    const one = body.one;
    gen = (x, env, emit) => {
      let v: JqValue;
      try {
        v = one(x, env);
      } catch (e) {
        if (!(e instanceof JqRuntimeError)) throw e;
        if (handler) handler.gen(e.value, env, emit);
        return;
      }
      emit(v);
    };
  } else {
    const bgen = body.gen;
    gen = (x, env, emit) =>
      guarded(bgen, x, env, emit, (e) => {
        if (handler) handler.gen(e.value, env, emit);
      });
  }
  return fromGen(gen, () => {
    const bp = body.path();
    return (x, p, env, emit) =>
      guardedPath(bp, x, p, env, emit, (e) => {
        if (handler) handler.gen(e.value, env, invalidPath);
      });
  });
}

export function compileLabel(c: Compiler, node: NodeOf<'label'>, scope: Scope | null): Compiled {
  const body = c.compile(node.body, extend(scope, { kind: 'label', name: node.name }));
  // Each invocation has its own break token, so a `break` reaches only the label instance that is running.
  const catchBreak = (e: unknown, token: object): void => {
    if (!(e instanceof BreakSignal) || e.token !== token) throw e;
  };
  return fromGen(
    (x, env, emit) => {
      const token = {};
      try {
        body.gen(x, { v: token as JqValue, c: null, up: env }, emit);
      } catch (e) {
        catchBreak(e, token);
      }
    },
    () => {
      const bp = body.path();
      return (x, p, env, emit) => {
        const token = {};
        try {
          bp(x, p, { v: token as JqValue, c: null, up: env }, emit);
        } catch (e) {
          catchBreak(e, token);
        }
      };
    },
  );
}

export function compileBreak(_c: Compiler, node: NodeOf<'break'>, scope: Scope | null): Compiled {
  const d = depthOf(scope, 'label', node.name);
  if (d < 0) return compileError(`label not defined: $${node.name}`, node.pos);
  const raise = (env: Env | null): never => {
    throw new BreakSignal(walkEnv(env, d).v as object);
  };
  return fromGen(
    (_x, env) => raise(env),
    () => (_x, _p, env) => raise(env),
  );
}
