/**
 * One structured log line and one metrics observation per API call, each under a request id: the
 * caller's `X-Request-Id` when it is a plain token (a proxy's, for following one call through), a
 * new one otherwise. The id is echoed in the response and handed on to the route handlers in the
 * request's headers. Paths are logged without their query (a `?token=` link must never reach a log).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log/index.ts';
import { instruments, routeTemplate } from '../metrics/index.ts';

const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestIdOf(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v && ACCEPTED_ID.test(v) ? v : randomUUID();
}

/** Static files and page loads are counted, not logged: a log line per script would drown the calls. */
function logged(pathname: string): boolean {
  return pathname.startsWith('/api/') || pathname.startsWith('/auth/') || pathname === '/metrics';
}

export function startRequestLog(req: IncomingMessage, res: ServerResponse, log: Logger): void {
  const id = requestIdOf(req.headers['x-request-id']);
  req.headers['x-request-id'] = id;
  res.setHeader('x-request-id', id);
  const started = performance.now();
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const pathname = q === -1 ? raw : raw.slice(0, q);
  const route = routeTemplate(pathname);
  const method = (req.method ?? 'GET').toUpperCase();
  res.once('close', () => {
    const seconds = (performance.now() - started) / 1000;
    // A connection the client dropped before the answer was sent is logged as 499, as proxies do.
    const status = res.writableFinished || res.headersSent ? res.statusCode : 499;
    instruments().request(route, method, status, seconds);
    if (logged(pathname)) log.info({ requestId: id, method, path: pathname.slice(0, 512), route, status, ms: Math.round(seconds * 1000) }, `${method} ${route} ${status}`);
  });
}
