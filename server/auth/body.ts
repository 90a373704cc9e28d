/**
 * Request bodies with limits: read chunk by chunk and abandoned as soon as they pass the byte limit
 * (a chunked upload declares no length), and JSON whose nesting depth is checked by a linear scan
 * before it is parsed. Every refusal is a RequestProblem (413 too large, 415 not JSON, 400
 * unreadable or too deep), never an exception.
 */
import { checkJsonContentType } from './same-origin.ts';
import { problem, type RequestProblem } from './problem.ts';

export const MAX_BODY_BYTES = 1 << 20;
export const MAX_JSON_DEPTH = 32;

export type Read<T> = { ok: true; value: T } | { ok: false; problem: RequestProblem };

const fail = (p: RequestProblem): { ok: false; problem: RequestProblem } => ({ ok: false, problem: p });

export function tooLarge(maxBytes: number): RequestProblem {
  return problem(413, 'too_large', `the request body is larger than ${maxBytes} bytes`);
}

/** A declared Content-Length above the limit (or not a number), before a byte is read. */
export function checkDeclaredLength(value: string | null | undefined, maxBytes = MAX_BODY_BYTES): RequestProblem | null {
  if (value === null || value === undefined) return null;
  if (!/^\d+$/.test(value.trim())) return problem(400, 'invalid_request', 'Content-Length is not a number');
  return Number(value) > maxBytes ? tooLarge(maxBytes) : null;
}

/** The body's bytes, read incrementally; more than `maxBytes` stops the read with a 413. */
export async function readBodyBytes(req: Request, maxBytes = MAX_BODY_BYTES): Promise<Read<Uint8Array>> {
  const declared = checkDeclaredLength(req.headers.get('content-length'), maxBytes);
  if (declared) return fail(declared);
  if (!req.body) return { ok: true, value: new Uint8Array(0) };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        void reader.cancel().catch(() => undefined);
        return fail(tooLarge(maxBytes));
      }
      chunks.push(value);
    }
  } catch {
    return fail(problem(400, 'invalid_request', 'the request body could not be read'));
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return { ok: true, value: out };
}

/** Does the JSON text nest objects and arrays deeper than `max`? One pass, strings skipped. */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export function parseJsonText(text: string, maxDepth = MAX_JSON_DEPTH): Read<unknown> {
  if (text.trim() === '') return fail(problem(400, 'invalid_json', 'the request body is empty; send a JSON object'));
  if (jsonDeeperThan(text, maxDepth)) return fail(problem(400, 'json_too_deep', `the JSON body nests deeper than ${maxDepth} levels`));
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return fail(problem(400, 'invalid_json', `the request body is not JSON: ${e instanceof Error ? e.message : String(e)}`));
  }
}

export interface JsonBodyLimits {
  maxBytes?: number;
  maxDepth?: number;
}

/** A JSON request body: content-type, size, encoding, nesting and syntax checked in that order. */
export async function readJsonBody(req: Request, limits: JsonBodyLimits = {}): Promise<Read<unknown>> {
  const type = checkJsonContentType(req.headers.get('content-type'));
  if (type) {
    void req.body?.cancel().catch(() => undefined);
    return fail(type);
  }
  const bytes = await readBodyBytes(req, limits.maxBytes ?? MAX_BODY_BYTES);
  if (!bytes.ok) return bytes;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.value);
  } catch {
    return fail(problem(400, 'invalid_encoding', 'the request body is not UTF-8'));
  }
  return parseJsonText(text, limits.maxDepth ?? MAX_JSON_DEPTH);
}
