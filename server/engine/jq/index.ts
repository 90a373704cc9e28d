/**
 * The jq subset evaluator: gojq semantics, compiled once per source text into closures.
 * Public surface of `server/engine/jq`.
 */
export type { JqValue } from './values.ts';
export type { JqLimits, JqProgram } from './program.ts';
export { JqError } from './errors.ts';
export type { JqErrorKind } from './errors.ts';
export { compileJq, DEFAULT_JQ_LIMITS } from './program.ts';
export { recordParsedTrees, useParsedTrees } from './parsed-store.ts';
export { checkExpression } from './validate.ts';
export { MAX_CALL_DEPTH as JQ_MAX_CALL_DEPTH, MAX_DEPTH as JQ_MAX_DEPTH } from './budget.ts';

import { liftBudget, peakUsage } from './budget.ts';

/** The most steps and bytes any one evaluation used since the last reset (measuring definitions against the budgets). */
export function jqPeakUsage(): { steps: number; bytes: number } {
  return { ...peakUsage };
}

export function resetJqPeakUsage(): void {
  peakUsage.steps = 0;
  peakUsage.bytes = 0;
}

import { compare, fromInput, toString } from './values.ts';

/** jq's `tostring` (strings unchanged, numbers shortest form, objects/arrays compact JSON with keys sorted). */
export function jqToString(v: unknown): string {
  liftBudget();
  return toString(fromInput(v));
}

/** jq's total order (null < false < true < numbers < strings < arrays < objects). */
export function jqCompare(a: unknown, b: unknown): number {
  liftBudget();
  return compare(fromInput(a), fromInput(b));
}
