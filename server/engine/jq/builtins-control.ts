/**
 * Control-flow builtins: empty, error, select and the type filters, range, limit, first/last/nth, until, while,
 * repeat, isempty, any/all. Functions jq defines in jq are native here, with the same output order.
 */
import { define, define0, num, typeError } from './builtin-registry.ts';
import { fail, JqRuntimeError, typeErrorPreview } from './errors.ts';
import { iterValues } from './ops.ts';
import type { Path } from './path-ops.ts';
import { enter, leave } from './budget.ts';
import { each, fromGen, fromOne, StopSignal, tick, withArgValues } from './runtime.ts';
import type { Compiled, Emit, Env } from './types.ts';
import type { JqValue } from './values.ts';
import { isNormal, isObject, truthy } from './values.ts';

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
      enter();
      try {
        cond.gen(v, env, (c) => {
          if (truthy(c)) emit(v);
          else next.gen(v, env, rec);
        });
      } finally {
        leave();
      }
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
        enter();
        try {
          cond.gen(v, env, (c) => {
            if (truthy(c)) {
              emit(v);
              update.gen(v, env, rec);
            }
          });
        } finally {
          leave();
        }
      };
      rec(x);
    },
    () => {
      const up = update.path();
      return (x, p, env, emit) => {
        const rec = (v: JqValue, q: Path): void => {
          tick();
          enter();
          try {
            cond.gen(v, env, (c) => {
              if (truthy(c)) {
                emit(v, q);
                up(v, q, env, rec);
              }
            });
          } finally {
            leave();
          }
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
