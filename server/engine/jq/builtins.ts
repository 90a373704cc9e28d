/** The builtin table. Importing the modules registers their functions. */
import './builtins-control.ts';
import './builtins-paths.ts';
import './builtins-values.ts';
import './builtins-data.ts';
import type { BuiltinFactory } from './builtin-registry.ts';
import { lookup } from './builtin-registry.ts';

// Functions gojq has but this engine deliberately lacks — now, mktime, gmtime, localtime, strftime, strptime,
// todate, fromdate, input, inputs, halt, halt_error — are "function not defined": the engine is pure (no clock,
// no input stream, no process).

export function lookupBuiltin(name: string, arity: number): BuiltinFactory | undefined {
  return lookup(name, arity);
}
