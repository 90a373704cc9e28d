/** Errors are values: a code, a message for people, and where they came from (the contract's shape). */
import type { EngineError } from '../../contract/tree.ts';

export type { EngineError };

export function engineError(code: string, message: string, path = ''): EngineError {
  return { code, message, path };
}

/** Thrown only inside the engine, caught at its public boundary and turned into an EngineError. */
export class EngineFailure extends Error {
  readonly code: string;
  readonly path: string;
  constructor(code: string, message: string, path = '') {
    super(message);
    this.code = code;
    this.path = path;
  }
  toValue(): EngineError {
    return engineError(this.code, this.message, this.path);
  }
}

export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
