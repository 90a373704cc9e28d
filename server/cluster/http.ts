/**
 * HTTP to a Kubernetes API server with the credentials of a kubeconfig context (token, client
 * certificate, exec plugins, basic auth — whatever @kubernetes/client-node applies). Plain node
 * http/https, so that watches can be streamed, timed out and aborted exactly as we need.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { gunzipSync } from 'node:zlib';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ActAs } from './types.ts';

export interface ApiResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly retryAfterSeconds: number | null;
  constructor(status: number, reason: string, message: string, retryAfterSeconds: number | null = null) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * One keep-alive agent per kubeconfig context: the client library builds a fresh agent (and so a
 * fresh TLS handshake) per request; list pages, watches and writes should share connections.
 * Credentials in headers (tokens, exec plugin output) are still applied per request.
 */
const agents = new WeakMap<KubeConfig, Map<string, { key: string; agent: https.Agent }>>();

/**
 * An https agent whose connections go through an HTTP(S) proxy's CONNECT tunnel (a kubeconfig
 * cluster's `proxy-url`, as kubectl uses it): the TLS session is with the API server, end to end;
 * the proxy sees only `CONNECT host:port`. Tunnels are pooled and kept alive like direct sockets.
 */
class TunnelAgent extends https.Agent {
  private readonly proxy: URL;
  constructor(proxy: URL, opts: https.AgentOptions) {
    super(opts);
    this.proxy = proxy;
  }

  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const done = callback ?? (() => {});
    const host = options.host ?? options.hostname ?? 'localhost';
    const port = Number(options.port) || 443;
    const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const headers: Record<string, string> = { host: authority };
    const auth = proxyAuthorization(this.proxy);
    if (auth) headers['proxy-authorization'] = auth;
    const lib = this.proxy.protocol === 'https:' ? https : http;
    const req = lib.request({ host: this.proxy.hostname.replace(/^\[|\]$/g, ''), port: this.proxy.port || (this.proxy.protocol === 'https:' ? 443 : 80), method: 'CONNECT', path: authority, headers, agent: false, timeout: 30_000 });
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      done(e, undefined as unknown as Duplex);
    };
    req.once('connect', (res, socket, head) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        fail(new Error(`the proxy ${this.proxy.host} answered ${res.statusCode ?? 0} ${res.statusMessage ?? ''} to CONNECT ${authority}`.trim()));
        return;
      }
      if (head.length > 0) socket.unshift(head);
      const servername = options.servername ?? (isIP(host) ? undefined : host);
      const tlsSocket = tls.connect({ ...(options as tls.ConnectionOptions), socket, servername });
      settled = true;
      done(null, tlsSocket);
    });
    req.once('timeout', () => req.destroy(new Error(`the proxy ${this.proxy.host} did not answer CONNECT ${authority}`)));
    req.once('error', (e) => fail(new Error(`proxy ${this.proxy.host}: ${e.message}`)));
    req.end();
    return undefined;
  }
}

/** `Proxy-Authorization` for a proxy URL with user info (`http://user:pass@proxy:3128`). */
function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const cred = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(cred).toString('base64')}`;
}

/**
 * The cluster's `proxy-url`, checked: http and https proxies are followed (CONNECT for an https
 * server, absolute-form forwarding for a plain http one); other schemes (socks5) are refused with a
 * clear error rather than silently bypassed.
 */
export function proxyOf(cluster: { proxyUrl?: string }): URL | null {
  const raw = cluster.proxyUrl;
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ApiError(0, 'BadProxy', `the kubeconfig's proxy-url ${JSON.stringify(raw)} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ApiError(0, 'UnsupportedProxy', `the kubeconfig's proxy-url scheme ${u.protocol.replace(/:$/, '')} is not supported (http and https proxies are)`);
  return u;
}

/**
 * The URL of an API path on a cluster whose server URL may have a path of its own (Rancher's
 * `https://rancher.example/k8s/clusters/c-abc`): the prefix is kept and the path appended, as
 * client-go does (`new URL('/api/v1', server)` would drop the prefix).
 */
export function serverUrl(server: string, path: string): URL {
  const base = new URL(server);
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(`${base.protocol}//${base.host}${prefix}${path.startsWith('/') ? path : `/${path}`}`);
}

/** `pool`: requests with the context's client certificate and those without it keep apart. */
function keepAliveAgent(kc: KubeConfig, opts: https.RequestOptions, pool: 'own' | 'bearer', proxy: URL | null): https.Agent {
  const o = opts as https.RequestOptions & { ca?: unknown; cert?: unknown; key?: unknown; pfx?: unknown; passphrase?: string; rejectUnauthorized?: boolean; servername?: string };
  const key = JSON.stringify([String(o.ca ?? ''), String(o.cert ?? ''), String(o.key ?? ''), String(o.pfx ?? ''), o.rejectUnauthorized, o.servername, proxy?.href ?? '']);
  let pools = agents.get(kc);
  if (!pools) agents.set(kc, (pools = new Map()));
  const cached = pools.get(pool);
  if (cached && cached.key === key) return cached.agent;
  cached?.agent.destroy();
  const credentials = { ca: o.ca as string | undefined, cert: o.cert as string | undefined, key: o.key as string | undefined, pfx: o.pfx as string | undefined, passphrase: o.passphrase };
  const agentOptions: https.AgentOptions = {
    keepAlive: true,
    maxSockets: 64,
    ...credentials,
    ...sharedSecureContext(credentials),
    rejectUnauthorized: o.rejectUnauthorized,
    servername: o.servername,
  };
  const agent = proxy ? new TunnelAgent(proxy, agentOptions) : new https.Agent(agentOptions);
  pools.set(pool, { key, agent });
  return agent;
}

/**
 * One TLS context for every connection of an agent: otherwise each socket parses the CA and the
 * client certificate again (about a millisecond each, for the four or more connections a command
 * opens). Should the credentials not parse, there is none, and each connection fails with the
 * reason as it did before.
 */
function sharedSecureContext(credentials: tls.SecureContextOptions): { secureContext?: tls.SecureContext } {
  try {
    return { secureContext: tls.createSecureContext(credentials) };
  } catch {
    return {};
  }
}

/**
 * Sends a request as someone else than the context's own identity: with a user's own bearer token
 * (the context's client certificate is dropped, since the API server would authenticate the
 * certificate first), or impersonating a user from the context's account.
 */
function applyActAs(opts: https.RequestOptions, as: ActAs): void {
  const headers = opts.headers as Record<string, string | string[]>;
  if (as.kind === 'bearer') {
    const o = opts as https.RequestOptions & { cert?: unknown; key?: unknown; pfx?: unknown; passphrase?: unknown };
    delete o.cert;
    delete o.key;
    delete o.pfx;
    delete o.passphrase;
    delete opts.auth;
    headers.authorization = `Bearer ${as.token}`;
    return;
  }
  headers['impersonate-user'] = as.user;
  if (as.groups.length > 0) headers['impersonate-group'] = as.groups;
  if (as.uid) headers['impersonate-uid'] = as.uid;
}

/**
 * What `http(s).request` is called with: the API server's URL (with the server's path prefix), or
 * for a plain-http server behind an http proxy, the proxy's address with the absolute URL as path.
 */
interface Target {
  url: URL;
  opts: https.RequestOptions;
}

async function requestOptions(kc: KubeConfig, method: string, path: string, headers: Record<string, string>, as?: ActAs): Promise<Target> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ApiError(0, 'NoCluster', 'the kubeconfig context names no cluster');
  const url = serverUrl(cluster.server, path);
  const proxy = proxyOf(cluster);
  const opts: https.RequestOptions = { method, headers: { ...headers } };
  await kc.applyToHTTPSOptions(opts);
  if (as) applyActAs(opts, as);
  // The client library's own agent (a proxy agent too, when proxy-url is set) is replaced by ours.
  const fresh = opts.agent;
  if (url.protocol === 'https:') {
    opts.agent = keepAliveAgent(kc, opts, as?.kind === 'bearer' ? 'bearer' : 'own', proxy);
  } else {
    delete opts.agent;
  }
  if (fresh && fresh !== opts.agent && typeof (fresh as https.Agent).destroy === 'function') (fresh as https.Agent).destroy();
  if (url.protocol === 'http:' && proxy) {
    // An http proxy forwards plain http requests written in absolute form.
    const h = opts.headers as Record<string, string | string[]>;
    h.host = url.host;
    const auth = proxyAuthorization(proxy);
    if (auth) h['proxy-authorization'] = auth;
    if (proxy.protocol === 'https:') throw new ApiError(0, 'UnsupportedProxy', `an https proxy-url (${proxy.host}) in front of a plain http server is not supported`);
    return { url, opts: { ...opts, protocol: 'http:', hostname: proxy.hostname.replace(/^\[|\]$/g, ''), port: proxy.port || 80, path: url.href } };
  }
  return { url, opts: { ...opts, protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || (url.protocol === 'https:' ? 443 : 80), path: `${url.pathname}${url.search}` } };
}

/** Closes the pooled connections of a context (when a cluster is removed or the process stops). */
export function closeConnections(kc: KubeConfig): void {
  for (const p of agents.get(kc)?.values() ?? []) p.agent.destroy();
  agents.delete(kc);
}

function describeStatus(status: number, body: string): { reason: string; message: string } {
  try {
    const s = JSON.parse(body) as { reason?: string; message?: string };
    return { reason: s.reason ?? `HTTP${status}`, message: s.message ?? body.slice(0, 200) };
  } catch {
    return { reason: `HTTP${status}`, message: body.slice(0, 200) || `HTTP ${status}` };
  }
}

function retryAfter(h: http.IncomingHttpHeaders): number | null {
  const v = h['retry-after'];
  const n = typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** A request whose whole body is read; non-2xx answers throw ApiError with the server's Status. */
export async function apiRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  options: { body?: string; contentType?: string; accept?: string; timeoutMs?: number; signal?: AbortSignal; gzip?: boolean; as?: ActAs } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  // Large proxied answers (a Prometheus query over every GPU) shrink tenfold compressed.
  if (options.gzip) headers['accept-encoding'] = 'gzip';
  if (options.body !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    // Node frames a DELETE's body only with a length (it does not chunk one): DeleteOptions need it.
    headers['content-length'] = String(Buffer.byteLength(options.body));
  }
  const { url, opts } = await requestOptions(kc, method, path, headers, options.as);
  const lib = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = lib.request({ ...opts, signal: options.signal, timeout: options.timeoutMs ?? 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        let raw = Buffer.concat(chunks);
        if (res.headers['content-encoding'] === 'gzip') {
          try {
            raw = gunzipSync(raw);
          } catch (e) {
            reject(new ApiError(0, 'BadEncoding', `cannot decompress the answer from ${url.host}: ${e instanceof Error ? e.message : String(e)}`));
            return;
          }
        }
        const body = raw.toString('utf8');
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve({ status, headers: res.headers, body });
        else {
          const d = describeStatus(status, body);
          reject(new ApiError(status, d.reason, d.message, retryAfter(res.headers)));
        }
      });
    });
    req.on('timeout', () => req.destroy(new ApiError(0, 'Timeout', `request to ${url.host} timed out`)));
    req.on('error', (e) => reject(e instanceof ApiError ? e : new ApiError(0, 'Unreachable', `${url.host}: ${e.message}`)));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export async function getJson<T>(kc: KubeConfig, path: string, signal?: AbortSignal, as?: ActAs): Promise<T> {
  const r = await apiRequest(kc, 'GET', path, { signal, as });
  return JSON.parse(r.body) as T;
}

/**
 * A streamed GET: `onData` gets the body's text as it arrives (it may end the stream with `fail`).
 * Resolves when the server ends it or `signal` aborts; rejects with the server's Status on a non-2xx
 * answer (its body read first) or on a transport error.
 */
async function streamBody(kc: KubeConfig, path: string, accept: string, signal: AbortSignal, onData: (chunk: string, fail: (e: Error) => void) => void, onOpen?: () => void, as?: ActAs): Promise<void> {
  const { url, opts } = await requestOptions(kc, 'GET', path, { accept }, as);
  const lib = url.protocol === 'http:' ? http : https;
  await new Promise<void>((resolve, reject) => {
    const req = lib.request({ ...opts, signal }, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const d = describeStatus(status, Buffer.concat(chunks).toString('utf8'));
          reject(new ApiError(status, d.reason, d.message, retryAfter(res.headers)));
        });
        return;
      }
      onOpen?.();
      const fail = (e: Error) => req.destroy(e);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => onData(chunk, fail));
      res.on('end', () => resolve());
      res.on('error', (e) => (signal.aborted ? resolve() : reject(e)));
      res.on('aborted', () => resolve());
    });
    req.on('error', (e) => {
      if (signal.aborted) resolve();
      else reject(e instanceof ApiError ? e : new ApiError(0, 'Unreachable', `${url.host}: ${e.message}`));
    });
    req.end();
  });
}

/**
 * Streams newline-delimited JSON (a watch). Resolves when the stream ends; rejects on a non-2xx
 * answer or a transport error (a line that is not JSON too). `onOpen` is called once the server has
 * accepted the watch (2xx), `onLine` with each parsed line.
 */
export function streamLines(kc: KubeConfig, path: string, onLine: (value: unknown) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
  let buf = '';
  return streamBody(
    kc,
    path,
    'application/json',
    signal,
    (chunk, fail) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        try {
          onLine(JSON.parse(line));
        } catch (e) {
          fail(e instanceof Error ? e : new Error(String(e)));
          return;
        }
      }
    },
    onOpen,
  );
}

/** Streams a text body (a container's log, `follow=true`) chunk by chunk as it arrives. */
export function streamText(kc: KubeConfig, path: string, onChunk: (text: string) => void, signal: AbortSignal, onOpen?: () => void, as?: ActAs): Promise<void> {
  return streamBody(kc, path, 'text/plain, */*', signal, (chunk) => onChunk(chunk), onOpen, as);
}
