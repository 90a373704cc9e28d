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
