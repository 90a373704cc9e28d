/**
 * The jq subset evaluator: gojq semantics, compiled once per source text into closures.
 * Public surface of `server/engine/jq`.
 */
export type { JqValue } from './values.ts';
export type { JqLimits, JqProgram } from './program.ts';
export { JqError } from './errors.ts';
export type { JqErrorKind } from './errors.ts';
export { compileJq } from './program.ts';
export { checkExpression } from './validate.ts';

import { compare, fromInput, toString } from './values.ts';

/** jq's `tostring` (strings unchanged, numbers shortest form, objects/arrays compact JSON with keys sorted). */
export function jqToString(v: unknown): string {
  return toString(fromInput(v));
}

/** jq's total order (null < false < true < numbers < strings < arrays < objects). */
export function jqCompare(a: unknown, b: unknown): number {
  return compare(fromInput(a), fromInput(b));
}
