/**
 * HTTP to a Kubernetes API server with the credentials of a kubeconfig context (token, client
 * certificate, exec plugins, basic auth — whatever @kubernetes/client-node applies). Plain node
 * http/https, so that watches can be streamed, timed out and aborted exactly as we need.
 */
import http from 'node:http';
import https from 'node:https';
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

/** `pool`: requests with the context's client certificate and those without it keep apart. */
function keepAliveAgent(kc: KubeConfig, opts: https.RequestOptions, pool: 'own' | 'bearer'): https.Agent {
  const o = opts as https.RequestOptions & { ca?: unknown; cert?: unknown; key?: unknown; pfx?: unknown; passphrase?: string; rejectUnauthorized?: boolean; servername?: string };
  const key = JSON.stringify([String(o.ca ?? ''), String(o.cert ?? ''), String(o.key ?? ''), String(o.pfx ?? ''), o.rejectUnauthorized, o.servername]);
  let pools = agents.get(kc);
  if (!pools) agents.set(kc, (pools = new Map()));
  const cached = pools.get(pool);
  if (cached && cached.key === key) return cached.agent;
  cached?.agent.destroy();
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 64,
    ca: o.ca as string | undefined,
    cert: o.cert as string | undefined,
    key: o.key as string | undefined,
    pfx: o.pfx as string | undefined,
    passphrase: o.passphrase,
    rejectUnauthorized: o.rejectUnauthorized,
    servername: o.servername,
  });
  pools.set(pool, { key, agent });
  return agent;
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

async function requestOptions(kc: KubeConfig, method: string, path: string, headers: Record<string, string>, as?: ActAs): Promise<{ url: URL; opts: https.RequestOptions }> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ApiError(0, 'NoCluster', 'the kubeconfig context names no cluster');
  const url = new URL(path, cluster.server.endsWith('/') ? cluster.server : `${cluster.server}/`);
  const opts: https.RequestOptions = { method, headers: { ...headers } };
  await kc.applyToHTTPSOptions(opts);
  if (as) applyActAs(opts, as);
  if (url.protocol === 'https:') {
    const fresh = opts.agent;
    opts.agent = keepAliveAgent(kc, opts, as?.kind === 'bearer' ? 'bearer' : 'own');
    if (fresh && fresh !== opts.agent && typeof (fresh as https.Agent).destroy === 'function') (fresh as https.Agent).destroy();
  } else {
    delete opts.agent;
  }
  return { url, opts };
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
    const req = lib.request(url, { ...opts, signal: options.signal, timeout: options.timeoutMs ?? 30_000 }, (res) => {
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
    const req = lib.request(url, { ...opts, signal }, (res) => {
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
