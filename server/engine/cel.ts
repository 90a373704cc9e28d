/**
 * CEL, the Kubernetes-native expression language, as a second dialect for status expressions
 * (`byExpression.language: cel`, with the workload bound to `self`) and for filter expressions.
 * JSON integers are handed to CEL as ints (BigInt), as Kubernetes does, so `self.spec.replicas + 1` works.
 */
import { Environment } from '@marcbachmann/cel-js';
import { fromCelValue, toCelValue } from '../../lib/cel/values.ts';

export interface CelProgram {
  readonly source: string;
  run(input: unknown): unknown;
}

const environments = new Map<string, Environment>();

function environmentFor(variable: string): Environment {
  let env = environments.get(variable);
  if (!env) {
    env = new Environment({
      unlistedVariablesAreDyn: false,
      enableOptionalTypes: true,
      homogeneousAggregateLiterals: false,
      // Untrusted expressions are bounded in size and nesting.
      limits: { maxAstNodes: 2000, maxDepth: 64 },
    }).registerVariable(variable, 'dyn');
    environments.set(variable, env);
  }
  return env;
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0];
}

/** Problems found before evaluation (syntax, unknown variables or functions); [] when fine. */
export function checkCel(source: string, variable = 'self'): string[] {
  try {
    const r = environmentFor(variable).check(source);
    return r.valid ? [] : [firstLine(r.error)];
  } catch (e) {
    return [firstLine(e)];
  }
}

/** Compiles once; `run` takes a JSON value (converted to CEL values) and returns a JSON-safe result. Throws on errors. */
export function compileCel(source: string, variable = 'self', options: { convertInput?: boolean } = {}): CelProgram {
  const env = environmentFor(variable);
  let fn: (ctx: Record<string, unknown>) => unknown;
  try {
    fn = env.parse(source) as unknown as (ctx: Record<string, unknown>) => unknown;
  } catch (e) {
    throw new Error(`CEL syntax error: ${firstLine(e)}`, { cause: e });
  }
  const convert = options.convertInput !== false;
  return {
    source,
    run(input: unknown): unknown {
      try {
        return fromCelValue(fn({ [variable]: convert ? toCelValue(input) : input }));
      } catch (e) {
        throw new Error(`CEL evaluation failed: ${firstLine(e)}`, { cause: e });
      }
    },
  };
}
