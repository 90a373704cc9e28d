/** Compilation of value constructors: literals, formats, strings with interpolation, arrays and objects. */
import type { NodeOf, ObjectEntry } from './ast.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { formatValue, hasFormat } from './formats.ts';
import { alloc, SLOT, tick } from './budget.ts';
import { fromGen, fromOne } from './runtime.ts';
import type { Compiled } from './types.ts';
import type { JqObject, JqValue } from './values.ts';
import { setKey, toString } from './values.ts';
import { compileVar } from './compile-bindings.ts';
import type { Compiler } from './compile.ts';
import type { Scope } from './scope.ts';
import { compileError } from './scope.ts';

export function compileLiteral(_c: Compiler, node: NodeOf<'literal'>): Compiled {
  const v = node.value;
  return fromOne(() => v);
}

export function compileFormat(_c: Compiler, node: NodeOf<'format'>): Compiled {
  const name = node.name;
  if (!hasFormat(name)) compileError(`format not defined: @${name}`, node.pos);
  return fromOne((x) => formatValue(name, x));
}

export function compileString(c: Compiler, node: NodeOf<'string'>, scope: Scope | null): Compiled {
  const format = node.format ?? 'text';
  if (!hasFormat(format)) compileError(`format not defined: @${format}`, node.pos);
  const parts = node.parts.map((p) => (typeof p === 'string' ? p : c.compile(p, scope)));
  const fmt = (v: JqValue): string => (format === 'text' ? toString(v) : (formatValue(format, v) as string));
  if (parts.every((p) => typeof p === 'string' || p.one)) {
    const ones = parts.map((p) => (typeof p === 'string' ? p : p.one!));
    return fromOne((x, env) => {
      let s = '';
      for (const p of ones) s += typeof p === 'string' ? p : fmt(p(x, env));
      alloc(s.length);
      return s;
    });
  }
  // jq builds interpolations with `+`, whose right operand is the outer loop: the last part varies slowest.
  return fromGen((x, env, emit) => {
    const rec = (i: number, suffix: string): void => {
      if (i < 0) {
        alloc(suffix.length);
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

export function compileArray(c: Compiler, node: NodeOf<'array'>, scope: Scope | null): Compiled {
  if (!node.body) return fromOne(() => []);
  const body = c.compile(node.body, scope);
  if (body.one) {
    const one = body.one;
    return fromOne((x, env) => {
      alloc(SLOT);
      return [one(x, env)];
    });
  }
  const bgen = body.gen;
  return fromOne((x, env) => {
    const out: JqValue[] = [];
    bgen(x, env, (v) => {
      alloc(SLOT);
      out.push(v);
    });
    return out;
  });
}

export function compileObject(c: Compiler, node: NodeOf<'object'>, scope: Scope | null): Compiled {
  type E = { key: string | Compiled; value: Compiled };
  const entries: E[] = node.entries.map((en: ObjectEntry) => {
    let value: Compiled;
    if (en.value) value = c.compile(en.value, scope);
    else if (en.varName !== undefined) value = compileVar(c, { t: 'var', name: en.varName, pos: node.pos }, scope);
    else if (typeof en.key === 'string') value = c.compile({ t: 'field', target: { t: 'identity', pos: node.pos }, name: en.key, pos: node.pos }, scope);
    else value = c.compile({ t: 'index', target: { t: 'identity', pos: node.pos }, index: en.key, pos: node.pos }, scope);
    const key = typeof en.key === 'string' ? en.key : c.compile(en.key, scope);
    return { key, value };
  });
  const checkKey = (k: JqValue): string => (typeof k === 'string' ? k : fail(`expected a string for object key but got: ${typeErrorPreview(k)}`));
  if (entries.every((e) => (typeof e.key === 'string' || e.key.one) && e.value.one)) {
    const ks = entries.map((e) => (typeof e.key === 'string' ? e.key : e.key.one!));
    const vs = entries.map((e) => e.value.one!);
    const bytes = ks.length * SLOT;
    return fromOne((x, env) => {
      alloc(bytes);
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
        tick();
        alloc(entries.length * SLOT);
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
