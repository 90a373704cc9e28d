/**
 * Routing: the request log, authentication, public paths, injected faults, then dispatch to the
 * handler of the path (control endpoint, OpenAPI, discovery) or of the resource and verb.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessRule } from './access.ts';
import { authorize } from './access.ts';
import type { Authenticator } from './auth.ts';
import type { ResourceRequest, ServerContext } from './context.ts';
import { VERSION_INFO } from './discovery.ts';
import { handleControl } from './handlers/control.ts';
import { deleteCollection, deleteOne } from './handlers/delete.ts';
import { serveDiscovery } from './handlers/discovery.ts';
import { serveOpenApi } from './handlers/openapi.ts';
import { handleProxy, parseProxyPath } from './handlers/proxy.ts';
import { podLog } from './handlers/pod-log.ts';
import { getOne, list } from './handlers/read.ts';
import { watch } from './handlers/watch.ts';
import { create, patch, replace } from './handlers/write.ts';
import type { ResourcePath } from './request.ts';
import { boolParam, parseApiPath } from './request.ts';
import { sendError, sendJson } from './respond.ts';
import { failure, methodNotAllowed, notFoundPath } from './status.ts';

export interface RequestLogEntry {
  method: string;
  url: string;
  status: number;
  contentType?: string;
  userAgent?: string;
}

export interface RouterOptions {
  ctx: ServerContext;
  auth: Authenticator;
  /** Called for each finished request (tests assert request sequences with it). */
  onRequest?: (entry: RequestLogEntry) => void;
}

/** The request listener of the HTTP(S) server. */
export function createRouter(o: RouterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    route(o, req, res).catch((e: unknown) => sendError(res, e));
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function route({ ctx, auth, onRequest }: RouterOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (onRequest) {
    res.on('finish', () => onRequest({ method: req.method ?? 'GET', url: req.url ?? '/', status: res.statusCode, contentType: req.headers['content-type'], userAgent: req.headers['user-agent'] }));
  }
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const rule = auth.authenticate(req, path);
  if (path.startsWith('/__sim/')) return handleControl(ctx, req, res, path, rule);
  if (path === '/version') return sendJson(res, 200, VERSION_INFO);
  if (path === '/healthz' || path === '/readyz' || path === '/livez' || path.startsWith('/healthz/')) {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  }
  if (path.startsWith('/api') || path.startsWith('/openapi')) {
    const latency = ctx.faults.latency();
    if (latency > 0) await sleep(latency);
    if (path.startsWith('/api') && sendInjectedError(ctx, res, path)) return;
  }
  if (serveOpenApi(ctx.registry, res, path)) return;
  // Proxy paths keep their trailing slash and any depth of path after `/proxy`.
  const proxy = path.startsWith('/api/v1/namespaces/') ? parseProxyPath(url.pathname) : undefined;
  if (proxy) return handleProxy(ctx, req, res, url, rule!, proxy);
  const api = parseApiPath(path);
  switch (api.type) {
    case 'resource':
      // Only public paths are served without a rule, and none of them is a resource.
      return handleResource(ctx, req, res, url, rule!, api.path, api.legacyWatch);
    case 'unknown':
      throw notFoundPath();
    default:
      return serveDiscovery(ctx, res, api, req.headers.accept);
  }
}

/** Answers with the error the faults inject for this request, if any. */
function sendInjectedError({ faults }: ServerContext, res: ServerResponse, path: string): boolean {
  const fault = faults.injectedError(path);
  if (!fault) return false;
  const reason = fault.code === 429 ? 'TooManyRequests' : fault.code === 503 ? 'ServiceUnavailable' : 'InternalError';
  const message = fault.code === 429 ? 'the server has received too many requests and has asked us to try again later' : 'an error on the server ("injected fault") has prevented the request from succeeding';
  const headers = { 'Retry-After': String(fault.retryAfterSeconds) };
  sendJson(res, fault.code, failure(fault.code, reason, message, { retryAfterSeconds: fault.retryAfterSeconds }), headers);
  return true;
}

function verbOf(method: string, p: ResourcePath, watch: boolean): string {
  if (method === 'GET') return watch ? 'watch' : p.name ? 'get' : 'list';
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  if (method === 'DELETE') return p.name ? 'delete' : 'deletecollection';
  return '';
}

async function handleResource(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL, rule: AccessRule, p: ResourcePath, legacyWatch: boolean): Promise<void> {
  const desc = ctx.registry.resolve(p.group, p.version, p.resource);
  if (!desc) throw notFoundPath();
  if (p.namespace !== undefined && !desc.namespaced) throw notFoundPath();
  if (p.subresource && !desc.subresources.includes(p.subresource)) throw notFoundPath();
  const method = req.method ?? 'GET';
  const isWatch = legacyWatch || boolParam(url.searchParams.get('watch'));
  const verb = verbOf(method, p, isWatch);
  if (!verb) throw methodNotAllowed('GET, POST, PUT, PATCH, DELETE');
  const denied = authorize(rule, { verb, group: desc.group, resource: p.subresource ? `${desc.plural}/${p.subresource}` : desc.plural, namespace: p.namespace, name: p.name, namespaced: desc.namespaced });
  if (denied) throw denied;
  if (desc.verbs && !desc.verbs.includes(verb)) throw methodNotAllowed(desc.verbs.includes('list') ? 'GET' : '');
  const r: ResourceRequest = { ctx, req, res, url, desc, p };
  if (p.subresource === 'log') {
    if (!p.name) throw notFoundPath();
    return podLog(r, desc);
  }
  if (p.subresource === 'finalize') throw methodNotAllowed('PUT');
  // Proxies are served above for namespaced paths; any other shape of them names nothing.
  if (p.subresource === 'proxy') throw notFoundPath();
  switch (verb) {
    case 'watch':
      return watch(r);
    case 'get':
      return getOne(r);
    case 'list':
      return list(r);
    case 'create':
      if (p.name) throw methodNotAllowed('GET, PUT, PATCH, DELETE');
      return create(r);
    case 'delete':
      return deleteOne(r);
    case 'deletecollection':
      return deleteCollection(r);
  }
  if (!p.name) throw methodNotAllowed('GET, POST, DELETE');
  return verb === 'update' ? replace(r) : patch(r);
}
