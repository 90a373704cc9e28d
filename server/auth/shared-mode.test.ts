/**
 * Shared mode at the front door, over real HTTP: signing in with a Kubernetes token (reviewed by a
 * stand-in TokenReview), the session cookie and its flags, sign-out, an authenticating proxy's
 * headers (trusted only with its secret), bearer tokens reviewed once, forged identity headers, and
 * expired sessions. Behind the gate a handler answers with the principal it was stamped with.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import type { TokenVerdict } from './authenticate.ts';
import { requestGate } from './gate.ts';
import { IDENTITY_HEADER, principalOfHeaders } from './request-identity.ts';
import { sharedMode, type SharedModeOptions } from './shared-mode.ts';
import { rawRequest, type Answer } from './test-http.ts';

const servers: http.Server[] = [];
after(() => {
  for (const s of servers) s.closeAllConnections();
  return Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
});

const TOKENS: Record<string, TokenVerdict> = {
  'alice-token': { user: 'alice', groups: ['team-llm', 'system:authenticated'], uid: 'u-1', cluster: 'c1' },
  'bob-token': { user: 'bob', groups: ['system:authenticated'], cluster: 'c1' },
};

async function start(o: Partial<SharedModeOptions> = {}): Promise<{ base: string; port: number; reviews: string[] }> {
  const reviews: string[] = [];
  const shared = sharedMode({
    accessToken: 'admin-secret',
    reviewToken: async (t) => {
      reviews.push(t);
      return TOKENS[t] ?? { error: 'cluster c1 does not know this token' };
    },
    ...o,
  });
  let gate: ReturnType<typeof requestGate> | null = null;
  const server = http.createServer((req, res) => {
    void gate!.answer(req, res).then((answered) => {
      if (answered) return;
      const p = principalOfHeaders({ get: (n) => (req.headers[n] as string | undefined) ?? null });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(p ? { user: p.user, groups: p.groups, via: p.via, credential: p.credential.kind } : null));
    });
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as net.AddressInfo).port;
  gate = requestGate({ bindHost: '127.0.0.1', port, shared });
  return { base: `http://127.0.0.1:${port}`, port, reviews };
}

const raw = rawRequest;

const cookieOf = (a: Answer) => /wmap_session=([^;]*)/.exec(String(a.headers['set-cookie']))?.[1] ?? '';

test('signing in with a Kubernetes token: reviewed, a session cookie (HttpOnly, SameSite=Strict, expiry), never the token', async () => {
  const { base, port } = await start();
  const form = `token=alice-token&next=${encodeURIComponent('/workloads?status=Running')}`;
  const a = await raw(port, { method: 'POST', path: '/auth/signin', headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(form.length) }, body: form });
  assert.equal(a.status, 303, a.body);
  assert.equal(a.headers.location, '/workloads?status=Running');
  const set = String(a.headers['set-cookie']);
  assert.match(set, /^wmap_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/);
  const maxAge = Number(/Max-Age=(\d+)/.exec(set)![1]);
  assert.ok(maxAge > 28_700 && maxAge <= 28_800, `eight hours, less the time the test took: ${maxAge}`);
  assert.ok(!set.includes('alice-token'));
  const me = await raw(port, { path: '/api/me', headers: { cookie: `wmap_session=${cookieOf(a)}` } });
  assert.deepEqual(JSON.parse(me.body), { user: 'alice', groups: ['team-llm', 'system:authenticated'], via: 'token', credential: 'bearer' });
  // Signing out ends the session on the server: the same cookie is nothing afterwards.
  const out = await raw(port, { method: 'POST', path: '/auth/signout', headers: { origin: base, cookie: `wmap_session=${cookieOf(a)}`, accept: 'application/json' } });
  assert.equal(out.status, 200);
  assert.match(String(out.headers['set-cookie']), /wmap_session=; .*Max-Age=0/);
  assert.equal((await raw(port, { path: '/api/me', headers: { cookie: `wmap_session=${cookieOf(a)}` } })).status, 401);
});

test('a rejected token re-renders the sign-in page with the cluster\'s reason; JSON sign-in answers JSON', async () => {
  const { base, port } = await start();
  const form = 'token=nope&next=/';
  const a = await raw(port, { method: 'POST', path: '/auth/signin', headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(form.length) }, body: form });
  assert.equal(a.status, 401);
  assert.match(a.body, /role="alert">The token was not accepted: cluster c1 does not know this token/);
  assert.equal(a.headers['set-cookie'], undefined);
  const body = JSON.stringify({ token: 'bob-token' });
  const j = await raw(port, { method: 'POST', path: '/auth/signin', headers: { origin: base, 'content-type': 'application/json', 'content-length': String(body.length) }, body });
  assert.equal(j.status, 200);
  assert.equal(JSON.parse(j.body).user, 'bob');
});

test('sign-in is refused from another site (login CSRF) and the next page never leaves the server', async () => {
  const { base, port } = await start();
  const form = 'token=alice-token&next=//evil.example/x';
  const cross = await raw(port, { method: 'POST', path: '/auth/signin', headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(form.length) }, body: form });
  assert.equal(cross.status, 403);
  const ok = await raw(port, { method: 'POST', path: '/auth/signin', headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(form.length) }, body: form });
  assert.equal(ok.headers.location, '/evil.example/x');
  assert.equal((await raw(port, { path: '/auth/signin' })).status, 405);
});

test('bearer tokens: the access token is the server\'s own identity; a Kubernetes token is reviewed once a minute, not per request', async () => {
  const { port, reviews } = await start();
  assert.deepEqual(JSON.parse((await raw(port, { path: '/api/x', headers: { authorization: 'Bearer admin-secret' } })).body), { user: 'admin (access token)', groups: [], via: 'access-token', credential: 'own' });
  for (let i = 0; i < 5; i++) assert.equal(JSON.parse((await raw(port, { path: '/api/x', headers: { authorization: 'Bearer alice-token' } })).body).user, 'alice');
  assert.deepEqual(reviews, ['alice-token']);
  const bad = await raw(port, { path: '/api/x', headers: { authorization: 'Bearer nope' } });
  assert.equal(bad.status, 401);
  assert.match(JSON.parse(bad.body).error.message, /does not know this token/);
});

test('an authenticating proxy is trusted only with its secret; its headers from anyone else are dropped', async () => {
  const { port } = await start({ proxy: { secret: 'proxy-s3cret' } });
  const trusted = await raw(port, { path: '/api/x', headers: { 'x-wmap-proxy-secret': 'proxy-s3cret', 'x-remote-user': 'carol', 'x-remote-group': ['ml, ops', 'viewers'] } });
  assert.deepEqual(JSON.parse(trusted.body), { user: 'carol', groups: ['ml', 'ops', 'viewers'], via: 'proxy', credential: 'impersonate' });
  assert.equal((await raw(port, { path: '/api/x', headers: { 'x-remote-user': 'carol' } })).status, 401);
  assert.equal((await raw(port, { path: '/api/x', headers: { 'x-wmap-proxy-secret': 'wrong', 'x-remote-user': 'carol' } })).status, 401);
});

test('a forged identity header names nobody; an unknown or expired session is a 401, a page navigation goes to sign-in', async () => {
  let now = Date.now();
  const { port } = await start({ sessionTtlMs: 1000, now: () => now });
  assert.equal((await raw(port, { path: '/api/x', headers: { [IDENTITY_HEADER]: 'anything' } })).status, 401);
  const a = await raw(port, { path: '/?token=admin-secret' });
  const cookie = `wmap_session=${cookieOf(a)}`;
  assert.equal((await raw(port, { path: '/api/x', headers: { cookie, [IDENTITY_HEADER]: 'forged' } })).status, 200);
  now += 1001;
  assert.equal((await raw(port, { path: '/api/x', headers: { cookie } })).status, 401);
  const nav = await raw(port, { path: '/nodes', headers: { cookie, 'sec-fetch-mode': 'navigate', accept: 'text/html' } });
  assert.equal(nav.status, 303);
  assert.equal(nav.headers.location, '/signin?next=%2Fnodes');
});

test('an OIDC session whose identity is due is renewed; a failed renewal ends it', async () => {
  let now = Date.now();
  let refreshOk = true;
  const oidc = {
    begin: async () => ({ url: 'http://idp.invalid/auth?state=s1', pending: {} }),
    complete: async () => ({ user: 'dave@example.com', groups: ['a'], subject: 'sub-1', expiresAt: now + 1000, refreshToken: 'r1', returnTo: '/' }),
    refresh: async () => {
      if (!refreshOk) throw new Error('invalid_grant');
      return { user: 'dave@example.com', groups: ['a', 'b'], subject: 'sub-1', expiresAt: now + 1000, refreshToken: 'r2' };
    },
  };
  const { base, port } = await start({ oidc, now: () => now });
  const login = await raw(port, { path: '/auth/oidc/login?next=/nodes' });
  assert.equal(login.status, 303);
  assert.equal(login.headers.location, 'http://idp.invalid/auth?state=s1');
  const state = /wmap_oidc_login=([^;]+); HttpOnly; SameSite=Lax; Path=\/auth\/oidc/.exec(String(login.headers['set-cookie']))?.[1];
  assert.equal(state, 's1');
  // A callback this browser did not start is refused.
  assert.equal((await raw(port, { path: '/auth/oidc/callback?state=s1&code=x' })).status, 400);
  const cb = await raw(port, { path: '/auth/oidc/callback?state=s1&code=x', headers: { cookie: 'wmap_oidc_login=s1' } });
  assert.equal(cb.status, 200);
  assert.match(cb.body, /http-equiv="refresh" content="0;url=\/"/);
  const cookie = `wmap_session=${/wmap_session=([^;]+)/.exec(String(cb.headers['set-cookie']))?.[1]}`;
  assert.equal(JSON.parse((await raw(port, { path: '/api/x', headers: { cookie } })).body).user, 'dave@example.com');
  now += 1001;
  assert.deepEqual(JSON.parse((await raw(port, { path: '/api/x', headers: { cookie } })).body).groups, ['a', 'b']);
  now += 1001;
  refreshOk = false;
  const gone = await raw(port, { path: '/api/x', headers: { cookie } });
  assert.equal(gone.status, 401);
  assert.match(gone.body, /could not be renewed/);
  void base;
});
