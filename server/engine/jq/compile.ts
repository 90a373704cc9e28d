import type { Node, NodeOf, ObjectEntry } from './ast.ts';
import { fail, JqRuntimeError, typeErrorPreview } from './errors.ts';
import { formatValue, hasFormat } from './formats.ts';
import { BINARY, indexField, indexNumber, indexPlainField, indexValue, iterError, negate, slice } from './ops.ts';
import type { Path, PathKey } from './path-ops.ts';
import { arithmeticUpdateGen, assignGen, collectedTooMany, MAX_COLLECTED, fromGen, fromOne, invalidPath, modifyGen } from './runtime.ts';
import type { Compiled, Emit, Env, Gen, One, PathEmit, PathGen } from './types.ts';
import type { JqObject, JqValue } from './values.ts';
import { isObject, objectKeys, setKey, toString, truthy } from './values.ts';
import { compileBind, compileBreak, compileCall, compileFuncDef, compileForeach, compileLabel, compileReduce, compileVar } from './compile-bindings.ts';
import type { Scope } from './scope.ts';
import { compileError } from './scope.ts';

// ---- helpers -----------------------------------------------------------------------------------------------

const PROTO_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

function fieldFn(name: string): (v: JqValue) => JqValue {
  return PROTO_NAMES.has(name) ? (v) => indexField(v, name) : (v) => indexPlainField(v, name);
}

function iterate(v: JqValue, emit: Emit): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) emit(v[i]);
  } else if (v !== null && typeof v === 'object') {
    const keys = objectKeys(v);
    for (let i = 0; i < keys.length; i++) emit(v[keys[i]]);
  } else {
    iterError(v);
  }
}

function iteratePath(v: JqValue, p: Path, emit: PathEmit): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) emit(v[i], [...p, i]);
  } else if (v !== null && typeof v === 'object') {
    for (const k of objectKeys(v)) emit(v[k], [...p, k]);
  } else {
    iterError(v);
  }
}

/** Runs `body` with `emit`, telling errors raised by the body apart from errors raised downstream of it. */
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

// ---- the compiler ------------------------------------------------------------------------------------------

export class Compiler {
  compile(node: Node, scope: Scope | null): Compiled {
    switch (node.t) {
      case 'identity':
        return IDENTITY;
      case 'recurse_default':
        return compileCall(this, { t: 'call', name: 'recurse', args: [], pos: node.pos }, scope);
      case 'field':
      case 'index':
      case 'slice':
      case 'iterate':
        return this.compileSuffix(node, scope);
      case 'try':
        return this.compileTry(node, scope);
      case 'literal': {
        const v = node.value;
        return fromOne(() => v);
      }
      case 'string':
        return this.compileString(node, scope);
      case 'format': {
        const name = node.name;
        if (!hasFormat(name)) compileError(`format not defined: @${name}`, node.pos);
        return fromOne((x) => formatValue(name, x));
      }
      case 'array':
        return this.compileArray(node, scope);
      case 'object':
        return this.compileObject(node, scope);
      case 'neg': {
        const b = this.compile(node.body, scope);
        if (b.one) {
          const one = b.one;
          return fromOne((x, env) => negate(one(x, env)));
        }
        return fromGen((x, env, emit) => b.gen(x, env, (v) => emit(negate(v))));
      }
      case 'pipe':
        return this.compilePipe(node, scope);
      case 'comma': {
        const l = this.compile(node.left, scope);
        const r = this.compile(node.right, scope);
        return fromGen(
          (x, env, emit) => {
            l.gen(x, env, emit);
            r.gen(x, env, emit);
          },
          () => {
            const lp = l.path();
            const rp = r.path();
            return (x, p, env, emit) => {
              lp(x, p, env, emit);
              rp(x, p, env, emit);
            };
          },
        );
      }
      case 'binary':
        return this.compileBinary(node, scope);
      case 'and':
      case 'or':
        return this.compileLogic(node, scope);
      case 'alt':
        return this.compileAlt(node, scope);
      case 'assign':
        return this.compileAssign(node, scope);
      case 'if':
        return this.compileIf(node, scope);
      case 'reduce':
        return compileReduce(this, node, scope);
      case 'foreach':
        return compileForeach(this, node, scope);
      case 'bind':
        return compileBind(this, node, scope);
      case 'funcdef':
        return compileFuncDef(this, node, scope);
      case 'call':
        return compileCall(this, node, scope);
      case 'var':
        return compileVar(this, node, scope);
      case 'label':
        return compileLabel(this, node, scope);
      case 'break':
        return compileBreak(this, node, scope);
    }
  }

  // -- paths: .a.b[0][] and friends --------------------------------------------------------------------------

  private compileSuffix(node: NodeOf<'field' | 'index' | 'slice' | 'iterate'>, scope: Scope | null): Compiled {
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
    if (steps.length > 0) {
      const b = this.compile(base, scope);
      return this.compileSteps(b, steps);
    }
    if (node.opt) return this.compileOptionalSuffix(node, scope);
    if (node.t === 'iterate') {
      const t = this.compile(node.target, scope);
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
      const t = this.compile(node.target, scope);
      const k = this.compile(node.index, scope);
      if (t.one && k.one) {
        const tone = t.one;
        const kone = k.one;
        return fromOne(
          (x, env) => {
            const key = kone(x, env);
            return indexValue(tone(x, env), key);
          },
          () => this.indexPath(t, k),
        );
      }
      return fromGen(
        (x, env, emit) => k.gen(x, env, (key) => t.gen(x, env, (v) => emit(indexValue(v, key)))),
        () => this.indexPath(t, k),
      );
    }
    if (node.t === 'slice') {
      const t = this.compile(node.target, scope);
      const from = node.from ? this.compile(node.from, scope) : null;
      const to = node.to ? this.compile(node.to, scope) : null;
      const gen: Gen = (x, env, emit) => {
        const withTo = (f: JqValue): void => {
          const withTarget = (e: JqValue): void => t.gen(x, env, (v) => emit(slice(v, f, e)));
          if (to) to.gen(x, env, withTarget);
          else withTarget(null);
        };
        if (from) from.gen(x, env, withTo);
        else withTo(null);
      };
      return fromGen(gen, () => {
        const tpath = t.path();
        return (x, p, env, emit) => {
          const withTo = (f: JqValue): void => {
            const withTarget = (e: JqValue): void =>
              tpath(x, p, env, (v, q) => {
                const key: JqObject = { start: f, end: e };
                emit(slice(v, f, e), [...q, key]);
              });
            if (to) to.gen(x, env, withTarget);
            else withTarget(null);
          };
          if (from) from.gen(x, env, withTo);
          else withTo(null);
        };
      });
    }
    // field without constant steps cannot happen (handled above)
    return compileError('internal: unexpected suffix', node.pos);
  }

  /**
   * `X.k?`, `X[e]?`, `X[a:b]?`, `X[]?`: errors of the indexing step produce no output; errors of X and of the
   * key expressions still propagate.
   */
  private compileOptionalSuffix(node: NodeOf<'field' | 'index' | 'slice' | 'iterate'>, scope: Scope | null): Compiled {
    const t = this.compile(node.target, scope);
    const keys: Compiled[] = [];
    if (node.t === 'index') keys.push(this.compile(node.index, scope));
    if (node.t === 'slice') keys.push(node.from ? this.compile(node.from, scope) : NULL_LITERAL, node.to ? this.compile(node.to, scope) : NULL_LITERAL);
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
          const pk: PathKey = typeof k === 'string' || typeof k === 'number' || isObject(k) ? k : invalidPath(k);
          emit(indexValue(v, k), pk);
        };
        break;
      case 'slice':
        step = (v, [f, e], emit) => emit(slice(v, f, e), { start: f, end: e });
        break;
      default:
        step = (v, _ks, emit) => {
          if (Array.isArray(v)) v.forEach((c, i) => emit(c, i));
          else if (v !== null && typeof v === 'object') for (const k of objectKeys(v)) emit(v[k], k);
        };
    }
    const guardedStep = (v: JqValue, ks: JqValue[], emit: StepEmit): void => {
      const out: Array<[JqValue, PathKey]> = [];
      try {
        step(v, ks, (r, k) => out.push([r, k]));
      } catch (e) {
        if (e instanceof JqRuntimeError) return;
        throw e;
      }
      for (const [r, k] of out) emit(r, k);
    };
    const withKeys = (x: JqValue, env: Env | null, f: (ks: JqValue[]) => void): void => {
      if (keys.length === 0) f([]);
      else if (keys.length === 1) keys[0].gen(x, env, (k) => f([k]));
      else keys[0].gen(x, env, (a) => keys[1].gen(x, env, (b) => f([a, b])));
    };
    return fromGen(
      (x, env, emit) => withKeys(x, env, (ks) => t.gen(x, env, (v) => guardedStep(v, ks, (r) => emit(r)))),
      () => {
        const tp = t.path();
        return (x, p, env, emit) => withKeys(x, env, (ks) => tp(x, p, env, (v, q) => guardedStep(v, ks, (r, k) => emit(r, [...q, k]))));
      },
    );
  }

  private indexPath(t: Compiled, k: Compiled): PathGen {
    const tpath = t.path();
    return (x, p, env, emit) =>
      k.gen(x, env, (key) =>
        tpath(x, p, env, (v, q) => {
          if (v === null && !(typeof key === 'string' || typeof key === 'number' || isObject(key))) invalidPath(key);
          const pk: PathKey = typeof key === 'string' || typeof key === 'number' ? key : isObject(key) ? key : invalidPath(key);
          emit(indexValue(v, key), [...q, pk]);
        }),
      );
  }

  private compileSteps(base: Compiled, steps: Array<string | number>): Compiled {
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
      return (x, p, env, emit) =>
        bp(x, p, env, (v, q) => {
          let r = v;
          for (let i = 0; i < fns.length; i++) r = fns[i](r);
          emit(r, [...q, ...steps]);
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

  // -- try / ? -------------------------------------------------------------------------------------------------

  private compileTry(node: NodeOf<'try'>, scope: Scope | null): Compiled {
    const body = this.compile(node.body, scope);
    const handler = node.handler ? this.compile(node.handler, scope) : null;
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

  // -- strings, arrays, objects --------------------------------------------------------------------------------

  private compileString(node: NodeOf<'string'>, scope: Scope | null): Compiled {
    const format = node.format ?? 'text';
    if (!hasFormat(format)) compileError(`format not defined: @${format}`, node.pos);
    const parts = node.parts.map((p) => (typeof p === 'string' ? p : this.compile(p, scope)));
    const fmt = (v: JqValue): string => (format === 'text' ? toString(v) : (formatValue(format, v) as string));
    if (parts.every((p) => typeof p === 'string' || p.one)) {
      const ones = parts.map((p) => (typeof p === 'string' ? p : p.one!));
      return fromOne((x, env) => {
        let s = '';
        for (const p of ones) s += typeof p === 'string' ? p : fmt(p(x, env));
        return s;
      });
    }
    // jq builds interpolations with `+`, whose right operand is the outer loop: the last part varies slowest.
    return fromGen((x, env, emit) => {
      const rec = (i: number, suffix: string): void => {
        if (i < 0) {
          emit(suffix);
          return;
        }
        const p = parts[i];
        if (typeof p === 'string') rec(i - 1, p + suffix);
        else p.gen(x, env, (v) => rec(i - 1, fmt(v) + suffix));
      };
      rec(parts.length - 1, '');
    });
  }

  private compileArray(node: NodeOf<'array'>, scope: Scope | null): Compiled {
    if (!node.body) return fromOne(() => []);
    const body = this.compile(node.body, scope);
    if (body.one) {
      const one = body.one;
      return fromOne((x, env) => [one(x, env)]);
    }
    const bgen = body.gen;
    return fromOne((x, env) => {
      const out: JqValue[] = [];
      bgen(x, env, (v) => {
        if (out.push(v) > MAX_COLLECTED) collectedTooMany();
      });
      return out;
    });
  }

  private compileObject(node: NodeOf<'object'>, scope: Scope | null): Compiled {
    type E = { key: string | Compiled; value: Compiled };
    const entries: E[] = node.entries.map((en: ObjectEntry) => {
      let value: Compiled;
      if (en.value) value = this.compile(en.value, scope);
      else if (en.varName !== undefined) value = compileVar(this, { t: 'var', name: en.varName, pos: node.pos }, scope);
      else if (typeof en.key === 'string') value = this.compile({ t: 'field', target: { t: 'identity', pos: node.pos }, name: en.key, pos: node.pos }, scope);
      else value = this.compile({ t: 'index', target: { t: 'identity', pos: node.pos }, index: en.key, pos: node.pos }, scope);
      const key = typeof en.key === 'string' ? en.key : this.compile(en.key, scope);
      return { key, value };
    });
    const checkKey = (k: JqValue): string => (typeof k === 'string' ? k : fail(`expected a string for object key but got: ${typeErrorPreview(k)}`));
    if (entries.every((e) => (typeof e.key === 'string' || e.key.one) && e.value.one)) {
      const ks = entries.map((e) => (typeof e.key === 'string' ? e.key : e.key.one!));
      const vs = entries.map((e) => e.value.one!);
      return fromOne((x, env) => {
        const o: JqObject = {};
        for (let i = 0; i < ks.length; i++) {
          const k = ks[i];
          setKey(o, typeof k === 'string' ? k : checkKey(k(x, env)), vs[i](x, env));
        }
        return o;
      });
    }
    // Cartesian product, first entry outermost (jq order).
    return fromGen((x, env, emit) => {
      const keys = new Array<string>(entries.length);
      const vals = new Array<JqValue>(entries.length);
      const rec = (i: number): void => {
        if (i === entries.length) {
          const o: JqObject = {};
          for (let j = 0; j < keys.length; j++) setKey(o, keys[j], vals[j]);
          emit(o);
          return;
        }
        const e = entries[i];
        const withKey = (k: string): void => {
          keys[i] = k;
          e.value.gen(x, env, (v) => {
            vals[i] = v;
            rec(i + 1);
          });
        };
        if (typeof e.key === 'string') withKey(e.key);
        else e.key.gen(x, env, (k) => withKey(checkKey(k)));
      };
      rec(0);
    });
  }

  // -- pipes and operators -------------------------------------------------------------------------------------

  private compilePipe(node: NodeOf<'pipe'>, scope: Scope | null): Compiled {
    const l = this.compile(node.left, scope);
    const r = this.compile(node.right, scope);
    const path = (): PathGen => {
      const lp = l.path();
      const rp = r.path();
      return (x, p, env, emit) => lp(x, p, env, (v, q) => rp(v, q, env, emit));
    };
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

  private compileBinary(node: NodeOf<'binary'>, scope: Scope | null): Compiled {
    const op = BINARY[node.op];
    const l = this.compile(node.left, scope);
    const r = this.compile(node.right, scope);
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

  private compileLogic(node: NodeOf<'and' | 'or'>, scope: Scope | null): Compiled {
    const l = this.compile(node.left, scope);
    const r = this.compile(node.right, scope);
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

  private compileAlt(node: NodeOf<'alt'>, scope: Scope | null): Compiled {
    const l = this.compile(node.left, scope);
    const r = this.compile(node.right, scope);
    const path = (): PathGen => {
      const lp = l.path();
      const rp = r.path();
      return (x, p, env, emit) => {
        let any = false;
        lp(x, p, env, (v, q) => {
          if (truthy(v)) {
            any = true;
            emit(v, q);
          }
        });
        if (!any) rp(x, p, env, emit);
      };
    };
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

  private compileAssign(node: NodeOf<'assign'>, scope: Scope | null): Compiled {
    const l = this.compile(node.left, scope);
    const r = this.compile(node.right, scope);
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

  private compileIf(node: NodeOf<'if'>, scope: Scope | null): Compiled {
    const c = this.compile(node.cond, scope);
    const t = this.compile(node.then, scope);
    const e = node.else ? this.compile(node.else, scope) : IDENTITY;
    const path = (): PathGen => {
      const tp = t.path();
      const ep = e.path();
      return (x, p, env, emit) => c.gen(x, env, (v) => (truthy(v) ? tp : ep)(x, p, env, emit));
    };
    if (c.one && t.one && e.one) {
      const co = c.one;
      const to = t.one;
      const eo = e.one;
      return fromOne((x, env) => (truthy(co(x, env)) ? to(x, env) : eo(x, env)), path);
    }
    if (c.one) {
      const co = c.one;
      return fromGen((x, env, emit) => (truthy(co(x, env)) ? t : e).gen(x, env, emit), path);
    }
    return fromGen((x, env, emit) => c.gen(x, env, (v) => (truthy(v) ? t : e).gen(x, env, emit)), path);
  }

}

const IDENTITY_ONE: One = (x) => x;
const NULL_LITERAL: Compiled = fromOne(() => null);
export const IDENTITY: Compiled = fromOne(IDENTITY_ONE, () => (x, p, _env, emit) => emit(x, p));

