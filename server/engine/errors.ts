/** Errors are values: a code, a message for people, and where they came from. */
export interface EngineError {
  /** Stable machine-readable code, e.g. `definition.invalid`, `expression.runtime`. */
  code: string;
  message: string;
  /** Field path inside the definition (`spec.structureDefinition.rootComponent...`) or object (`pod default/x`). */
  path: string;
}

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
