/**
 * Control-flow, path and type builtins. Functions jq defines in jq (select, recurse, first, limit, paths …) are
 * native here, with the same output order, so that no builtin needs the jq-level prelude at run time.
 */
import { arr, define, define0, defineV, num, typeError, typeError1 } from './builtin-registry.ts';
import { fail, JqRuntimeError, typeErrorPreview } from './errors.ts';
import { add as addValues, iterValues } from './ops.ts';
import type { Path } from './path-ops.ts';
import { allPaths, delPaths, getPath, setPath } from './path-ops.ts';
import { collect, collectPaths, each, first, fromGen, fromOne, modify, StopSignal, tick, withArgValues } from './runtime.ts';
import type { Compiled, Emit, Env, PathEmit, PathGen } from './types.ts';
import type { JqObject, JqValue } from './values.ts';
import { encode, getKey, hasKey, isObject, objectKeys, objectSize, setKey, toString, truthy, typeOf } from './values.ts';

const EMPTY: Compiled = fromGen(
  () => undefined,
  () => () => undefined,
);
define('empty', 0, () => EMPTY);

define('error', 0, () =>
  fromGen(
    (x) => {
      throw new JqRuntimeError(x, true);
    },
    () => (x) => {
      throw new JqRuntimeError(x, true);
    },
  ),
);
define('error', 1, ([m]) =>
  fromGen(
    (x, env) =>
      m.gen(x, env, (v) => {
        throw new JqRuntimeError(v, true);
      }),
    () => (x, _p, env) =>
      m.gen(x, env, (v) => {
        throw new JqRuntimeError(v, true);
      }),
  ),
);

define0('not', (x) => !truthy(x));

// ---- select and its named variants ---------------------------------------------------------------------------

function filterBy(pred: (v: JqValue) => boolean): Compiled {
  return fromGen(
    (x, _env, emit) => {
      if (pred(x)) emit(x);
    },
    () => (x, p, _env, emit) => {
      if (pred(x)) emit(x, p);
    },
  );
}

define('select', 1, ([f]) => {
  if (f.one) {
    const fo = f.one;
    return fromGen(
      (x, env, emit) => {
        if (truthy(fo(x, env))) emit(x);
      },
      () => (x, p, env, emit) => {
        if (truthy(fo(x, env))) emit(x, p);
      },
    );
  }
  return fromGen(
    (x, env, emit) =>
      f.gen(x, env, (c) => {
        if (truthy(c)) emit(x);
      }),
    () => (x, p, env, emit) =>
      f.gen(x, env, (c) => {
        if (truthy(c)) emit(x, p);
      }),
  );
});

const TYPE_FILTERS: Record<string, (v: JqValue) => boolean> = {
  arrays: (v) => Array.isArray(v),
  objects: (v) => isObject(v),
  iterables: (v) => v !== null && typeof v === 'object',
  booleans: (v) => typeof v === 'boolean',
  numbers: (v) => typeof v === 'number',
  strings: (v) => typeof v === 'string',
  nulls: (v) => v === null,
  values: (v) => v !== null,
  scalars: (v) => v === null || typeof v !== 'object',
  finites: (v) => typeof v === 'number' && Number.isFinite(v),
  normals: (v) => typeof v === 'number' && isNormal(v),
};
for (const [name, pred] of Object.entries(TYPE_FILTERS)) {
  const c = filterBy(pred);
  define(name, 0, () => c);
}

function isNormal(n: number): boolean {
  return Number.isFinite(n) && n !== 0 && Math.abs(n) >= 2.2250738585072014e-308;
}

// ---- recursion -----------------------------------------------------------------------------------------------

function recurseChildren(v: JqValue, emit: Emit): void {
  tick();
  emit(v);
  if (Array.isArray(v)) for (const c of v) recurseChildren(c, emit);
  else if (isObject(v)) for (const k of objectKeys(v)) recurseChildren(v[k], emit);
}

function recurseChildrenPath(v: JqValue, p: Path, emit: PathEmit): void {
  tick();
  emit(v, p);
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) recurseChildrenPath(v[i], [...p, i], emit);
  else if (isObject(v)) for (const k of objectKeys(v)) recurseChildrenPath(v[k], [...p, k], emit);
}

const RECURSE: Compiled = fromGen(
  (x, _env, emit) => recurseChildren(x, emit),
  () => (x, p, _env, emit) => recurseChildrenPath(x, p, emit),
);
define('recurse', 0, () => RECURSE);

define('recurse', 1, ([f]) =>
  fromGen(
    (x, env, emit) => {
      const rec = (v: JqValue): void => {
        tick();
        emit(v);
        f.gen(v, env, rec);
      };
      rec(x);
    },
    () => {
      const fp = f.path();
      return (x, p, env, emit) => {
        const rec = (v: JqValue, q: Path): void => {
          tick();
          emit(v, q);
          fp(v, q, env, rec);
        };
        rec(x, p);
      };
    },
  ),
);

define('recurse', 2, ([f, cond]) =>
  fromGen(
    (x, env, emit) => {
      const rec = (v: JqValue): void => {
        tick();
        emit(v);
        f.gen(v, env, (u) =>
          cond.gen(u, env, (c) => {
            if (truthy(c)) rec(u);
          }),
        );
      };
      rec(x);
    },
    () => {
      const fp = f.path();
      return (x, p, env, emit) => {
        const rec = (v: JqValue, q: Path): void => {
          tick();
          emit(v, q);
          fp(v, q, env, (u, r) =>
            cond.gen(u, env, (c) => {
              if (truthy(c)) rec(u, r);
            }),
          );
        };
        rec(x, p);
      };
    },
  ),
);

define('walk', 1, ([f]) => {
  const walk = (v: JqValue, env: Env | null, emit: Emit): void => {
    tick();
    let nv: JqValue = v;
    if (Array.isArray(v)) {
      const out: JqValue[] = [];
      for (const c of v) {
        const r = firstOf((e) => walk(c, env, e));
        if (r !== undefined) out.push(r);
      }
      nv = out;
    } else if (isObject(v)) {
      const o: JqObject = {};
      for (const k of objectKeys(v)) {
        const r = firstOf((e) => walk(v[k], env, e));
        if (r !== undefined) setKey(o, k, r);
      }
      nv = o;
    }
    f.gen(nv, env, emit);
  };
  return fromGen((x, env, emit) => walk(x, env, emit));
});

/** First output of a callback-style generator (map_values semantics: empty drops the element). */
function firstOf(g: (emit: Emit) => void): JqValue | undefined {
  let r: JqValue | undefined;
  const stop = new StopSignal();
  try {
    g((v) => {
      r = v;
      throw stop;
    });
  } catch (e) {
    if (e !== stop) throw e;
  }
  return r;
}

// ---- generators: range, limit, first, last, nth, until, while, repeat ------------------------------------------

function rangeLoop(from: JqValue, upto: JqValue, by: JqValue, emit: Emit): void {
  if (typeof from !== 'number' || typeof upto !== 'number' || typeof by !== 'number') {
    const bad = typeof from !== 'number' ? from : typeof upto !== 'number' ? upto : by;
    typeError('range', bad);
  }
  const f = from as number;
  const u = upto as number;
  const b = by as number;
  if (b > 0) {
    for (let v = f; v < u; v += b) {
      tick();
      emit(v);
    }
  } else if (b < 0) {
    for (let v = f; v > u; v += b) {
      tick();
      emit(v);
    }
  }
}

define('range', 1, ([n]) => fromGen((x, env, emit) => n.gen(x, env, (u) => rangeLoop(0, u, 1, emit))));
define('range', 2, (args) => fromGen((x, env, emit) => withArgValues(args, x, env, ([a, b]) => rangeLoop(a, b, 1, emit))));
define('range', 3, (args) => fromGen((x, env, emit) => withArgValues(args, x, env, ([a, b, c]) => rangeLoop(a, b, c, emit))));

/** Runs `c` in value or path mode and stops after `n` outputs. */
function limited<E extends unknown[]>(n: number, run: (emit: (...a: E) => void) => void, emit: (...a: E) => void): void {
  if (n <= 0) return;
  let count = 0;
  const stop = new StopSignal();
  try {
    run((...a: E) => {
      count++;
      emit(...a);
      if (count >= n) throw stop;
    });
  } catch (e) {
    if (e !== stop) throw e;
  }
}

define('limit', 2, ([n, g]) =>
  fromGen(
    (x, env, emit) =>
      n.gen(x, env, (nv) => {
        const k = num('limit', nv);
        // gojq: 0 → nothing, negative → all outputs
        if (k < 0) g.gen(x, env, emit);
        else limited(k, (e) => g.gen(x, env, e), emit);
      }),
    () => {
      const gp = g.path();
      return (x, p, env, emit) =>
        n.gen(x, env, (nv) => {
          const k = num('limit', nv);
          if (k < 0) gp(x, p, env, emit);
          else limited<[JqValue, Path]>(k, (e) => gp(x, p, env, e), emit);
        });
    },
  ),
);

define('first', 0, () => fromOne((x) => iterIndex(x, 0), () => (x, p, _env, emit) => emit(iterIndex(x, 0), [...p, 0])));
define('last', 0, () => fromOne((x) => iterIndex(x, -1), () => (x, p, _env, emit) => emit(iterIndex(x, -1), [...p, -1])));
define('nth', 1, ([n]) =>
  fromGen(
    (x, env, emit) => n.gen(x, env, (i) => emit(iterIndex(x, num('nth', i)))),
    () => (x, p, env, emit) => n.gen(x, env, (i) => emit(iterIndex(x, num('nth', i)), [...p, i as number])),
  ),
);

function iterIndex(x: JqValue, i: number): JqValue {
  if (x === null) return null;
  if (!Array.isArray(x)) return fail(`expected an array but got: ${typeErrorPreview(x)}`);
  const j = i < 0 ? x.length + Math.floor(i) : Math.floor(i);
  return j >= 0 && j < x.length ? x[j] : null;
}

define('first', 1, ([g]) =>
  fromGen(
    (x, env, emit) => limited(1, (e) => g.gen(x, env, e), emit),
    () => {
      const gp = g.path();
      return (x, p, env, emit) => limited<[JqValue, Path]>(1, (e) => gp(x, p, env, e), emit);
    },
  ),
);

define('last', 1, ([g]) =>
  fromGen(
    (x, env, emit) => {
      // gojq defines last(g) with reduce: null when g is empty
      let r: JqValue = null;
      g.gen(x, env, (v) => {
        r = v;
      });
      emit(r);
    },
    () => {
      const gp = g.path();
      return (x, p, env, emit) => {
        let r: [JqValue, Path] | null = null;
        gp(x, p, env, (v, q) => {
          r = [v, q];
        });
        if (r) emit(r[0], r[1]);
        else emit(null, p);
      };
    },
  ),
);

define('nth', 2, ([n, g]) =>
  fromGen(
    (x, env, emit) =>
      n.gen(x, env, (nv) => {
        const k = num('nth', nv);
        if (k < 0) fail("nth doesn't support negative indices");
        let i = 0;
        const stop = new StopSignal();
        try {
          g.gen(x, env, (v) => {
            if (i++ >= k) {
              emit(v);
              throw stop;
            }
          });
        } catch (e) {
          if (e !== stop) throw e;
        }
      }),
  ),
);

define('isempty', 1, ([g]) =>
  fromOne((x, env) => {
    let empty = true;
    each(g, x, env, () => {
      empty = false;
      return true;
    });
    return empty;
  }),
);

define('until', 2, ([cond, next]) =>
  fromGen((x, env, emit) => {
    if (cond.one && next.one) {
      // iterative form: long loops must not grow the JS stack
      let v = x;
      while (!truthy(cond.one(v, env))) {
        tick();
        v = next.one(v, env);
      }
      emit(v);
      return;
    }
    const rec = (v: JqValue): void => {
      tick();
      cond.gen(v, env, (c) => {
        if (truthy(c)) emit(v);
        else next.gen(v, env, rec);
      });
    };
    rec(x);
  }),
);

define('while', 2, ([cond, update]) =>
  fromGen(
    (x, env, emit) => {
      if (cond.one && update.one) {
        let v = x;
        while (truthy(cond.one(v, env))) {
          tick();
          emit(v);
          v = update.one(v, env);
        }
        return;
      }
      const rec = (v: JqValue): void => {
        tick();
        cond.gen(v, env, (c) => {
          if (truthy(c)) {
            emit(v);
            update.gen(v, env, rec);
          }
        });
      };
      rec(x);
    },
    () => {
      const up = update.path();
      return (x, p, env, emit) => {
        const rec = (v: JqValue, q: Path): void => {
          tick();
          cond.gen(v, env, (c) => {
            if (truthy(c)) {
              emit(v, q);
              up(v, q, env, rec);
            }
          });
        };
        rec(x, p);
      };
    },
  ),
);

// jq 1.7 and gojq: `def repeat(f): def _repeat: f, _repeat; _repeat;` — f applied to the same input, forever
// (until an error, a break or a limit stops it). A loop, not recursion.
define('repeat', 1, ([f]) =>
  fromGen((x, env, emit) => {
    for (;;) {
      tick();
      f.gen(x, env, emit);
    }
  }),
);

// ---- any / all -----------------------------------------------------------------------------------------------

function anyAll(isAny: boolean, gen: (x: JqValue, env: Env | null, emit: Emit) => void, cond: Compiled | null): Compiled {
  return fromOne((x, env) => {
    let found = false;
    const stop = new StopSignal();
    try {
      gen(x, env, (v) => {
        const check = (c: JqValue): void => {
          if (truthy(c) === isAny) {
            found = true;
            throw stop;
          }
        };
        if (!cond) check(v);
        else if (cond.one) check(cond.one(v, env));
        else cond.gen(v, env, check);
      });
    } catch (e) {
      if (e !== stop) throw e;
    }
    return isAny ? found : !found;
  });
}

const iterGen = (x: JqValue, _env: Env | null, emit: Emit): void => {
  for (const v of iterValues(x)) emit(v);
};
/** any/all over `.[]` with a single-output condition: a plain loop, no generator machinery. */
function anyAllValues(isAny: boolean, cond: Compiled | null): Compiled {
  if (cond && !cond.one) return anyAll(isAny, iterGen, cond);
  const co = cond?.one ?? null;
  return fromOne((x, env) => {
    const vs = iterValues(x);
    for (let i = 0; i < vs.length; i++) {
      if (truthy(co ? co(vs[i], env) : vs[i]) === isAny) return isAny;
    }
    return !isAny;
  });
}
define('any', 0, () => anyAllValues(true, null));
define('all', 0, () => anyAllValues(false, null));
define('any', 1, ([f]) => anyAllValues(true, f));
define('all', 1, ([f]) => anyAllValues(false, f));
define('any', 2, ([g, f]) => anyAll(true, g.gen, f));
define('all', 2, ([g, f]) => anyAll(false, g.gen, f));

// ---- paths ----------------------------------------------------------------------------------------------------

define('path', 1, ([f]) => fromGen((x, env, emit) => f.path()(x, [], env, (_v, p) => emit(p))));

define('paths', 0, () => fromGen((x, _env, emit) => allPaths(x, [], (p) => emit(p))));
define('paths', 1, ([f]) =>
  fromGen((x, env, emit) =>
    allPaths(x, [], (p, v) =>
      f.gen(v, env, (c) => {
        if (truthy(c)) emit(p);
      }),
    ),
  ),
);
define('leaf_paths', 0, () =>
  fromGen((x, _env, emit) =>
    allPaths(x, [], (p, v) => {
      if (v === null || typeof v !== 'object') emit(p);
    }),
  ),
);

const getpathPath = (ps: Compiled): PathGen => (x, p, env, emit) =>
  ps.gen(x, env, (pv) => {
    const path = arr('getpath', pv);
    let v: JqValue;
    try {
      v = getPath(x, path);
    } catch {
      // gojq: an unreachable path designates null rather than failing in path mode
      v = null;
    }
    emit(v, [...p, ...(path as Path)]);
  });
define('getpath', 1, ([ps]) => {
  const c = fromGen(
    (x, env, emit) => ps.gen(x, env, (pv) => emit(getPath(x, arr('getpath', pv)))),
    () => getpathPath(ps),
  );
  return c;
});
define('setpath', 2, (args) =>
  fromGen((x, env, emit) => withArgValues(args, x, env, ([p, v]) => emit(setPath(x, arr('setpath', p), v)))),
);
defineV('delpaths', 1, (x, [ps]) => delPaths(x, arr('delpaths', ps)));
define('del', 1, ([f]) => fromOne((x, env) => delPaths(x, collectPaths(f, x, env))));
define('pick', 1, ([f]) =>
  fromOne((x, env) => {
    let acc: JqValue = null;
    for (const p of collectPaths(f, x, env)) acc = setPath(acc, p, getPath(x, p));
    return acc;
  }),
);
define('to_entries', 0, () =>
  fromOne((x) => {
    if (Array.isArray(x)) return x.map((value, key) => ({ key, value }));
    if (isObject(x)) return objectKeys(x).map((key) => ({ key, value: x[key] }));
    return typeError('keys', x);
  }),
);

function fromEntries(x: JqValue): JqValue {
  const o: JqObject = {};
  for (const e of iterValues(x)) {
    if (!isObject(e)) return fail(`expected an object but got: ${typeErrorPreview(e)}`);
    // `.key // .k // .name // .Name // .K // .Key` (jq 1.7; gojq reads the key, Key, name and Name subset)
    let k: JqValue = null;
    for (const name of ['key', 'k', 'name', 'Name', 'K', 'Key']) {
      k = getKey(e, name);
      if (k !== null && k !== false) break;
    }
    if (typeof k !== 'string') return fail(`expected a string for object key but got: ${typeErrorPreview(k)}`);
    const v = hasKey(e, 'value') ? e.value : hasKey(e, 'v') ? e.v : getKey(e, 'Value');
    setKey(o, k, v);
  }
  return o;
}
define0('from_entries', fromEntries);
define('with_entries', 1, ([f]) =>
  fromOne((x, env) => {
    let entries: JqValue[];
    if (Array.isArray(x)) entries = x.map((value, key) => ({ key, value }));
    else if (isObject(x)) entries = objectKeys(x).map((key) => ({ key, value: x[key] }));
    else return typeError('keys', x);
    const mapped: JqValue[] = [];
    for (const e of entries) for (const r of collect(f, e, env)) mapped.push(r);
    return fromEntries(mapped);
  }),
);

define('map', 1, ([f]) => {
  if (f.one) {
    const fo = f.one;
    return fromOne((x, env) => {
      const vs = iterValues(x);
      const out = new Array<JqValue>(vs.length);
      for (let i = 0; i < vs.length; i++) out[i] = fo(vs[i], env);
      return out;
    });
  }
  return fromOne((x, env) => {
    const out: JqValue[] = [];
    for (const v of iterValues(x)) f.gen(v, env, (r) => void out.push(r));
    return out;
  });
});

define('map_values', 1, ([f]) =>
  fromOne((x, env) => {
    const paths: Path[] = Array.isArray(x) ? x.map((_v, i) => [i]) : isObject(x) ? objectKeys(x).map((k) => [k]) : (iterValues(x), []);
    return modify(x, paths, (old) => first(f, old, env));
  }),
);

// ---- types, lengths, keys -----------------------------------------------------------------------------------------

define0('type', (x) => typeOf(x));
define0('length', (x) => {
  if (x === null) return 0;
  switch (typeof x) {
    case 'boolean':
      return typeError('length', x);
    case 'number':
      return Math.abs(x);
    case 'string': {
      let n = 0;
      for (let i = 0; i < x.length; i++) {
        const c = x.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < x.length) i++;
        n++;
      }
      return n;
    }
    default:
      return Array.isArray(x) ? x.length : objectSize(x);
  }
});
define0('utf8bytelength', (x) => (typeof x === 'string' ? Buffer.byteLength(x, 'utf8') : typeError('utf8bytelength', x)));
define0('keys', (x) => {
  if (isObject(x)) return objectKeys(x);
  if (Array.isArray(x)) return x.map((_v, i) => i);
  return typeError('keys', x);
});

function has(x: JqValue, k: JqValue): boolean {
  if (isObject(x) && typeof k === 'string') return hasKey(x, k);
  if (Array.isArray(x) && typeof k === 'number') return k >= 0 && k < x.length;
  if (x === null) return false;
  return typeError1('has', x, k);
}
defineV('has', 1, (x, [k]) => has(x, k));
define('in', 1, ([o]) => fromGen((x, env, emit) => o.gen(x, env, (ov) => emit(has(ov, x)))));

/** Containment; a type mismatch is an error only at the top level (nested mismatches are just false). */
function containsValue(a: JqValue, b: JqValue): boolean | undefined {
  if (isObject(a) && isObject(b)) return objectKeys(b).every((k) => hasKey(a, k) && containsValue(a[k], b[k]) === true);
  if (Array.isArray(a) && Array.isArray(b)) return b.every((y) => a.some((x) => containsValue(x, y) === true));
  if (typeof a === 'string' && typeof b === 'string') return a.includes(b);
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a === b) return true;
  return undefined;
}

function contains(a: JqValue, b: JqValue): boolean {
  const r = containsValue(a, b);
  return r === undefined ? typeError1('contains', a, b) : r;
}
defineV('contains', 1, (x, [b]) => contains(x, b));
define('inside', 1, ([b]) => fromGen((x, env, emit) => b.gen(x, env, (bv) => emit(contains(bv, x)))));

define0('add', (x) => {
  if (x === null || typeof x !== 'object') return typeError('add', x);
  let acc: JqValue = null;
  for (const v of iterValues(x)) acc = addValues(acc, v);
  return acc;
});
define('add', 1, ([f]) =>
  fromOne((x, env) => {
    let acc: JqValue = null;
    f.gen(x, env, (v) => {
      acc = addValues(acc, v);
    });
    return acc;
  }),
);

// ---- numbers ------------------------------------------------------------------------------------------------------

const MATH1: Record<string, (n: number) => number> = {
  floor: Math.floor,
  ceil: Math.ceil,
  round: (n) => (n < 0 ? -Math.round(-n) : Math.round(n)),
  sqrt: Math.sqrt,
  fabs: Math.abs,
  trunc: Math.trunc,
  log: Math.log,
  log10: Math.log10,
  log2: Math.log2,
  log1p: Math.log1p,
  exp: Math.exp,
  exp2: (n) => 2 ** n,
  exp10: (n) => 10 ** n,
  expm1: Math.expm1,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  cbrt: Math.cbrt,
  significand: (n) => {
    if (n === 0 || !Number.isFinite(n)) return n;
    const e = Math.floor(Math.log2(Math.abs(n)));
    return n / 2 ** e;
  },
  logb: (n) => Math.floor(Math.log2(Math.abs(n))),
  nearbyint: (n) => {
    const r = Math.round(n);
    return Math.abs(n % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  },
  rint: (n) => {
    const r = Math.round(n);
    return Math.abs(n % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  },
};
for (const [name, f] of Object.entries(MATH1)) define0(name, (x) => f(num(name, x)));
define0('abs', (x) => (typeof x === 'number' ? (x < 0 ? -x : x) : typeError('abs', x)));
defineV('pow', 2, (_x, [a, b]) => Math.pow(num('pow', a), num('pow', b)));
defineV('atan2', 2, (_x, [a, b]) => Math.atan2(num('atan2', a), num('atan2', b)));
defineV('fmin', 2, (_x, [a, b]) => Math.min(num('fmin', a), num('fmin', b)));
defineV('fmax', 2, (_x, [a, b]) => Math.max(num('fmax', a), num('fmax', b)));
define0('infinite', () => Infinity);
define0('nan', () => NaN);
// gojq: isinfinite/isnormal are false for non-numbers, isnan is false for null.
define0('isinfinite', (x) => x === Infinity || x === -Infinity);
define0('isnan', (x) => (x === null ? false : Number.isNaN(num('isnan', x))));
define0('isnormal', (x) => typeof x === 'number' && isNormal(x));

const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
define0('tonumber', (x) => {
  if (typeof x === 'number') return x;
  if (typeof x === 'string') {
    // gojq accepts exactly its number literal syntax: no surrounding space, no sign other than a leading minus
    if (!NUMBER_TEXT.test(x)) return fail(`tonumber cannot be applied to: ${typeErrorPreview(x)}: invalid number`);
    return Number(x);
  }
  return typeError('tonumber', x);
});
define0('tostring', (x) => toString(x));
define0('tojson', (x) => encode(x));
define0('fromjson', (x) => {
  if (typeof x !== 'string') return typeError('fromjson', x);
  try {
    return JSON.parse(x) as JqValue;
  } catch {
    if (x.trim() === 'nan' || x.trim() === 'NaN') return NaN;
    return fail(`${x} (while parsing '${x}')`);
  }
});
define0('toarray', (x) => (Array.isArray(x) ? x : [x]));

// ---- environment and side-effect-free stand-ins ------------------------------------------------------------------

// The engine has no process access: `env` and `$ENV` are empty objects.
define0('env', () => ({}));
define0('input_filename', () => null);
// debug/stderr write to stderr in jq; the engine is pure, so they only pass the value through.
define0('debug', (x) => x);
define('debug', 1, () => fromOne((x) => x));
define0('stderr', (x) => x);

define('tostream', 0, () =>
    fromGen((x, _env, emit) => {
      const rec = (v: JqValue, p: JqValue[], top: boolean): void => {
        tick();
        if (v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : objectSize(v) > 0)) {
          const keys: Array<string | number> = Array.isArray(v) ? v.map((_x, i) => i) : objectKeys(v);
          for (const k of keys) rec(Array.isArray(v) ? v[k as number] : (v as JqObject)[k as string], [...p, k], false);
          emit([[...p, keys[keys.length - 1]]]);
        } else {
          emit([p, v]);
        }
        void top;
      };
      rec(x, [], true);
    }),
);

export { iterIndex };
