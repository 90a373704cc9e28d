/**
 * Hostile requests at the front door: a real HTTP server on loopback whose handler is the gate and,
 * behind it, an "ok" answer. Raw requests (node:http, so Host, Origin and bodies are exactly what a
 * hostile client sends); every refusal must be a 4xx with a JSON error, every response must carry
 * the security headers, and a request the gate lets through must reach the handler unchanged.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { requestGate, type Gate } from './gate.ts';
import { rawRequest, type Answer } from './test-http.ts';
import { sharedMode } from './shared-mode.ts';

const shared = (accessToken: string) => sharedMode({ accessToken });

const raw = rawRequest;

/** A request line exactly as given (node:http validates paths and headers a hostile client need not). */
function wire(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.end(text));
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (c: string) => (out += c));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

function startBehind(gate: () => Gate): Promise<{ port: number; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  let g: Gate | null = null;
  const server = http.createServer((req, res) => {
    if (!g) return;
    void g.answer(req, res).then((answered) => {
      if (answered) return;
      seen.push(`${req.method} ${req.url}`);
      res.end(JSON.stringify({ ok: true, csp: req.headers['content-security-policy'] ?? null }));
    });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      g = gate.call({ port });
      ok({ port, seen, close: () => new Promise((done) => { server.close(() => done()); server.closeAllConnections(); }) });
    }),
  );
}

let loop: Awaited<ReturnType<typeof startBehind>>;
let exposed: Awaited<ReturnType<typeof startBehind>>;
let loopPort = 0;
let exposedPort = 0;

before(async () => {
  loop = await startBehind(function (this: { port: number }) {
    loopPort = this.port;
    return requestGate({ bindHost: '127.0.0.1', port: this.port, scriptHashes: ["'sha256-abc'"] });
  });
  exposed = await startBehind(function (this: { port: number }) {
    exposedPort = this.port;
    return requestGate({ bindHost: '0.0.0.0', port: this.port, shared: shared('s3cret'), allowedHosts: ['wmap.example.com'] });
  });
});
after(async () => {
  await loop.close();
  await exposed.close();
});

const own = () => `127.0.0.1:${loopPort}`;
const origin = () => `http://${own()}`;

function assertJsonError(a: Answer, status: number, code: string): void {
  assert.equal(a.status, status, a.body);
  assert.match(String(a.headers['content-type']), /^application\/json/);
  assert.equal(JSON.parse(a.body).error.code, code);
}

test('every response carries the security headers, refusals included', async () => {
  for (const a of [await raw(loopPort, { path: '/' }), await raw(loopPort, { path: '/', headers: { host: 'evil.example' } })]) {
    assert.match(String(a.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.match(String(a.headers['content-security-policy']), /script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'sha256-abc'/);
    assert.doesNotMatch(String(a.headers['content-security-policy']), /script-src[^;]*unsafe-inline/);
    assert.equal(a.headers['x-content-type-options'], 'nosniff');
    assert.equal(a.headers['x-frame-options'], 'DENY');
    assert.equal(a.headers['referrer-policy'], 'no-referrer');
  }
});

test('the request carries the same CSP as the response, with a fresh nonce each time (Next.js reads it)', async () => {
  const a = await raw(loopPort, { path: '/' });
  const b = await raw(loopPort, { path: '/' });
  assert.equal(JSON.parse(a.body).csp, a.headers['content-security-policy']);
  assert.notEqual(a.headers['content-security-policy'], b.headers['content-security-policy']);
});

test('DNS rebinding: only the loopback names on the server\'s own port are answered', async () => {
  for (const host of [own(), `localhost:${loopPort}`, `[::1]:${loopPort}`, `LOCALHOST:${loopPort}`]) {
    assert.equal((await raw(loopPort, { path: '/api/workloads', headers: { host } })).status, 200, host);
  }
  for (const host of ['evil.example', `evil.example:${loopPort}`, '127.0.0.1', `127.0.0.1:${loopPort + 1}`, `127.0.0.1.evil.example:${loopPort}`, `localhost.:${loopPort}`, `user@127.0.0.1:${loopPort}`, `127.0.0.1:${loopPort}/x`, `127.0.0.1:99999`, '[::1', ' ']) {
    const a = await raw(loopPort, { path: '/api/workloads', headers: { host } });
    assert.ok(a.status === 421 || a.status === 400, `${host}: ${a.status}`);
    assert.ok(!a.body.includes('"ok"'), host);
  }
  assertJsonError(await raw(loopPort, { path: '/api/workloads', headers: { host: 'evil.example' } }), 421, 'wrong_host');
});

test('a request without a Host header (HTTP/1.0) is refused', async () => {
  const text = await wire(loopPort, 'GET /api/workloads HTTP/1.0\r\n\r\n');
  assert.match(text, /^HTTP\/1\.1 400/);
  assert.match(text, /missing_host/);
});

test('a request target that is not a path, or too long, is a 4xx', async () => {
  assert.match(await wire(loopPort, `GET http://evil.example/x HTTP/1.1\r\nHost: ${own()}\r\nConnection: close\r\n\r\n`), /^HTTP\/1\.1 400[\s\S]*invalid_target/);
  assert.match(await wire(loopPort, `GET *  HTTP/1.1\r\nHost: ${own()}\r\nConnection: close\r\n\r\n`), /^HTTP\/1\.1 400/);
  assertJsonError(await raw(loopPort, { path: `/${'a'.repeat(9000)}` }), 414, 'uri_too_long');
  // A malformed escape would make the router throw; a well-formed `%25` is passed on as it is.
  assertJsonError(await raw(loopPort, { path: '/api/workloads/%25/%E0%A4%A/x' }), 400, 'invalid_target');
  assertJsonError(await raw(loopPort, { path: '/%' }), 400, 'invalid_target');
  assert.equal((await raw(loopPort, { path: '/api/workloads/%25/x?q=%zz' })).status, 200);
});

test('cross-site writes: a POST needs this server\'s Origin (or Sec-Fetch-Site same-origin) and a JSON body', async () => {
  const json = { 'content-type': 'application/json' };
  const body = '{"text":"x"}';
  const post = (headers: Record<string, string>) => raw(loopPort, { method: 'POST', path: '/api/definitions/validate', headers, body });
  assert.equal((await post({ ...json, origin: origin() })).status, 200);
  assert.equal((await post({ ...json, 'sec-fetch-site': 'same-origin' })).status, 200);
  assertJsonError(await post({ ...json, origin: 'http://evil.example' }), 403, 'cross_origin');
  assertJsonError(await post({ ...json, origin: 'null' }), 403, 'cross_origin');
  assertJsonError(await post({ ...json, origin: 'null', 'sec-fetch-site': 'cross-site' }), 403, 'cross_origin');
  // A browser's own form under Referrer-Policy: no-referrer says Origin: null, and Sec-Fetch-Site says where it is from.
  assert.equal((await post({ ...json, origin: 'null', 'sec-fetch-site': 'same-origin' })).status, 200);
  assertJsonError(await post({ ...json, origin: `http://localhost:${loopPort + 1}` }), 403, 'cross_origin');
  assertJsonError(await post({ ...json, origin: `https://${own()}` }), 403, 'cross_origin');
  assertJsonError(await post({ ...json, origin: `${origin()}/path` }), 403, 'cross_origin');
  assertJsonError(await post({ ...json, origin: origin(), 'sec-fetch-site': 'cross-site' }), 403, 'cross_origin');
  assertJsonError(await post({ ...json, 'sec-fetch-site': 'same-site' }), 403, 'cross_origin');
  assertJsonError(await post(json), 403, 'origin_required');
  // The "simple" requests any page may send without a preflight.
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/jsonx']) {
    assertJsonError(await post({ 'content-type': type, origin: origin() }), 415, 'unsupported_media_type');
  }
  assertJsonError(await post({ origin: origin() }), 415, 'unsupported_media_type');
  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    assertJsonError(await raw(loopPort, { method, path: '/api/test-hooks', headers: { ...json, origin: 'http://evil.example' }, body }), 403, 'cross_origin');
  }
  assert.deepEqual(loop.seen.filter((s) => s.startsWith('POST')).length, 3);
});

test('a declared body beyond the limit is refused before it is read, and the connection closed', async () => {
  const seenBefore = loop.seen.length;
  const text = await wire(loopPort, `POST /api/definitions/validate HTTP/1.1\r\nHost: ${own()}\r\nOrigin: ${origin()}\r\nContent-Type: application/json\r\nContent-Length: ${64 << 20}\r\n\r\n{"text":`);
  assert.match(text, /^HTTP\/1\.1 413/);
  assert.match(text, /\r\nconnection: close\r\n/i);
  assert.match(text, /"code":"too_large"/);
  assert.equal(loop.seen.length, seenBefore, 'never reached the handler');
});

test('GET stays open to plain clients (curl, kubectl-style tools) on loopback', async () => {
  assert.equal((await raw(loopPort, { path: '/api/workloads?q=x' })).status, 200);
  assert.equal((await raw(loopPort, { method: 'HEAD', path: '/' })).status, 200);
});

test('an exposed server: Host is its configured names, the token is required, malformed cookies are no cookies', async () => {
  const host = `wmap.example.com:${exposedPort}`;
  assertJsonError(await raw(exposedPort, { path: '/api/workloads', headers: { host } }), 401, 'unauthorized');
  assertJsonError(await raw(exposedPort, { path: '/api/workloads', headers: { host: 'evil.example', authorization: 'Bearer s3cret' } }), 421, 'wrong_host');
  assert.equal((await raw(exposedPort, { path: '/api/workloads', headers: { host, authorization: 'Bearer s3cret' } })).status, 200);
  const link = await raw(exposedPort, { path: '/?token=s3cret', headers: { host } });
  const session = /wmap_session=([^;]+)/.exec(String(link.headers['set-cookie']))?.[1] ?? '';
  assert.ok(session.length >= 40, 'the link gives a session cookie');
  assert.equal((await raw(exposedPort, { path: '/api/workloads', headers: { host, cookie: `a=1; wmap_session=${session}` } })).status, 200);
  // The old raw-token cookie is no credential any more; nor is anything malformed.
  for (const cookie of ['wmap_token=s3cret', 'wmap_session=%', 'wmap_session=%E0%A4%A', 'wmap_session', `wmap_session=; wmap_session=${session}`, '=%%; wmap_session="%zz"', `wmap_session=${session.slice(1)}`, `wmap_session=${'x'.repeat(4000)}`]) {
    assertJsonError(await raw(exposedPort, { path: '/api/workloads', headers: { host, cookie } }), 401, 'unauthorized');
  }
  assertJsonError(await raw(exposedPort, { path: '/api/workloads', headers: { host, authorization: 'Bearer wrong' } }), 401, 'unauthorized');
  assertJsonError(await raw(exposedPort, { path: '/api/workloads', headers: { host, authorization: 'Basic s3cret' } }), 401, 'unauthorized');
  // A browser navigating without a session is sent to the sign-in page, which says how to sign in.
  const nav = await raw(exposedPort, { path: '/workloads?x=1', headers: { host, accept: 'text/html', 'sec-fetch-mode': 'navigate' } });
  assert.equal(nav.status, 303);
  assert.equal(nav.headers.location, `/signin?next=${encodeURIComponent('/workloads?x=1')}`);
  const page = await raw(exposedPort, { path: '/signin', headers: { host } });
  assert.equal(page.status, 200);
  assert.match(page.body, /<form method="post" action="\/auth\/signin">/);
});

test('an exposed server accepts its https origin behind a TLS proxy', async () => {
  const host = `wmap.example.com:${exposedPort}`;
  const a = await raw(exposedPort, { method: 'POST', path: '/api/x', headers: { host, authorization: 'Bearer s3cret', 'content-type': 'application/json', origin: `https://${host}` }, body: '{}' });
  assert.equal(a.status, 200, a.body);
});

test('a loopback server also answers the names configured for a tunnel, and only those', async () => {
  const g = requestGate({ bindHost: '127.0.0.1', port: 3000, allowedHosts: ['localhost:8080'] });
  assert.ok(g.policy.allowed.has('localhost:8080'));
  assert.ok(g.policy.allowed.has('127.0.0.1:3000'));
  assert.ok(!g.policy.allowed.has('127.0.0.1:8080'));
});

test('configuration mistakes are refused at start, not at the first request', () => {
  assert.throws(() => requestGate({ bindHost: '0.0.0.0', port: 1, allowedHosts: ['a'] }), /shared mode/);
  assert.throws(() => requestGate({ bindHost: '0.0.0.0', port: 1, shared: shared('t') }), /WMAP_ALLOWED_HOSTS/);
  assert.throws(() => requestGate({ bindHost: '10.0.0.5', port: 1, shared: shared('t'), allowedHosts: ['bad host/x'] }), /not a host name/);
  assert.doesNotThrow(() => requestGate({ bindHost: '10.0.0.5', port: 1, shared: shared('t') }));
  assert.throws(() => sharedMode({}), /a way to sign in/);
});
