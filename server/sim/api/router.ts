/**
 * Routing: the request log, authentication, public paths, injected faults, then dispatch to the
 * handler of the path (control endpoint, OpenAPI, discovery) or of the resource and verb.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { impersonate } from './authn/impersonation.ts';
import type { Identity } from './authn/user.ts';
import type { ResourceRequest, ServerContext } from './context.ts';
import { VERSION_INFO } from './discovery.ts';
import { handleControl } from './handlers/control.ts';
import { deleteCollection, deleteOne } from './handlers/delete.ts';
import { serveDiscovery } from './handlers/discovery.ts';
import { serveOpenApi } from './handlers/openapi.ts';
import { handleReview } from './handlers/reviews.ts';
import { createToken } from './handlers/token-request.ts';
import { handleProxy, parseProxyPath } from './handlers/proxy.ts';
import { podLog } from './handlers/pod-log.ts';
import { getOne, list } from './handlers/read.ts';
import { watch } from './handlers/watch.ts';
import { create, patch, replace } from './handlers/write.ts';
import type { RequestAttributes } from './rbac/rules.ts';
import type { ResourcePath } from './request.ts';
import { boolParam, parseApiPath } from './request.ts';
import { sendError, sendJson } from './respond.ts';
import { parseFieldSelector } from './selectors.ts';
import { failure, methodNotAllowed, notFoundPath } from './status.ts';

export interface RequestLogEntry {
  method: string;
  url: string;
  status: number;
  contentType?: string;
  userAgent?: string;
  /** Who the request ran as (after impersonation), when it was authenticated. */
  user?: string;
}

export interface RouterOptions {
  ctx: ServerContext;
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

async function route({ ctx, onRequest }: RouterOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  // Who the request ran as, for the request log (known only once authenticated).
  const ran: { as?: Identity } = {};
  if (onRequest) {
    res.on('finish', () => onRequest({ method: req.method ?? 'GET', url: req.url ?? '/', status: res.statusCode, contentType: req.headers['content-type'], userAgent: req.headers['user-agent'], user: ran.as?.user.username }));
  }
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const requester = ctx.auth.authenticator.authenticate(req, path);
  if (path.startsWith('/__sim/')) return handleControl(ctx, req, res, path, requester);
  const user = requester && impersonate(req, requester, ctx.auth.authorizer);
  ran.as = user;
  // Everything that is not a resource is a path the requester needs `get` (the method's verb) on.
  const checkPath = () => {
    const denied = user && ctx.auth.authorizer.check(user, { verb: (req.method ?? 'GET').toLowerCase(), resourceRequest: false, path: url.pathname });
    if (denied) throw denied;
  };
  if (path === '/version') {
    checkPath();
    return sendJson(res, 200, VERSION_INFO);
  }
  if (path === '/healthz' || path === '/readyz' || path === '/livez' || path.startsWith('/healthz/')) {
    checkPath();
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return;
  }
  if (path.startsWith('/api') || path.startsWith('/openapi')) {
    const latency = ctx.faults.latency();
    if (latency > 0) await sleep(latency);
    if (path.startsWith('/api') && sendInjectedError(ctx, res, path)) return;
  }
  // Only public paths are served without an identity, and none of those come this far.
  const id = user!;
  // Proxy paths keep their trailing slash and any depth of path after `/proxy`.
  const proxy = path.startsWith('/api/v1/namespaces/') ? parseProxyPath(url.pathname) : undefined;
  if (proxy) return handleProxy(ctx, req, res, url, id, proxy);
  const api = parseApiPath(path);
  if (api.type === 'resource') return handleResource(ctx, req, res, url, id, api.path, api.legacyWatch);
  checkPath();
  if (serveOpenApi(ctx.registry, res, path)) return;
  if (api.type === 'unknown') throw notFoundPath();
  return serveDiscovery(ctx, res, api, req.headers.accept);
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

/** A single `metadata.name=x` term of a field selector names the object a list or watch is about. */
function fieldSelectorName(selector: string | null): string | undefined {
  if (!selector) return undefined;
  try {
    const term = parseFieldSelector(selector).find((r) => r.field === 'metadata.name' && r.op === 'eq');
    return term && term.value && !/[/%]/.test(term.value) && term.value !== '.' && term.value !== '..' ? term.value : undefined;
  } catch {
    return undefined;
  }
}

/** The request as the authorizer sees it (the request-info resolver's reading of the path). */
export function resourceAttributes(verb: string, group: string, plural: string, p: ResourcePath, query: URLSearchParams): RequestAttributes {
  const isNamespace = group === '' && plural === 'namespaces';
  const name = p.name ?? (verb === 'list' || verb === 'watch' ? fieldSelectorName(query.get('fieldSelector')) : undefined);
  // A Namespace's "namespace" is its own name.
  const namespace = isNamespace ? p.name : p.namespace;
  return { verb, resourceRequest: true, group, resource: plural, subresource: p.subresource, namespace, name };
}

async function handleResource(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL, user: Identity, p: ResourcePath, legacyWatch: boolean): Promise<void> {
  const desc = ctx.registry.resolve(p.group, p.version, p.resource);
  if (!desc) throw notFoundPath();
  if (p.namespace !== undefined && !desc.namespaced) throw notFoundPath();
  if (p.subresource && !desc.subresources.includes(p.subresource)) throw notFoundPath();
  const method = req.method ?? 'GET';
  const isWatch = legacyWatch || boolParam(url.searchParams.get('watch'));
  const verb = verbOf(method, p, isWatch);
  if (!verb) throw methodNotAllowed('GET, POST, PUT, PATCH, DELETE');
  const denied = ctx.auth.authorizer.check(user, resourceAttributes(verb, desc.group, desc.plural, p, url.searchParams));
  if (denied) throw denied;
  if (desc.verbs && !desc.verbs.includes(verb)) throw methodNotAllowed(desc.verbs.includes('list') ? 'GET' : desc.verbs.includes('create') ? 'POST' : '');
  const r: ResourceRequest = { ctx, req, res, url, desc, p, user };
  if (desc.review) return handleReview(r);
  if (p.subresource === 'token') {
    if (verb !== 'create' || !p.name) throw methodNotAllowed('POST');
    return createToken(r);
  }
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
