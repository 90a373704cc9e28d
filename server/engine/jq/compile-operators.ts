/** Compilation of pipes and operators: `|`, `,`, unary minus, arithmetic and comparisons, `and`/`or`, `//`, assignments. */
import type { NodeOf } from './ast.ts';
import { BINARY, negate } from './ops.ts';
import { arithmeticUpdateGen, assignGen, fromGen, fromOne, modifyGen, tick } from './runtime.ts';
import type { Compiled, PathGen } from './types.ts';
import { truthy } from './values.ts';
import type { Compiler } from './compile.ts';
import type { Scope } from './scope.ts';

/** Path mode joined from both operands' path modes, which are compiled when it is first needed. */
function joinPaths(l: Compiled, r: Compiled, join: (lp: PathGen, rp: PathGen) => PathGen): () => PathGen {
  return () => join(l.path(), r.path());
}

export function compilePipe(c: Compiler, node: NodeOf<'pipe'>, scope: Scope | null): Compiled {
  const l = c.compile(node.left, scope);
  const r = c.compile(node.right, scope);
  const path = joinPaths(l, r, (lp, rp) => (x, p, env, emit) => lp(x, p, env, (v, q) => rp(v, q, env, emit)));
  if (l.one && r.one) {
    const lo = l.one;
    const ro = r.one;
    return fromOne((x, env) => ro(lo(x, env), env), path);
  }
  if (l.one) {
    const lo = l.one;
    const rg = r.gen;
    return fromGen((x, env, emit) => rg(lo(x, env), env, emit), path);
  }
  const lg = l.gen;
  if (r.one) {
    const ro = r.one;
    return fromGen((x, env, emit) => lg(x, env, (v) => emit(ro(v, env))), path);
  }
  const rg = r.gen;
  return fromGen((x, env, emit) => lg(x, env, (v) => rg(v, env, emit)), path);
}

export function compileComma(c: Compiler, node: NodeOf<'comma'>, scope: Scope | null): Compiled {
  const l = c.compile(node.left, scope);
  const r = c.compile(node.right, scope);
  // A step per use: generators multiply work only through nodes with several outputs (this one, iteration,
  // loops, recursion), which all charge, so `(1,1) | (1,1) | … | empty` is charged for every branch it takes.
  return fromGen(
    (x, env, emit) => {
      tick();
      l.gen(x, env, emit);
      r.gen(x, env, emit);
    },
    joinPaths(l, r, (lp, rp) => (x, p, env, emit) => {
      tick();
      lp(x, p, env, emit);
      rp(x, p, env, emit);
    }),
  );
}

export function compileNeg(c: Compiler, node: NodeOf<'neg'>, scope: Scope | null): Compiled {
  const b = c.compile(node.body, scope);
  if (b.one) {
    const one = b.one;
    return fromOne((x, env) => negate(one(x, env)));
  }
  return fromGen((x, env, emit) => b.gen(x, env, (v) => emit(negate(v))));
}

export function compileBinary(c: Compiler, node: NodeOf<'binary'>, scope: Scope | null): Compiled {
  const op = BINARY[node.op];
  const l = c.compile(node.left, scope);
  const r = c.compile(node.right, scope);
  if (l.one && r.one) {
    const lo = l.one;
    const ro = r.one;
    // Evaluate right first: with generators the right operand is the outer loop, and errors follow that order.
    return fromOne((x, env) => {
      const b = ro(x, env);
      return op(lo(x, env), b);
    });
  }
  return fromGen((x, env, emit) => r.gen(x, env, (b) => l.gen(x, env, (a) => emit(op(a, b)))));
}

export function compileLogic(c: Compiler, node: NodeOf<'and' | 'or'>, scope: Scope | null): Compiled {
  const l = c.compile(node.left, scope);
  const r = c.compile(node.right, scope);
  const isAnd = node.t === 'and';
  if (l.one && r.one) {
    const lo = l.one;
    const ro = r.one;
    return isAnd
      ? fromOne((x, env) => truthy(lo(x, env)) && truthy(ro(x, env)))
      : fromOne((x, env) => truthy(lo(x, env)) || truthy(ro(x, env)));
  }
  return fromGen((x, env, emit) =>
    l.gen(x, env, (a) => {
      if (isAnd ? !truthy(a) : truthy(a)) emit(!isAnd);
      else r.gen(x, env, (b) => emit(truthy(b)));
    }),
  );
}

export function compileAlt(c: Compiler, node: NodeOf<'alt'>, scope: Scope | null): Compiled {
  const l = c.compile(node.left, scope);
  const r = c.compile(node.right, scope);
  const path = joinPaths(l, r, (lp, rp) => (x, p, env, emit) => {
    let any = false;
    lp(x, p, env, (v, q) => {
      if (truthy(v)) {
        any = true;
        emit(v, q);
      }
    });
    if (!any) rp(x, p, env, emit);
  });
  // Errors raised by the left side are not swallowed (gojq, reference §2.2 / P-02).
  if (l.one && r.one) {
    const lo = l.one;
    const ro = r.one;
    return fromOne((x, env) => {
      const v = lo(x, env);
      return v !== null && v !== false ? v : ro(x, env);
    }, path);
  }
  return fromGen((x, env, emit) => {
    let any = false;
    l.gen(x, env, (v) => {
      if (v !== null && v !== false) {
        any = true;
        emit(v);
      }
    });
    if (!any) r.gen(x, env, emit);
  }, path);
}

export function compileAssign(c: Compiler, node: NodeOf<'assign'>, scope: Scope | null): Compiled {
  const l = c.compile(node.left, scope);
  const r = c.compile(node.right, scope);
  switch (node.op) {
    case '=':
      return fromGen(assignGen(l, r));
    case '|=':
      return fromGen(modifyGen(l, r));
    case '//=':
      return fromGen(arithmeticUpdateGen(l, r, (a, b) => (truthy(a) ? a : b)));
    default:
      return fromGen(arithmeticUpdateGen(l, r, BINARY[node.op.slice(0, 1)]));
  }
}
