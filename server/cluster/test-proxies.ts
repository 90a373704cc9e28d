/**
 * Loopback stand-ins for what sits between a kubeconfig and its API server in real setups, for
 * tests: an HTTP proxy (CONNECT tunnels for https servers, absolute-form forwarding for plain http,
 * optional Basic proxy credentials) that counts what went through it, and a path-prefix reverse
 * proxy in the manner of Rancher's `https://rancher.example/k8s/clusters/c-abc` (TLS ends there; the
 * prefix is stripped before the request goes on to the API server; a path without it is a 404).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { selfSignedCert } from '../sim/api/tls.ts';

export interface ForwardProxy {
  url: string;
  /** CONNECT tunnels opened (one per pooled connection, not per request). */
  tunnels: number;
  /** `host:port` of every CONNECT, in order. */
  connects: string[];
  /** Plain http requests forwarded in absolute form. */
  forwarded: number;
  /** Requests refused for missing or wrong proxy credentials. */
  refused: number;
  close(): Promise<void>;
}

function track(set: Set<Duplex>, s: Duplex): void {
  set.add(s);
  s.once('close', () => set.delete(s));
}

/** `auth`: `user:password` the proxy requires (407 without it). */
export async function startForwardProxy(o: { auth?: string } = {}): Promise<ForwardProxy> {
  const open = new Set<Duplex>();
  const want = o.auth ? `Basic ${Buffer.from(o.auth).toString('base64')}` : undefined;
  const allowed = (h: http.IncomingHttpHeaders) => !want || h['proxy-authorization'] === want;
  const server = http.createServer((req, res) => {
    if (!allowed(req.headers)) {
      p.refused++;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-type': 'text/plain' }).end('proxy authentication required');
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('a proxy request names an absolute URL');
      return;
    }
    p.forwarded++;
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const up = http.request({ hostname: target.hostname, port: target.port || 80, path: `${target.pathname}${target.search}`, method: req.method, headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      // As real proxies do: the headers go on at once (a watch may send nothing for a while).
      res.flushHeaders();
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s: net.Socket) => track(open, s));
  server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!allowed(req.headers)) {
      p.refused++;
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    if (!m) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    p.tunnels++;
    p.connects.push(req.url ?? '');
    const up = net.connect(Number(m[2]), m[1], () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    track(open, up);
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
    socket.on('close', () => up.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as net.AddressInfo).port;
  const p: ForwardProxy = {
    url: `http://127.0.0.1:${port}`,
    tunnels: 0,
    connects: [],
    forwarded: 0,
    refused: 0,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  return p;
}

export interface PrefixProxy {
  /** The URL a kubeconfig names, prefix included: `https://127.0.0.1:PORT/k8s/clusters/c-test`. */
  url: string;
  /** PEM of the proxy's own certificate (its CA). */
  caPem: string;
  /** Paths asked for, as received (prefix included). */
  paths: string[];
  /** Requests that arrived without the prefix (answered 404). */
  unprefixed: number;
  close(): Promise<void>;
}

/** An https reverse proxy at `prefix` in front of `upstream` (an https API server with CA `upstreamCa`). */
export async function startPrefixProxy(o: { prefix: string; upstream: string; upstreamCa?: string }): Promise<PrefixProxy> {
  const prefix = o.prefix.replace(/\/+$/, '');
  const up = new URL(o.upstream);
  const cert = selfSignedCert(['127.0.0.1']);
  const open = new Set<Duplex>();
  const agent = new https.Agent({ keepAlive: true, ca: o.upstreamCa });
  const server = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const path = req.url ?? '/';
    p.paths.push(path);
    if (path !== prefix && !path.startsWith(`${prefix}/`) && !path.startsWith(`${prefix}?`)) {
      p.unprefixed++;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found (no such cluster)');
      return;
    }
    const rest = path.slice(prefix.length) || '/';
    const headers = { ...req.headers, host: up.host };
    const lib = up.protocol === 'https:' ? https : http;
    const fwd = lib.request({ hostname: up.hostname, port: up.port, path: rest.startsWith('?') ? `/${rest}` : rest, method: req.method, headers, agent: up.protocol === 'https:' ? agent : undefined }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      // As real proxies do: the headers go on at once (a watch may send nothing for a while).
      res.flushHeaders();
      ur.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    res.on('close', () => fwd.destroy());
    req.pipe(fwd);
  });
  server.on('secureConnection', (s: Duplex) => track(open, s));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as net.AddressInfo).port;
  const p: PrefixProxy = {
    url: `https://127.0.0.1:${port}${prefix}`,
    caPem: cert.cert,
    paths: [],
    unprefixed: 0,
    async close() {
      for (const s of open) s.destroy();
      agent.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  return p;
}

/** A kubeconfig (YAML) for one cluster with a token, an optional CA and an optional proxy-url. */
export function kubeconfigText(o: { server: string; token: string; caPem?: string; proxyUrl?: string; name?: string }): string {
  const name = o.name ?? 'test';
  const cluster: Record<string, unknown> = { server: o.server };
  if (o.caPem) cluster['certificate-authority-data'] = Buffer.from(o.caPem).toString('base64');
  else cluster['insecure-skip-tls-verify'] = true;
  if (o.proxyUrl) cluster['proxy-url'] = o.proxyUrl;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: o.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
  });
}
