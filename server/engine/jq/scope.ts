import type { Compiled } from './types.ts';
import { JqError } from './errors.ts';

/**
 * Compile-time scope: one entry per variable, function definition, closure parameter or label, mirroring the
 * runtime Env frames one to one, so that a name resolves to a fixed number of `up` hops.
 */
export interface FuncInfo {
  name: string;
  params: string[];
  compiled: Compiled | null;
}

export type Entry =
  | { kind: 'var'; name: string }
  | { kind: 'param'; name: string }
  | { kind: 'func'; name: string; arity: number; info: FuncInfo }
  | { kind: 'label'; name: string };

export interface Scope {
  e: Entry;
  up: Scope | null;
}

export function extend(scope: Scope | null, e: Entry): Scope {
  return { e, up: scope };
}

export function compileError(message: string, pos: number): never {
  throw new JqError('compile', message, pos);
}

/** How many frames up the innermost variable or label `name` is (the Env mirrors the scope), or -1. */
export function depthOf(scope: Scope | null, kind: 'var' | 'label', name: string): number {
  let depth = 0;
  for (let s = scope; s; s = s.up, depth++) if (s.e.kind === kind && s.e.name === name) return depth;
  return -1;
}
