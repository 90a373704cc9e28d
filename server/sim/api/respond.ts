/** Writing answers: JSON bodies, and errors of every layer as the `Status` the real server sends. */

import type { ServerResponse } from 'node:http';
import { logger } from '../../log/index.ts';
import { encodeJson } from '../store/deep-json.ts';
import { StoreError } from '../store/object-store.ts';
import { PatchError } from './patch.ts';
import { SelectorError } from './selectors.ts';
import { ApiError, badRequest, PlainTextError } from './status.ts';

const log = logger('sim.api');

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = typeof body === 'string' ? body : encodeJson(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private', ...headers });
  res.end(text);
}

/**
 * A JSON patch that does not apply (a failed `test`, a missing path) is answered with
 * `NewGenericServerResponse(422, …)` (apiserver handlers/patch.go applyJSPatch): reason Invalid and a
 * generic message; the patch library's own words ("testing value /metadata/resourceVersion failed") stay
 * in the server's log, and no cause names the path.
 */
function patchFailure(e: PatchError): ApiError {
  if (e.status === 422) {
    log.debug({ err: e.message }, 'json patch did not apply');
    return new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request');
  }
  return new ApiError(e.status, e.status === 413 ? 'RequestEntityTooLarge' : 'BadRequest', e.message);
}

export function sendError(res: ServerResponse, e: unknown): void {
  if (e instanceof PlainTextError) {
    if (res.headersSent) return void res.end();
    res.writeHead(e.code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end(`${e.message}\n`);
    return;
  }
  let err: ApiError;
  if (e instanceof ApiError) err = e;
  else if (e instanceof StoreError) err = new ApiError(e.status, e.reason, e.message);
  else if (e instanceof PatchError) err = patchFailure(e);
  else if (e instanceof SelectorError) err = badRequest(e.message);
  else {
    log.error({ err: e, method: res.req?.method, url: res.req?.url }, 'internal error');
    err = new ApiError(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
  }
  sendJson(res, err.code, err.toStatus(), err.headers);
}
