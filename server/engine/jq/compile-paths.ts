/** Compilation of path expressions: `.`, `.a.b[0]` (fused into one closure), `.[e]`, `.[a:b]`, `.[]`, and their `?` forms. */
import type { Node, NodeOf } from './ast.ts';
import { JqRuntimeError } from './errors.ts';
import { indexField, indexNumber, indexPlainField, indexValue, iterError, slice } from './ops.ts';
import type { Path, PathKey } from './path-ops.ts';
import { alloc, charge, SLOT } from './budget.ts';
import { fromGen, fromOne, invalidPath } from './runtime.ts';
import type { Compiled, Emit, Env, One, PathEmit, PathGen } from './types.ts';
import type { JqValue } from './values.ts';
import { isObject, objectKeys } from './values.ts';
import type { Compiler } from './compile.ts';
import type { Scope } from './scope.ts';
import { compileError } from './scope.ts';

const IDENTITY_ONE: One = (x) => x;
export const IDENTITY: Compiled = fromOne(IDENTITY_ONE, () => (x, p, _env, emit) => emit(x, p));
const NULL_LITERAL: Compiled = fromOne(() => null);

const PROTO_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

function fieldFn(name: string): (v: JqValue) => JqValue {
  return PROTO_NAMES.has(name) ? (v) => indexField(v, name) : (v) => indexPlainField(v, name);
}

/** `.[]`: a step per element (objectKeys charges the objects' members). */
function iterate(v: JqValue, emit: Emit): void {
  if (Array.isArray(v)) {
    charge(v.length);
    for (let i = 0; i < v.length; i++) emit(v[i]);
  } else if (v !== null && typeof v === 'object') {
    const keys = objectKeys(v);
    for (let i = 0; i < keys.length; i++) emit(v[keys[i]]);
  } else {
    iterError(v);
  }
}

/** Path mode's `.[]`: each output's path is a new array, charged as built. */
function iteratePath(v: JqValue, p: Path, emit: PathEmit): void {
  const bytes = (p.length + 1) * SLOT;
  if (Array.isArray(v)) {
    charge(v.length);
    for (let i = 0; i < v.length; i++) {
      alloc(bytes);
      emit(v[i], [...p, i]);
    }
  } else if (v !== null && typeof v === 'object') {
    for (const k of objectKeys(v)) {
      alloc(bytes);
      emit(v[k], [...p, k]);
    }
  } else {
    iterError(v);
  }
}

/** The path element for an index value: strings, numbers and `{start, end}` objects; anything else is an error. */
function toPathKey(k: JqValue): PathKey {
  return typeof k === 'string' || typeof k === 'number' || isObject(k) ? k : invalidPath(k);
}

type Bounds = (x: JqValue, env: Env | null, f: (from: JqValue, to: JqValue) => void) => void;

/** Every combination of a slice's bounds, `from` outermost; a missing bound is null. */
function sliceBounds(from: Compiled | null, to: Compiled | null): Bounds {
  return (x, env, f) => {
    const withFrom = (a: JqValue): void => {
      if (to) to.gen(x, env, (b) => f(a, b));
      else f(a, null);
    };
    if (from) from.gen(x, env, withFrom);
    else withFrom(null);
  };
}

type Suffix = NodeOf<'field' | 'index' | 'slice' | 'iterate'>;

export function compileSuffix(c: Compiler, node: Suffix, scope: Scope | null): Compiled {
  // Fuse a run of constant field/index steps on top of a single-output base into one closure.
  const steps: Array<string | number> = [];
  let base: Node = node;
  while (true) {
    if (base.t === 'field' && !base.opt) {
      steps.push(base.name);
      base = base.target;
    } else if (base.t === 'index' && !base.opt && base.index.t === 'literal' && typeof base.index.value === 'number') {
      steps.push(base.index.value);
      base = base.target;
    } else break;
  }
  steps.reverse();
  if (steps.length > 0) return compileSteps(c.compile(base, scope), steps);
  if (node.opt) return compileOptionalSuffix(c, node, scope);
  const t = c.compile(node.target, scope);
  if (node.t === 'iterate') {
    const tp = (): PathGen => {
      const tpath = t.path();
      return (x, p, env, emit) => tpath(x, p, env, (v, q) => iteratePath(v, q, emit));
    };
    if (t.one) {
      const one = t.one;
      return fromGen((x, env, emit) => iterate(one(x, env), emit), tp);
    }
    return fromGen((x, env, emit) => t.gen(x, env, (v) => iterate(v, emit)), tp);
  }
  if (node.t === 'index') {
    const k = c.compile(node.index, scope);
    const path = (): PathGen => {
      const tpath = t.path();
      return (x, p, env, emit) =>
        k.gen(x, env, (key) =>
          tpath(x, p, env, (v, q) => {
            // the key is checked before indexing: an invalid key is an invalid path whatever the value
            const pk = toPathKey(key);
            alloc((q.length + 1) * SLOT);
            emit(indexValue(v, key), [...q, pk]);
          }),
        );
    };
    if (t.one && k.one) {
      const tone = t.one;
      const kone = k.one;
      return fromOne((x, env) => {
        const key = kone(x, env);
        return indexValue(tone(x, env), key);
      }, path);
    }
    return fromGen((x, env, emit) => k.gen(x, env, (key) => t.gen(x, env, (v) => emit(indexValue(v, key)))), path);
  }
  if (node.t === 'slice') {
    const bounds = sliceBounds(node.from ? c.compile(node.from, scope) : null, node.to ? c.compile(node.to, scope) : null);
    return fromGen(
      (x, env, emit) => bounds(x, env, (f, e) => t.gen(x, env, (v) => emit(slice(v, f, e)))),
      () => {
        const tpath = t.path();
        return (x, p, env, emit) =>
          bounds(x, env, (f, e) =>
            tpath(x, p, env, (v, q) => {
              alloc((q.length + 3) * SLOT);
              emit(slice(v, f, e), [...q, { start: f, end: e }]);
            }),
          );
      },
    );
  }
  // field without constant steps cannot happen (handled above)
  return compileError('internal: unexpected suffix', node.pos);
}

/**
 * `X.k?`, `X[e]?`, `X[a:b]?`, `X[]?`: errors of the indexing step produce no output; errors of X and of the
 * key expressions still propagate.
 */
function compileOptionalSuffix(c: Compiler, node: Suffix, scope: Scope | null): Compiled {
  const t = c.compile(node.target, scope);
  const keys: Compiled[] = [];
  if (node.t === 'index') keys.push(c.compile(node.index, scope));
  if (node.t === 'slice') keys.push(node.from ? c.compile(node.from, scope) : NULL_LITERAL, node.to ? c.compile(node.to, scope) : NULL_LITERAL);
  // step(v, keyValues, emit): the guarded operation, emitting its results with the path keys they add
  type StepEmit = (v: JqValue, key: PathKey) => void;
  let step: (v: JqValue, ks: JqValue[], emit: StepEmit) => void;
  switch (node.t) {
    case 'field': {
      const name = node.name;
      step = (v, _ks, emit) => emit(indexField(v, name), name);
      break;
    }
    case 'index':
      step = (v, [k], emit) => {
        const pk = toPathKey(k);
        emit(indexValue(v, k), pk);
      };
      break;
    case 'slice':
      step = (v, [f, e], emit) => emit(slice(v, f, e), { start: f, end: e });
      break;
    default:
      step = (v, _ks, emit) => {
        if (Array.isArray(v)) {
          charge(v.length);
          v.forEach((c, i) => emit(c, i));
        } else if (v !== null && typeof v === 'object') for (const k of objectKeys(v)) emit(v[k], k);
      };
  }
  const guardedStep = (v: JqValue, ks: JqValue[], emit: StepEmit): void => {
    const out: Array<[JqValue, PathKey]> = [];
    try {
      step(v, ks, (r, k) => {
        alloc(SLOT);
        out.push([r, k]);
      });
    } catch (e) {
      if (e instanceof JqRuntimeError) return;
      throw e;
    }
    for (const [r, k] of out) emit(r, k);
  };
  // one closure for every kind of suffix, branching on the key count (a closure per kind was slower)
  const withKeys = (x: JqValue, env: Env | null, f: (ks: JqValue[]) => void): void => {
    if (keys.length === 0) f([]);
    else if (keys.length === 1) keys[0].gen(x, env, (k) => f([k]));
    else keys[0].gen(x, env, (a) => keys[1].gen(x, env, (b) => f([a, b])));
  };
  return fromGen(
    (x, env, emit) => withKeys(x, env, (ks) => t.gen(x, env, (v) => guardedStep(v, ks, (r) => emit(r)))),
    () => {
      const tp = t.path();
      return (x, p, env, emit) =>
        withKeys(x, env, (ks) =>
          tp(x, p, env, (v, q) =>
            guardedStep(v, ks, (r, k) => {
              alloc((q.length + 1) * SLOT);
              emit(r, [...q, k]);
            }),
          ),
        );
    },
  );
}

function compileSteps(base: Compiled, steps: Array<string | number>): Compiled {
  const fns = steps.map((s) => (typeof s === 'string' ? fieldFn(s) : (v: JqValue) => indexNumber(v, s)));
  let chain: (v: JqValue) => JqValue;
  if (fns.length === 1) chain = fns[0];
  else if (fns.length === 2) {
    const [a, b] = fns;
    chain = (v) => b(a(v));
  } else if (fns.length === 3) {
    const [a, b, c] = fns;
    chain = (v) => c(b(a(v)));
  } else if (fns.length === 4) {
    const [a, b, c, d] = fns;
    chain = (v) => d(c(b(a(v))));
  } else {
    chain = (v) => {
      let r = v;
      for (let i = 0; i < fns.length; i++) r = fns[i](r);
      return r;
    };
  }
  const path = (): PathGen => {
    const bp = base.path();
    const bytes = steps.length * SLOT;
    return (x, p, env, emit) =>
      bp(x, p, env, (v, q) => {
        alloc(q.length * SLOT + bytes);
        emit(chain(v), [...q, ...steps]);
      });
  };
  if (base.one) {
    const bone = base.one;
    // `.a.b` on the input itself: no base call at all
    if (bone === IDENTITY_ONE) return fromOne((x) => chain(x), path);
    return fromOne((x, env) => chain(bone(x, env)), path);
  }
  return fromGen((x, env, emit) => base.gen(x, env, (v) => emit(chain(v))), path);
}
