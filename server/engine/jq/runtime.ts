import { alloc, SLOT, tick } from './budget.ts';
import { fail, typeErrorPreview } from './errors.ts';
import type { Path } from './path-ops.ts';
import { delPaths, getPath, setPath } from './path-ops.ts';
import type { Compiled, Emit, Env, Gen, One, PathGen } from './types.ts';
import type { JqValue } from './values.ts';

/**
 * Per-run state besides the budgets (budget.ts). Evaluation is synchronous and never re-entered, so one
 * module-level record is enough.
 */
export const rt = {
  vars: Object.create(null) as Record<string, JqValue>,
};

export { tick };

/** Thrown by `break $label`; caught by the label whose invocation created the token. */
export class BreakSignal {
  constructor(readonly token: object) {}
}

/** Thrown by an emit callback to stop a generator early (first, limit, any, all); identity-compared. */
export class StopSignal {}

export function walkEnv(env: Env | null, depth: number): Env {
  let e = env;
  for (let i = 0; i < depth; i++) e = e!.up;
  return e!;
}

export function push(env: Env | null, v: JqValue): Env {
  return { v, c: null, up: env };
}

export function invalidPath(v: JqValue): never {
  return fail(`invalid path against: ${typeErrorPreview(v)}`);
}

/** Path mode for filters that are not path expressions: evaluating them is an error as soon as they output. */
export function nonPath(gen: Gen): () => PathGen {
  return () => (x, _p, env) => gen(x, env, invalidPath);
}

function lazy(factory: () => PathGen): () => PathGen {
  let p: PathGen | null = null;
  return () => (p ??= factory());
}

export function fromOne(one: One, path?: () => PathGen): Compiled {
  const gen: Gen = (x, env, emit) => emit(one(x, env));
  return { gen, one, path: path ? lazy(path) : nonPath(gen) };
}

export function fromGen(gen: Gen, path?: () => PathGen): Compiled {
  return { gen, one: null, path: path ? lazy(path) : nonPath(gen) };
}

/** All outputs of a filter as an array. */
export function collect(c: Compiled, x: JqValue, env: Env | null): JqValue[] {
  if (c.one) {
    alloc(SLOT);
    return [c.one(x, env)];
  }
  const out: JqValue[] = [];
  c.gen(x, env, (v) => {
    alloc(SLOT);
    out.push(v);
  });
  return out;
}

/** Calls `f` with each output; `f` returning true stops the generator. */
export function each(c: Compiled, x: JqValue, env: Env | null, f: (v: JqValue) => boolean | void): void {
  if (c.one) {
    f(c.one(x, env));
    return;
  }
  const stop = new StopSignal();
  try {
    c.gen(x, env, (v) => {
      if (f(v) === true) throw stop;
    });
  } catch (e) {
    if (e !== stop) throw e;
  }
}

/** First output, or `undefined` when there is none. */
export function first(c: Compiled, x: JqValue, env: Env | null): JqValue | undefined {
  let r: JqValue | undefined;
  each(c, x, env, (v) => {
    r = v;
    return true;
  });
  return r;
}

/** Cartesian product over the outputs of value arguments (jq's `$param`), first argument outermost. */
export function withArgValues(args: Compiled[], x: JqValue, env: Env | null, f: (vals: JqValue[]) => void): void {
  const vals = new Array<JqValue>(args.length);
  const rec = (i: number): void => {
    if (i === args.length) {
      f(vals);
      return;
    }
    const a = args[i];
    if (a.one) {
      vals[i] = a.one(x, env);
      rec(i + 1);
    } else {
      a.gen(x, env, (v) => {
        vals[i] = v;
        rec(i + 1);
      });
    }
  };
  rec(0);
}

export function collectPaths(c: Compiled, x: JqValue, env: Env | null): Path[] {
  const out: Path[] = [];
  c.path()(x, [], env, (_v, p) => {
    alloc(SLOT);
    out.push(p);
  });
  return out;
}

/** `lhs = $v` for each value of rhs; rhs is evaluated first, so an empty rhs never evaluates lhs (jq). */
export function assignGen(lhs: Compiled, rhs: Compiled): Gen {
  return (x, env, emit) => {
    let paths: Path[] | null = null;
    const apply = (v: JqValue): void => {
      paths ??= collectPaths(lhs, x, env);
      let acc = x;
      for (const p of paths) {
        tick();
        acc = setPath(acc, p, v);
      }
      emit(acc);
    };
    if (rhs.one) apply(rhs.one(x, env));
    else rhs.gen(x, env, apply);
  };
}

/**
 * `lhs |= f`: each designated value is replaced by the first output of `f`; paths for which `f` is empty are
 * deleted at the end (gojq's `_modify`).
 */
export function modify(x: JqValue, paths: Path[], update: (old: JqValue) => JqValue | undefined): JqValue {
  let acc = x;
  const dels: Path[] = [];
  for (const p of paths) {
    tick();
    const nv = update(getPath(acc, p));
    if (nv === undefined) dels.push(p);
    else acc = setPath(acc, p, nv);
  }
  return dels.length > 0 ? delPaths(acc, dels) : acc;
}

export function modifyGen(lhs: Compiled, f: Compiled): Gen {
  return (x, env, emit) => {
    emit(modify(x, collectPaths(lhs, x, env), (old) => first(f, old, env)));
  };
}

/** `lhs op= rhs`: `rhs as $r | lhs |= . op $r`, with rhs evaluated against the original input. */
export function arithmeticUpdateGen(lhs: Compiled, rhs: Compiled, op: (l: JqValue, r: JqValue) => JqValue): Gen {
  return (x, env, emit: Emit) => {
    let paths: Path[] | null = null;
    const apply = (r: JqValue): void => {
      paths ??= collectPaths(lhs, x, env);
      emit(modify(x, paths, (old) => op(old, r)));
    };
    if (rhs.one) apply(rhs.one(x, env));
    else rhs.gen(x, env, apply);
  };
}

