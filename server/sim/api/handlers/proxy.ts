/**
 * The API server's proxy subresources, as the real server resolves them (pkg/registry/core/pod and
 * service ResourceLocation):
 * - `/api/v1/namespaces/{ns}/pods/{[scheme:]name[:port]}/proxy/{path}`: the pod's port (default: the
 *   first declared container port); a port name is also accepted here and looked up among the pod's
 *   container ports (the real server only takes numbers for pods).
 * - `/api/v1/namespaces/{ns}/services/{[scheme:]name[:port]}/proxy/{path}`: a port number is turned into
 *   the Service port's name, then a ready endpoint pod serving that port is picked (round robin), or the
 *   external backend registered for the Service port is called.
 * Authorization is the HTTP method's verb on `pods/proxy` / `services/proxy`. A pod that is not running,
 * a port nothing listens on and a Service without ready endpoints answer 503, as a failed dial does.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeObject } from '../../store/object-store.ts';
import type { Identity } from '../authn/user.ts';
import type { ServerContext } from '../context.ts';
import type { InProcessHandler } from '../proxy-targets.ts';
import { readRawBody } from '../request-body.ts';
import { ApiError, badRequest, methodNotAllowed } from '../status.ts';

export interface ProxyPath {
  resource: 'pods' | 'services';
  namespace: string;
  scheme: string;
  name: string;
  port: string;
  /** Path after `/proxy`, still URL-encoded, at least `/`. */
  rest: string;
}

const PROXY_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|services)\/([^/]+)\/proxy(\/.*)?$/;

/** Pure: the parts of a proxy path, or undefined when the path is no proxy request. */
export function parseProxyPath(pathname: string): ProxyPath | undefined {
  const m = PROXY_PATH.exec(pathname);
  if (!m) return undefined;
  const id = decodeURIComponent(m[3]);
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else throw badRequest(`invalid ${m[2] === 'pods' ? 'pod' : 'service'} request "${id}"`);
  if (scheme !== '' && scheme !== 'http' && scheme !== 'https') throw badRequest(`invalid ${m[2] === 'pods' ? 'pod' : 'service'} request "${id}"`);
  if (!name) throw badRequest(`invalid ${m[2] === 'pods' ? 'pod' : 'service'} request "${id}"`);
  return { resource: m[2] as 'pods' | 'services', namespace: decodeURIComponent(m[1]), scheme, name, port, rest: m[4] ?? '/' };
}

const VERBS: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function unavailable(message: string): ApiError {
  return new ApiError(503, 'ServiceUnavailable', message);
}

function dialRefused(ip: string, port: number | string): ApiError {
  return unavailable(`error trying to reach service: dial tcp ${ip}:${port}: connect: connection refused`);
}

interface PodLike extends KubeObject {
  spec?: { containers?: Array<{ ports?: Array<{ name?: string; containerPort: number }> }> };
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }> };
}

export async function handleProxy(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, url: URL, user: Identity, p: ProxyPath): Promise<void> {
  const method = req.method ?? 'GET';
  const verb = VERBS[method];
  if (!verb) throw methodNotAllowed('GET, HEAD, POST, PUT, PATCH, DELETE');
  // The name authorized is the path segment as written (`name:port`), as the request-info resolver reads it.
  const segment = [p.scheme, p.name, p.port].filter(Boolean).join(':');
  const denied = ctx.auth.authorizer.check(user, { verb, resourceRequest: true, group: '', resource: p.resource, subresource: 'proxy', namespace: p.namespace, name: segment });
  if (denied) throw denied;
  const query = url.search.startsWith('?') ? url.search.slice(1) : url.search;
  if (p.resource === 'pods') {
    const pod = ctx.store.get('v1', 'Pod', p.namespace, p.name) as PodLike | undefined;
    if (!pod) throw new ApiError(404, 'NotFound', `pods "${p.name}" not found`, { name: p.name, kind: 'pods' });
    const port = podPort(pod, p.port);
    return callPod(ctx, req, res, pod, port, p.rest, query);
  }
  const svc = ctx.store.get('v1', 'Service', p.namespace, p.name);
  if (!svc) throw new ApiError(404, 'NotFound', `services "${p.name}" not found`, { name: p.name, kind: 'services' });
  const ports = ((svc.spec as { ports?: Array<{ name?: string; port: number; targetPort?: number | string }> } | undefined)?.ports ?? []);
  let portName = p.port;
  if (/^\d+$/.test(p.port)) {
    const byNumber = ports.find((x) => x.port === Number(p.port));
    if (!byNumber) throw unavailable(`no service port ${p.port} found for service "${p.name}"`);
    portName = byNumber.name ?? '';
  }
  const sp = ports.find((x) => (x.name ?? '') === portName);
  if (!sp) throw unavailable(`no endpoints available for service "${p.name}"`);
  const backend = ctx.serviceBackends.get(p.namespace, p.name, sp.port);
  if (backend) return forward(req, res, backend, p.rest, query);
  const pod = pickEndpoint(ctx, svc, sp.targetPort ?? sp.port);
  if (!pod) throw unavailable(`no endpoints available for service "${p.name}"`);
  return callPod(ctx, req, res, pod.pod, pod.port, p.rest, query);
}

/** The port a pod proxy names: a number, a container port's name, or (absent) the first declared port. */
function podPort(pod: PodLike, port: string): number {
  if (/^\d+$/.test(port)) return Number(port);
  const all = (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []);
  if (port === '') return all[0]?.containerPort ?? 80;
  const named = all.find((x) => x.name === port);
  if (!named) throw unavailable(`error trying to reach service: dial tcp ${pod.status?.podIP ?? ''}:${port}: unknown port`);
  return named.containerPort;
}

function isReady(pod: PodLike): boolean {
  return pod.status?.phase === 'Running' && !!pod.status.podIP && !pod.metadata.deletionTimestamp && !!pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Requests so far per Service uid, for round robin over its endpoints. */
const roundRobin = new Map<string, number>();

/** A ready pod behind a Service (its selector in its namespace) and the target port on it, round robin. */
function pickEndpoint(ctx: ServerContext, svc: KubeObject, target: number | string): { pod: PodLike; port: number } | undefined {
  const selector = (svc.spec as { selector?: Record<string, string> } | undefined)?.selector;
  if (!selector || Object.keys(selector).length === 0) return undefined;
  const ready: Array<{ pod: PodLike; port: number }> = [];
  for (const o of ctx.store.list('v1', 'Pod', { namespace: svc.metadata.namespace, labels: selector })) {
    const pod = o as PodLike;
    if (!isReady(pod)) continue;
    const port = typeof target === 'number' ? target : (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []).find((x) => x.name === target)?.containerPort;
    if (port !== undefined) ready.push({ pod, port });
  }
  if (ready.length === 0) return undefined;
  ready.sort((a, b) => (a.pod.metadata.name! < b.pod.metadata.name! ? -1 : 1));
  const key = svc.metadata.uid ?? `${svc.metadata.namespace}/${svc.metadata.name}`;
  const n = roundRobin.get(key) ?? 0;
  if (roundRobin.size > 10_000) roundRobin.clear();
  roundRobin.set(key, n + 1);
  return ready[n % ready.length];
}

async function callPod(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, pod: PodLike, port: number, path: string, query: string): Promise<void> {
  const ip = pod.status?.podIP ?? '';
  if (pod.status?.phase !== 'Running' || !ip || pod.metadata.deletionTimestamp) throw dialRefused(ip || '<none>', port);
  const handler: InProcessHandler | undefined = ctx.podServer?.(pod, port);
  if (!handler) throw dialRefused(ip, port);
  const body = (await readRawBody(req)).bytes;
  const answer = await handler({ method: req.method ?? 'GET', path, query, headers: req.headers, body });
  const bytes = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
  res.writeHead(answer.status, { ...(answer.headers ?? {}), 'Content-Length': String(bytes.length) });
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/** Request headers passed to a backend (the rest are the API server's own: its authorization stays here). */
const FORWARD_REQUEST = ['accept', 'accept-encoding', 'content-type', 'content-length', 'user-agent', 'x-prometheus-api-version'];
/** Response headers not passed back (hop-by-hop). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Streams a request to an external backend and its answer back (status, content type, body). */
function forward(req: IncomingMessage, res: ServerResponse, base: string, path: string, query: string): Promise<void> {
  const target = new URL(base);
  const prefix = target.pathname.replace(/\/+$/, '');
  const headers: Record<string, string | string[]> = {};
  for (const h of FORWARD_REQUEST) {
    const v = req.headers[h];
    if (v !== undefined) headers[h] = v;
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const up = send(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: `${prefix}${path}${query ? `?${query}` : ''}`, headers },
      (answer) => {
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
        answer.on('end', () => resolve());
        answer.on('error', () => {
          res.destroy();
          resolve();
        });
      },
    );
    up.on('error', (e: NodeJS.ErrnoException) => {
      if (!res.headersSent) {
        const err = e.code === 'ECONNREFUSED' ? dialRefused(target.hostname, target.port || (target.protocol === 'https:' ? 443 : 80)) : unavailable(`error trying to reach service: ${e.message}`);
        const text = JSON.stringify(err.toStatus());
        res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
        res.end(text);
      } else res.destroy();
      resolve();
    });
    req.pipe(up);
  });
}
