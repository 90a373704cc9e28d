/**
 * A compiled expression bound to the definition field it came from, so that every runtime failure
 * names that field. Compiled once per definition; each evaluation is bounded in results, steps and bytes
 * built (deterministic budgets, no clock). A budget exceeded is an `expression.limit` failure (a sign
 * the definition itself is the problem: the live index quarantines cluster definitions that keep
 * hitting it), any other runtime error an `expression.runtime` one.
 */
import { compileJq, DEFAULT_JQ_LIMITS, JqError, type JqLimits, type JqProgram } from './jq/index.ts';
import { CelCostError, compileCel, type CelProgram } from './cel.ts';
import { EngineFailure, describeError } from './errors.ts';

export const DEFAULT_LIMITS: Required<JqLimits> = DEFAULT_JQ_LIMITS;

export interface BoundExpression {
  readonly path: string;
  readonly source: string;
  readonly dialect: 'jq' | 'cel';
  /** All outputs. Throws EngineFailure (code `expression.limit` or `expression.runtime`) naming the field and the object. */
  run(input: unknown, subject: string): unknown[];
  /** jq only: the paths the expression designates (for updates). */
  paths(input: unknown, subject: string): Array<Array<string | number>>;
}

export function bindExpression(path: string, source: string, dialect: 'jq' | 'cel' = 'jq', limits: JqLimits = DEFAULT_LIMITS): BoundExpression {
  const compiled = compileProgram(path, source, dialect);
  return bound(path, source, dialect, limits, () => compiled);
}

/**
 * The same, for a source this engine has compiled before (a checked definition): parsed at its first
 * evaluation, so that binding a whole definition costs nothing until a field is read. Should the
 * source not compile after all, that first evaluation fails with the `expression.compile` error
 * bindExpression would have thrown.
 */
export function bindCheckedExpression(path: string, source: string, dialect: 'jq' | 'cel' = 'jq', limits: JqLimits = DEFAULT_LIMITS): BoundExpression {
  let compiled: Compiled | undefined;
  return bound(path, source, dialect, limits, () => (compiled ??= compileProgram(path, source, dialect)));
}

type Compiled = { jq: JqProgram; cel?: undefined } | { jq?: undefined; cel: CelProgram };

function compileProgram(path: string, source: string, dialect: 'jq' | 'cel'): Compiled {
  try {
    return dialect === 'cel' ? { cel: compileCel(source) } : { jq: compileJq(source) };
  } catch (e) {
    throw new EngineFailure('expression.compile', `${path}: ${dialect} expression ${JSON.stringify(source)} does not compile: ${describeError(e)}`, path);
  }
}

function bound(path: string, source: string, dialect: 'jq' | 'cel', limits: JqLimits, program: () => Compiled): BoundExpression {
  const fail = (subject: string, e: unknown): never => {
    const overBudget = (e instanceof JqError && e.kind === 'limit') || e instanceof CelCostError || (e instanceof Error && e.cause instanceof CelCostError);
    throw new EngineFailure(overBudget ? 'expression.limit' : 'expression.runtime', `${path}: ${dialect} expression ${JSON.stringify(source)} failed on ${subject}: ${describeError(e)}`, path);
  };
  return {
    path,
    source,
    dialect,
    run(input, subject) {
      const { jq, cel } = program();
      try {
        if (jq) return jq.run(input, undefined, limits);
        return [cel!.run(input)];
      } catch (e) {
        return fail(subject, e);
      }
    },
    paths(input, subject) {
      const { jq } = program();
      if (!jq) return fail(subject, new Error('paths are only available for jq expressions'));
      try {
        return jq.paths(input, limits);
      } catch (e) {
        return fail(subject, e);
      }
    },
  };
}
