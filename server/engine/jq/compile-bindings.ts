/** Compilation of variables, patterns, reduce/foreach, labels, function definitions and calls. */
import type { NodeOf, Pattern } from './ast.ts';
import { lookupBuiltin } from './builtins.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { indexNumber } from './ops.ts';
import type { Path } from './path-ops.ts';
import { BreakSignal, fromGen, fromOne, invalidPath, push, rt, tick, walkEnv } from './runtime.ts';
import type { Compiled, Env, Gen, PathGen } from './types.ts';
import type { JqValue } from './values.ts';
import { getKey, isObject } from './values.ts';
import type { FuncInfo, Scope } from './scope.ts';
import { compileError, extend } from './scope.ts';
import type { Compiler } from './compile.ts';

/** Variables a pattern binds, in binding order (the order frames are pushed). */
export function patternVars(p: Pattern, out: string[] = []): string[] {
  if (p.t === 'pvar') out.push(p.name);
  else if (p.t === 'parray') for (const it of p.items) patternVars(it, out);
  else
    for (const e of p.entries) {
      if (e.keyVar !== undefined) out.push(e.keyVar);
      if (e.value) patternVars(e.value, out);
    }
  return out;
}

// -- variables and bindings ----------------------------------------------------------------------------------

/** Compiles a pattern into a binder that pushes one frame per variable (in patternVars order). */
export function compilePattern(c: Compiler, p: Pattern, scope: Scope | null): (v: JqValue, env: Env | null, k: (env: Env | null) => void) => void {
  if (p.t === 'pvar') return (v, env, k) => k(push(env, v));
  if (p.t === 'parray') {
    const items = p.items.map((it) => compilePattern(c, it, scope));
    return (v, env, k) => {
      if (v !== null && !Array.isArray(v)) fail(`expected an array but got: ${typeErrorPreview(v)}`);
      const rec = (i: number, e: Env | null): void => {
        if (i === items.length) k(e);
        else items[i](indexNumber(v, i), e, (e2) => rec(i + 1, e2));
      };
      rec(0, env);
    };
  }
  // Key expressions see the variables bound so far, hence the running scope.
  let running = scope;
  const entries = p.entries.map((en) => {
    const key = c.compile(en.key, running);
    if (en.keyVar !== undefined) running = extend(running, { kind: 'var', name: en.keyVar });
    const value = en.value ? compilePattern(c, en.value, running) : null;
    if (en.value) for (const name of patternVars(en.value)) running = extend(running, { kind: 'var', name });
    return { key, keyVar: en.keyVar, value };
  });
  return (v, env, k) => {
    if (v !== null && !isObject(v)) fail(`expected an object but got: ${typeErrorPreview(v)}`);
    const rec = (i: number, e: Env | null): void => {
      if (i === entries.length) {
        k(e);
        return;
      }
      const en = entries[i];
      en.key.gen(v, e, (kv) => {
        if (typeof kv !== 'string') fail(`expected a string for object key but got: ${typeErrorPreview(kv)}`);
        const val = v === null ? null : getKey(v, kv);
        const e1 = en.keyVar !== undefined ? push(e, val) : e;
        if (en.value) en.value(val, e1, (e2) => rec(i + 1, e2));
        else rec(i + 1, e1);
      });
    };
    rec(0, env);
  };
}

export function scopeWithPattern(scope: Scope | null, p: Pattern): Scope | null {
  let s = scope;
  for (const name of patternVars(p)) s = extend(s, { kind: 'var', name });
  return s;
}

export function compileBind(c: Compiler, node: NodeOf<'bind'>, scope: Scope | null): Compiled {
  const src = c.compile(node.source, scope);
  const bodyScope = scopeWithPattern(scope, node.pattern);
  const body = c.compile(node.body, bodyScope);
  const path = (): PathGen => {
    const bp = body.path();
    const bind = compilePattern(c, node.pattern, scope);
    return (x, p, env, emit) => src.gen(x, env, (v) => bind(v, env, (e) => bp(x, p, e, emit)));
  };
  if (node.pattern.t === 'pvar') {
    if (src.one && body.one) {
      const so = src.one;
      const bo = body.one;
      return fromOne((x, env) => bo(x, push(env, so(x, env))), path);
    }
    if (src.one) {
      const so = src.one;
      return fromGen((x, env, emit) => body.gen(x, push(env, so(x, env)), emit), path);
    }
    return fromGen((x, env, emit) => src.gen(x, env, (v) => body.gen(x, push(env, v), emit)), path);
  }
  const bind = compilePattern(c, node.pattern, scope);
  return fromGen((x, env, emit) => src.gen(x, env, (v) => bind(v, env, (e) => body.gen(x, e, emit))), path);
}

export function compileReduce(c: Compiler, node: NodeOf<'reduce'>, scope: Scope | null): Compiled {
  const src = c.compile(node.source, scope);
  const init = c.compile(node.init, scope);
  const update = c.compile(node.update, scopeWithPattern(scope, node.pattern));
  const bind = compilePattern(c, node.pattern, scope);
  const run = (x: JqValue, env: Env | null, start: JqValue): JqValue => {
    let acc = start;
    src.gen(x, env, (v) =>
      bind(v, env, (e) => {
        tick();
        // the state becomes the last output of the update, or null when it has none
        let last: JqValue = null;
        if (update.one) last = update.one(acc, e);
        else update.gen(acc, e, (u) => {
          last = u;
        });
        acc = last;
      }),
    );
    return acc;
  };
  const path = (): PathGen => {
    const ip = init.path();
    const up = update.path();
    return (x, p, env, emit) =>
      ip(x, p, env, (v0, p0) => {
        let acc = v0;
        let accPath = p0;
        src.gen(x, env, (v) =>
          bind(v, env, (e) => {
            tick();
            let lv: JqValue = null;
            let lp: Path | null = null;
            up(acc, accPath, e, (u, q) => {
              lv = u;
              lp = q;
            });
            if (lp === null) invalidPath(null);
            acc = lv;
            accPath = lp;
          }),
        );
        emit(acc, accPath);
      });
  };
  if (init.one) {
    const io = init.one;
    return fromOne((x, env) => run(x, env, io(x, env)), path);
  }
  return fromGen((x, env, emit) => init.gen(x, env, (s) => emit(run(x, env, s))), path);
}

export function compileForeach(c: Compiler, node: NodeOf<'foreach'>, scope: Scope | null): Compiled {
  const src = c.compile(node.source, scope);
  const init = c.compile(node.init, scope);
  const inner = scopeWithPattern(scope, node.pattern);
  const update = c.compile(node.update, inner);
  const extract = node.extract ? c.compile(node.extract, inner) : null;
  const bind = compilePattern(c, node.pattern, scope);
  return fromGen(
    (x, env, emit) =>
      init.gen(x, env, (start) => {
        let acc = start;
        src.gen(x, env, (v) =>
          bind(v, env, (e) => {
            tick();
            update.gen(acc, e, (u) => {
              acc = u;
              if (extract) extract.gen(u, e, emit);
              else emit(u);
            });
          }),
        );
      }),
    () => {
      const ip = init.path();
      const up = update.path();
      const xp = extract ? extract.path() : null;
      return (x, p, env, emit) =>
        ip(x, p, env, (v0, p0) => {
          let acc = v0;
          let accPath = p0;
          src.gen(x, env, (v) =>
            bind(v, env, (e) => {
              tick();
              up(acc, accPath, e, (u, q) => {
                acc = u;
                accPath = q;
                if (xp) xp(u, q, e, emit);
                else emit(u, q);
              });
            }),
          );
        });
    },
  );
}

export function compileVar(c: Compiler, node: NodeOf<'var'>, scope: Scope | null): Compiled {
  let depth = 0;
  for (let s = scope; s; s = s.up, depth++) {
    if (s.e.kind === 'var' && s.e.name === node.name) {
      const d = depth;
      if (d === 0) return fromOne((_x, env) => env!.v);
      if (d === 1) return fromOne((_x, env) => env!.up!.v);
      return fromOne((_x, env) => walkEnv(env, d).v);
    }
  }
  if (node.name === 'ENV') return fromOne(() => ({}));
  const name = node.name;
  // Variables given to run() are not known when compiling (programs are cached by source text).
  return fromOne(() => {
    const v = rt.vars[name];
    if (v === undefined) return fail(`variable not defined: $${name}`);
    return v;
  });
}

export function compileLabel(c: Compiler, node: NodeOf<'label'>, scope: Scope | null): Compiled {
  const body = c.compile(node.body, extend(scope, { kind: 'label', name: node.name }));
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

export function compileBreak(c: Compiler, node: NodeOf<'break'>, scope: Scope | null): Compiled {
  let depth = 0;
  for (let s = scope; s; s = s.up, depth++) {
    if (s.e.kind === 'label' && s.e.name === node.name) {
      const d = depth;
      const gen: Gen = (_x, env) => {
        throw new BreakSignal(walkEnv(env, d).v as object);
      };
      return fromGen(gen, () => (_x, _p, env) => {
        throw new BreakSignal(walkEnv(env, d).v as object);
      });
    }
  }
  return compileError(`label not defined: $${node.name}`, node.pos);
}

// -- functions -----------------------------------------------------------------------------------------------

export function compileFuncDef(c: Compiler, node: NodeOf<'funcdef'>, scope: Scope | null): Compiled {
  const info: FuncInfo = { name: node.name, params: node.params, compiled: null };
  const defScope = extend(scope, { kind: 'func', name: node.name, arity: node.params.length, info });
  let bodyScope: Scope = defScope;
  for (const p of node.params) bodyScope = extend(bodyScope, { kind: 'param', name: p });
  info.compiled = c.compile(node.body, bodyScope);
  const rest = c.compile(node.rest, defScope);
  const frame = (env: Env | null): Env => ({ v: null, c: null, up: env });
  if (rest.one) {
    const ro = rest.one;
    return fromOne((x, env) => ro(x, frame(env)), () => {
      const rp = rest.path();
      return (x, p, env, emit) => rp(x, p, frame(env), emit);
    });
  }
  return fromGen(
    (x, env, emit) => rest.gen(x, frame(env), emit),
    () => {
      const rp = rest.path();
      return (x, p, env, emit) => rp(x, p, frame(env), emit);
    },
  );
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
      return fromGen(
        (x, env, emit) => {
          tick();
          info.compiled!.gen(x, bodyEnv(env), emit);
        },
        () => (x, p, env, emit) => {
          tick();
          info.compiled!.path()(x, p, bodyEnv(env), emit);
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
