/**
 * Where the route handler finds the custom server's validator. Route handlers are bundled apart from
 * the custom server (as with the runtime), so the validator is published on globalThis; this file
 * holds no worker code, so the bundle stays free of it.
 */
import type { ValidateResult } from '../../contract/index.ts';
import type { RequestProblem } from './problem.ts';

export type ValidationAnswer = { ok: true; result: ValidateResult } | { ok: false; problem: RequestProblem };

export interface Validator {
  validate(text: string, signal?: AbortSignal): Promise<ValidationAnswer>;
  close(): Promise<void>;
}

const KEY = Symbol.for('workload-map.validator');

export function setValidator(v: Validator | null): void {
  (globalThis as Record<symbol, unknown>)[KEY] = v;
}

export function getValidator(): Validator | null {
  return ((globalThis as Record<symbol, unknown>)[KEY] as Validator | undefined) ?? null;
}
