import type { Path } from './path-ops.ts';
import type { JqValue } from './values.ts';

/**
 * Runtime environment: a linked list of frames, one per variable binding, function definition, closure
 * parameter or label, in the same order as the compile-time scope, so lookups are a fixed number of `up` hops.
 */
export interface Env {
  /** variable value, or the label's break token */
  v: JqValue;
  /** closure parameter: the argument expression and the environment of the call site */
  c: Closure | null;
  up: Env | null;
}

export interface Closure {
  fn: Compiled;
  env: Env | null;
}

export type Emit = (v: JqValue) => void;
/** Evaluates a filter, calling `emit` once per output, in order. Errors are thrown. */
export type Gen = (input: JqValue, env: Env | null, emit: Emit) => void;
/** Fast path for filters that always produce exactly one output (or throw). */
export type One = (input: JqValue, env: Env | null) => JqValue;

export type PathEmit = (value: JqValue, path: Path) => void;
/** Path mode (`path(f)`, assignments): emits each output together with where it sits in the root value. */
export type PathGen = (input: JqValue, path: Path, env: Env | null, emit: PathEmit) => void;

export interface Compiled {
  gen: Gen;
  one: One | null;
  /** compiled on first use: most filters never run in path mode */
  path: () => PathGen;
}
