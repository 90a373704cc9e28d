/** Recursion and path builtins: recurse, walk, path, paths, getpath/setpath/delpaths, del, entries, map, map_values. */
import { arr, define, define0, defineV, typeError } from './builtin-registry.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { iterError, iterValues } from './ops.ts';
import type { Path } from './path-ops.ts';
import { allPaths, delPaths, getPath, setPath } from './path-ops.ts';
import { alloc, checkDepth, enter, leave, SLOT } from './budget.ts';
import { collect, collectPaths, fromGen, fromOne, StopSignal, tick, withArgValues } from './runtime.ts';
import type { Compiled, Emit, Env, PathEmit, PathGen } from './types.ts';
import type { JqObject, JqValue } from './values.ts';
import { getKey, hasKey, isObject, objectKeys, objectSize, setKey, truthy } from './values.ts';

// ---- recursion -----------------------------------------------------------------------------------------------

function recurseChildren(v: JqValue, emit: Emit, level: number): void {
  tick();
  checkDepth(level);
  emit(v);
  if (Array.isArray(v)) for (const c of v) recurseChildren(c, emit, level + 1);
  else if (isObject(v)) for (const k of objectKeys(v)) recurseChildren(v[k], emit, level + 1);
}

function recurseChildrenPath(v: JqValue, p: Path, emit: PathEmit): void {
  tick();
  checkDepth(p.length);
  emit(v, p);
  const bytes = (p.length + 1) * SLOT;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      alloc(bytes);
      recurseChildrenPath(v[i], [...p, i], emit);
    }
  } else if (isObject(v)) {
    for (const k of objectKeys(v)) {
      alloc(bytes);
      recurseChildrenPath(v[k], [...p, k], emit);
    }
  }
}

const RECURSE: Compiled = fromGen(
  (x, _env, emit) => recurseChildren(x, emit, 0),
  () => (x, p, _env, emit) => recurseChildrenPath(x, p, emit),
);
define('recurse', 0, () => RECURSE);

/** `recurse(f)` is `def r: ., (f | r); r`; `recurse(f; cond)` is `def r: ., (f | select(cond) | r); r`. */
function recurseBy(f: Compiled, cond: Compiled | null): Compiled {
  return fromGen(
    (x, env, emit) => {
      const rec = (v: JqValue): void => {
        tick();
        emit(v);
        enter();
        try {
          f.gen(v, env, next);
        } finally {
          leave();
        }
      };
      const next: Emit = cond
        ? (u) =>
            cond.gen(u, env, (c) => {
              if (truthy(c)) rec(u);
            })
        : rec;
      rec(x);
    },
    () => {
      const fp = f.path();
      return (x, p, env, emit) => {
        const rec = (v: JqValue, q: Path): void => {
          tick();
          emit(v, q);
          enter();
          try {
            fp(v, q, env, next);
          } finally {
            leave();
          }
        };
        const next: PathEmit = cond
          ? (u, r) =>
              cond.gen(u, env, (c) => {
                if (truthy(c)) rec(u, r);
              })
          : rec;
        rec(x, p);
      };
    },
  );
}
define('recurse', 1, ([f]) => recurseBy(f, null));
define('recurse', 2, ([f, cond]) => recurseBy(f, cond));

define('walk', 1, ([f]) => {
  const walk = (v: JqValue, env: Env | null, emit: Emit, level: number): void => {
    tick();
    checkDepth(level);
    let nv: JqValue = v;
    if (Array.isArray(v)) {
      alloc(v.length * SLOT);
      const out: JqValue[] = [];
      for (const c of v) {
        const r = firstOf((e) => walk(c, env, e, level + 1));
        if (r !== undefined) out.push(r);
      }
      nv = out;
    } else if (isObject(v)) {
      const o: JqObject = {};
      const keys = objectKeys(v);
      alloc(keys.length * SLOT);
      for (const k of keys) {
        const r = firstOf((e) => walk(v[k], env, e, level + 1));
        if (r !== undefined) setKey(o, k, r);
      }
      nv = o;
    }
    f.gen(nv, env, emit);
  };
  if (f.one) {
    // single-output f: no generator machinery (stopping one with an exception per child is slow)
    const fo = f.one;
    const walkOne = (v: JqValue, env: Env | null, level: number): JqValue => {
      tick();
      checkDepth(level);
      if (Array.isArray(v)) {
        alloc(v.length * SLOT);
        const out = new Array<JqValue>(v.length);
        for (let i = 0; i < v.length; i++) out[i] = walkOne(v[i], env, level + 1);
        return fo(out, env);
      }
      if (isObject(v)) {
        const keys = objectKeys(v);
        alloc(keys.length * SLOT);
        const o: JqObject = {};
        for (const k of keys) setKey(o, k, walkOne(v[k], env, level + 1));
        return fo(o, env);
      }
      return fo(v, env);
    };
    return fromOne((x, env) => walkOne(x, env, 0));
  }
  return fromGen((x, env, emit) => walk(x, env, emit, 0));
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
    alloc((p.length + path.length) * SLOT);
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
/** `{key, value}` entries of an array or object (charged: SLOT for the slot, two for the entry object). */
function entriesOf(x: JqValue): JqValue[] {
  if (Array.isArray(x)) {
    alloc(x.length * 3 * SLOT);
    return x.map((value, key) => ({ key, value }));
  }
  if (isObject(x)) {
    const keys = objectKeys(x);
    alloc(keys.length * 3 * SLOT);
    return keys.map((key) => ({ key, value: x[key] }));
  }
  return typeError('keys', x);
}
define0('to_entries', entriesOf);

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
    alloc(SLOT);
    setKey(o, k, v);
  }
  return o;
}
define0('from_entries', fromEntries);
define('with_entries', 1, ([f]) =>
  fromOne((x, env) => {
    const mapped: JqValue[] = [];
    for (const e of entriesOf(x)) for (const r of collect(f, e, env)) mapped.push(r);
    return fromEntries(mapped);
  }),
);

define('map', 1, ([f]) => {
  if (f.one) {
    const fo = f.one;
    return fromOne((x, env) => {
      const vs = iterValues(x);
      alloc(vs.length * SLOT);
      const out = new Array<JqValue>(vs.length);
      for (let i = 0; i < vs.length; i++) out[i] = fo(vs[i], env);
      return out;
    });
  }
  return fromOne((x, env) => {
    const out: JqValue[] = [];
    for (const v of iterValues(x)) {
      f.gen(v, env, (r) => {
        alloc(SLOT);
        out.push(r);
      });
    }
    return out;
  });
});

define('map_values', 1, ([f]) =>
  fromOne((x, env) => {
    // `.[] |= f`: every child becomes the first output of f, children for which f is empty are dropped; built
    // in one pass (updating path by path copies the container once per child). Non-containers fail like `.[]`.
    if (Array.isArray(x)) {
      alloc(x.length * SLOT);
      const out: JqValue[] = [];
      for (const v of x) {
        const r = firstOf((e) => f.gen(v, env, e));
        if (r !== undefined) out.push(r);
      }
      return out;
    }
    if (!isObject(x)) return iterError(x);
    const keys = objectKeys(x);
    alloc(keys.length * SLOT);
    const o: JqObject = {};
    for (const k of keys) {
      const r = firstOf((e) => f.gen(x[k], env, e));
      if (r !== undefined) setKey(o, k, r);
    }
    return o;
  }),
);

/** `[path, leaf]` events, and `[path-of-last-child]` closing each non-empty container (jq's tostream). */
define('tostream', 0, () =>
  fromGen((x, _env, emit) => {
    const rec = (v: JqValue, p: JqValue[]): void => {
      tick();
      if (v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : objectSize(v) > 0)) {
        const keys: Array<string | number> = Array.isArray(v) ? v.map((_x, i) => i) : objectKeys(v);
        checkDepth(p.length);
        const bytes = (p.length + 3) * SLOT;
        for (const k of keys) {
          alloc(bytes);
          rec(Array.isArray(v) ? v[k as number] : (v as JqObject)[k as string], [...p, k]);
        }
        alloc(bytes);
        emit([[...p, keys[keys.length - 1]]]);
      } else {
        alloc(2 * SLOT);
        emit([p, v]);
      }
    };
    rec(x, []);
  }),
);
