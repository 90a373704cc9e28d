/**
 * CEL, the Kubernetes-native expression language, as a second dialect for status expressions
 * (`byExpression.language: cel`, with the workload bound to `self`) and for filter expressions.
 * JSON integers are handed to CEL as ints (BigInt), as Kubernetes does, so `self.spec.replicas + 1` works.
 * Expressions are untrusted: bounded in size, nesting and cost, with RE2 regular expressions
 * (lib/cel/bounded.ts); a cost error is thrown like any other evaluation error.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { celEnvironment, compileBounded } from '../../lib/cel/bounded.ts';
import { fromCelValue, toCelValue } from '../../lib/cel/values.ts';

export { CelCostError } from '../../lib/cel/bounded.ts';

export interface CelProgram {
  readonly source: string;
  run(input: unknown): unknown;
}

const environments = new Map<string, Environment>();

function environmentFor(variable: string): Environment {
  let env = environments.get(variable);
  if (!env) {
    env = celEnvironment({ variables: [variable] });
    environments.set(variable, env);
  }
  return env;
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0];
}

/** Problems found before evaluation (syntax, unknown variables or functions, cost); [] when fine. */
export function checkCel(source: string, variable = 'self'): string[] {
  const c = compileBounded(environmentFor(variable), source);
  return c.ok ? [] : [firstLine(c.error)];
}

/** Compiles once; `run` takes a JSON value (converted to CEL values) and returns a JSON-safe result. Throws on errors. */
export function compileCel(source: string, variable = 'self', options: { convertInput?: boolean } = {}): CelProgram {
  const c = compileBounded(environmentFor(variable), source);
  if (!c.ok) throw new Error(`CEL: ${firstLine(c.error)}`);
  const program = c.program;
  const convert = options.convertInput !== false;
  return {
    source,
    run(input: unknown): unknown {
      const value = convert ? toCelValue(input) : input;
      try {
        return fromCelValue(program.evaluate({ [variable]: value }));
      } catch (e) {
        throw new Error(`CEL evaluation failed: ${firstLine(e)}`, { cause: e });
      }
    },
  };
}
