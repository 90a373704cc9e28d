/**
 * Hands the gate's answer to "who is this?" to the route handlers. Next.js bundles the handlers apart
 * from the custom server, so the principal cannot be passed as a value: the gate stamps each request
 * with a random key (after removing any such header the client sent) and keeps the principal on
 * globalThis under that key until the response is finished. A header the client forges names nothing.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from './principal.ts';

export const IDENTITY_HEADER = 'x-wmap-request-identity';
const KEY = Symbol.for('workload-map.request-identities');

function registry(): Map<string, Principal> {
  const g = globalThis as Record<symbol, unknown>;
  let m = g[KEY] as Map<string, Principal> | undefined;
  if (!m) g[KEY] = m = new Map();
  return m;
}

/** Removes a client's copy of the header, then stamps the request with the principal's key. */
export function stampIdentity(req: IncomingMessage, res: ServerResponse, principal: Principal): void {
  delete req.headers[IDENTITY_HEADER];
  const key = randomBytes(18).toString('base64url');
  registry().set(key, principal);
  req.headers[IDENTITY_HEADER] = key;
  res.once('close', () => registry().delete(key));
}

/** Removes a client's copy of the header (a request the gate answers itself). */
export function unstamp(req: IncomingMessage): void {
  delete req.headers[IDENTITY_HEADER];
}

/** The principal of a request the gate let through; null when there is none (not served by the gate). */
export function principalOfHeaders(headers: { get(name: string): string | null }): Principal | null {
  const key = headers.get(IDENTITY_HEADER);
  return key ? (registry().get(key) ?? null) : null;
}
