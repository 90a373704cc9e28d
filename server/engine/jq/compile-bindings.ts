/** Compilation of variables and bindings: `$x`, destructuring patterns, and `SOURCE as $pattern | BODY`. */
import type { NodeOf, Pattern } from './ast.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { indexNumber } from './ops.ts';
import { fromGen, fromOne, push, rt, walkEnv } from './runtime.ts';
import type { Compiled, Env, PathGen } from './types.ts';
import type { JqValue } from './values.ts';
import { getKey, isObject } from './values.ts';
import type { Scope } from './scope.ts';
import { depthOf, extend } from './scope.ts';
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

/** Binds a value to a pattern: calls `k` with the environment of each way the value matches. */
export type Binder = (v: JqValue, env: Env | null, k: (env: Env | null) => void) => void;

/** Compiles a pattern into a binder that pushes one frame per variable (in patternVars order). */
export function compilePattern(c: Compiler, p: Pattern, scope: Scope | null): Binder {
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

export function compileVar(_c: Compiler, node: NodeOf<'var'>, scope: Scope | null): Compiled {
  const d = depthOf(scope, 'var', node.name);
  if (d === 0) return fromOne((_x, env) => env!.v);
  if (d === 1) return fromOne((_x, env) => env!.up!.v);
  if (d > 1) return fromOne((_x, env) => walkEnv(env, d).v);
  if (node.name === 'ENV') return fromOne(() => ({}));
  const name = node.name;
  // Variables given to run() are not known when compiling (programs are cached by source text).
  return fromOne(() => {
    const v = rt.vars[name];
    if (v === undefined) return fail(`variable not defined: $${name}`);
    return v;
  });
}

