import { fail, preview, typeErrorPreview } from './errors.ts';
import { fromGen, fromOne, withArgValues } from './runtime.ts';
import type { Compiled, PathGen } from './types.ts';
import type { JqValue } from './values.ts';

/** A builtin receives its argument filters compiled in the caller's scope (jq closure parameters). */
export type BuiltinFactory = (args: Compiled[]) => Compiled;

const REGISTRY = new Map<string, BuiltinFactory>();

export function define(name: string, arity: number, f: BuiltinFactory): void {
  REGISTRY.set(`${name}/${arity}`, f);
}

export function lookup(name: string, arity: number): BuiltinFactory | undefined {
  return REGISTRY.get(`${name}/${arity}`);
}

/** Single-output builtin of the input only. */
export function define0(name: string, fn: (x: JqValue) => JqValue, path?: () => PathGen): void {
  const c = fromOne((x) => fn(x), path);
  define(name, 0, () => c);
}

/**
 * Builtin whose arguments are values (jq's `$param`): one output per combination of argument outputs, first
 * argument outermost.
 */
export function defineV(name: string, arity: number, fn: (x: JqValue, args: JqValue[]) => JqValue): void {
  define(name, arity, (args) => {
    if (args.every((a) => a.one)) {
      const ones = args.map((a) => a.one!);
      if (ones.length === 1) {
        const a0 = ones[0];
        return fromOne((x, env) => fn(x, [a0(x, env)]));
      }
      return fromOne((x, env) => fn(x, ones.map((o) => o(x, env))));
    }
    return fromGen((x, env, emit) => withArgValues(args, x, env, (vals) => emit(fn(x, vals))));
  });
}

export function typeError(name: string, v: JqValue): never {
  return fail(`${name} cannot be applied to: ${typeErrorPreview(v)}`);
}

/** gojq's message for a function applied to an input it does not accept, with its argument shown. */
export function typeError1(name: string, v: JqValue, arg: JqValue): never {
  return fail(`${name}(${preview(arg)}) cannot be applied to: ${typeErrorPreview(v)}`);
}

export function num(name: string, v: JqValue): number {
  return typeof v === 'number' ? v : typeError(name, v);
}

export function str(name: string, v: JqValue): string {
  return typeof v === 'string' ? v : typeError(name, v);
}

export function arr(name: string, v: JqValue): JqValue[] {
  return Array.isArray(v) ? v : typeError(name, v);
}
