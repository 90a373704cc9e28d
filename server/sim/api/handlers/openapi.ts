/** OpenAPI: v2 is not served (404); v3 is, as an index and one document per group version. */

import type { ServerResponse } from 'node:http';
import { openApiGroupVersionDoc, openApiIndex } from '../discovery.ts';
import type { Registry } from '../registry.ts';
import { sendJson } from '../respond.ts';
import { notFoundPath } from '../status.ts';

/** Serves the OpenAPI paths; false for any other path (routing goes on). */
export function serveOpenApi(registry: Registry, res: ServerResponse, path: string): boolean {
  if (path === '/openapi/v2') throw notFoundPath();
  if (path === '/openapi/v3') {
    sendJson(res, 200, openApiIndex(registry));
    return true;
  }
  if (!path.startsWith('/openapi/v3/')) return false;
  const rest = path.slice('/openapi/v3/'.length).split('/');
  const doc = rest[0] === 'api' && rest.length === 2 ? openApiGroupVersionDoc(registry, '', rest[1]) : rest[0] === 'apis' && rest.length === 3 ? openApiGroupVersionDoc(registry, rest[1], rest[2]) : undefined;
  if (!doc) throw notFoundPath();
  sendJson(res, 200, doc);
  return true;
}
