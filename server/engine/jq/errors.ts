import type { JqValue } from './values.ts';
import { encodeBounded, typeOf } from './values.ts';

export { JqLimitError } from './budget.ts';

export type JqErrorKind = 'parse' | 'compile' | 'runtime' | 'limit';

/** The one error type the jq module lets out. */
export class JqError extends Error {
  readonly kind: JqErrorKind;
  readonly position?: number;
  constructor(kind: JqErrorKind, message: string, position?: number) {
    super(message);
    this.name = 'JqError';
    this.kind = kind;
    if (position !== undefined) this.position = position;
  }
}

/**
 * A runtime error raised by the program (by `error` or by an operator). It carries the jq value so that
 * `try … catch` can hand it to the handler, as jq does. Internal: converted to JqError at the boundary.
 * Deliberately not an Error subclass: `.a?` and `.[]?` on the wrong type raise and catch these on hot paths,
 * and capturing a stack trace each time would dominate the cost.
 */
export class JqRuntimeError {
  readonly value: JqValue;
  private readonly raisedByErrorFn: boolean;
  constructor(value: JqValue, raisedByErrorFn = false) {
    this.value = value;
    this.raisedByErrorFn = raisedByErrorFn;
  }
  /**
   * Computed when the error leaves the evaluator (a caught error never needs it). gojq prefixes values raised
   * with `error(v)` by "error: "; operator errors are plain text. The JSON text of a value is cut at 10,000
   * characters: the value may be huge.
   */
  get message(): string {
    const v = this.value;
    if (!this.raisedByErrorFn) return String(v);
    return `error: ${typeof v === 'string' ? v : encodeBounded(v, 10_000)}`;
  }
}

/** jq-style short preview of a value, truncated to 30 bytes like gojq's error previews. */
export function preview(v: JqValue): string {
  const s = encodeBounded(v, 64);
  if (Buffer.byteLength(s) <= 30) return s;
  const trailing = typeof v === 'string' ? ' ..."' : Array.isArray(v) ? ' ...]' : v !== null && typeof v === 'object' ? ' ...}' : ' ...';
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > 30 - trailing.length) break;
    out += ch;
    bytes += n;
  }
  return out + trailing;
}

/** `number (1)`, `null`, `string ("a")` — the operand description used in gojq error messages. */
export function typeErrorPreview(v: JqValue): string {
  if (v === null) return 'null';
  return `${typeOf(v)} (${preview(v)})`;
}

export function fail(message: string): never {
  throw new JqRuntimeError(message);
}
