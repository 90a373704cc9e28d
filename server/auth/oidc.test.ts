/**
 * The OIDC sign-in against a real OpenID provider (oidc-provider on loopback), over HTTP: the login
 * form is scripted like a browser (cookies, redirects), so every check here is one a provider and
 * openid-client actually make — state, nonce, PKCE, the ID token's signature, refresh — not our
 * reading of the spec mirrored in a mock.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createOidcLogin, callbackState, OidcError, type OidcConfig, type OidcLogin, type OidcErrorCode } from './oidc.ts';
import { startTestProvider, DEFAULT_TEST_ACCOUNTS, type TestProvider } from './oidc-test-provider.ts';
import { scriptedSignIn, CookieJar } from './oidc-test-client.ts';

const REDIRECT = 'http://127.0.0.1:3999/auth/oidc/callback';
const AFTER_LOGOUT = 'http://127.0.0.1:3999/signed-out';
const alice = { username: 'alice', password: 'password' };
const bob = { username: 'bob', password: 'password' };

function configFor(p: TestProvider, extra: Partial<OidcConfig> = {}): OidcConfig {
  return { issuer: p.issuer, clientId: p.clientId, clientSecret: p.clientSecret, redirectUri: REDIRECT, ...extra };
}

/** Rejects with an OidcError of this code; returns it for further checks. */
async function oidcError(promise: Promise<unknown>, code: OidcErrorCode): Promise<OidcError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof OidcError, `expected an OidcError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected an OidcError ${code}, but it resolved`);
}

/** Nothing credential-shaped in a message: not the code, not a token. */
function assertNoSecrets(message: string, ...secrets: Array<string | null | undefined>): void {
  for (const s of secrets) if (s) assert.ok(!message.includes(s), `the message leaks a secret: ${message}`);
  assert.doesNotMatch(message, /eyJ[A-Za-z0-9_-]{10,}/, 'the message contains a JWT');
}

async function signIn(login: OidcLogin, who: { username: string; password: string }, returnTo = '/') {
  const { url, pending } = await login.begin(returnTo);
  const jar = new CookieJar();
  const callback = await scriptedSignIn(url, who, jar);
  return { pending, callback, jar, identity: await login.complete(callback, pending) };
}

describe('OIDC sign-in against a real provider', { timeout: 30_000 }, () => {
  let provider: TestProvider;
  let login: OidcLogin;

  before(async () => {
    provider = await startTestProvider({ redirectUris: [REDIRECT], postLogoutRedirectUris: [AFTER_LOGOUT] });
    login = await createOidcLogin(configFor(provider));
  });
  after(() => provider.stop());

  test('the authorization URL asks for a code with PKCE S256, state, nonce and the supported scopes', async () => {
    const { url, pending } = await login.begin('/');
    const u = new URL(url);
    assert.equal(u.origin, provider.issuer);
    const q = u.searchParams;
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('client_id'), provider.clientId);
    assert.equal(q.get('redirect_uri'), REDIRECT);
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(q.get('code_challenge'), pending.codeVerifier);
    assert.equal(q.get('state'), pending.state);
    assert.equal(q.get('nonce'), pending.nonce);
    assert.deepEqual(q.get('scope')?.split(' '), ['openid', 'profile', 'email', 'groups', 'offline_access']);
    assert.deepEqual(login.scopes, ['openid', 'profile', 'email', 'groups', 'offline_access']);
  });

  test('a full code flow yields the user and groups from the claims', async () => {
    const before = Date.now();
    const { pending, callback, identity } = await signIn(login, alice, '/workloads?ns=llm');
    assert.equal(callbackState(callback), pending.state);
    assert.equal(identity.user, 'alice@example.com');
    assert.deepEqual(identity.groups, ['team-llm']);
    assert.equal(identity.subject, 'alice');
    assert.equal(identity.returnTo, '/workloads?ns=llm');
    assert.ok(identity.expiresAt > before + 3500_000 && identity.expiresAt <= Date.now() + 3600_000, `expiresAt ${identity.expiresAt}`);
    assert.equal(typeof identity.refreshToken, 'string');
    assert.match(identity.idToken ?? '', /^eyJ/);
  });

  test('a second user is a different identity', async () => {
    const { identity } = await signIn(login, bob);
    assert.equal(identity.user, 'bob@example.com');
    assert.deepEqual(identity.groups, DEFAULT_TEST_ACCOUNTS.bob.claims.groups);
  });

  test('returnTo is kept to same-origin paths', async () => {
    for (const [given, kept] of [['https://evil.example/x', '/'], ['//evil.example/x', '/'], ['/\\evil.example', '/'], ['', '/'], ['/a/../b?x=1', '/b?x=1']]) {
      assert.equal((await login.begin(given)).pending.returnTo, kept, given);
    }
  });

  test('a callback with another sign-in\'s state is refused before its code is spent', async () => {
    const a = await login.begin('/a');
    const b = await login.begin('/b');
    const callback = await scriptedSignIn(a.url, alice);
    const err = await oidcError(login.complete(callback, b.pending), 'state_mismatch');
    assertNoSecrets(err.message, callback.searchParams.get('code'));
    const noState = new URL(callback);
    noState.searchParams.delete('state');
    await oidcError(login.complete(noState, a.pending), 'state_mismatch');
    // The code was never sent: the right sign-in still completes with it.
    assert.equal((await login.complete(callback, a.pending)).user, 'alice@example.com');
  });

  test('an ID token with another nonce is refused', async () => {
    const a = await login.begin('/');
    const other = await login.begin('/');
    const callback = await scriptedSignIn(a.url, alice);
    const err = await oidcError(login.complete(callback, { ...a.pending, nonce: other.pending.nonce }), 'id_token_invalid');
    assert.match(err.message, /nonce/);
    assert.match(err.message, new RegExp(provider.issuer.replace(/[.:/]/g, '\\$&')));
    assertNoSecrets(err.message, callback.searchParams.get('code'), a.pending.nonce, other.pending.nonce);
  });

  test('a PKCE verifier that does not match is refused by the provider', async () => {
    const a = await login.begin('/');
    const other = await login.begin('/');
    const callback = await scriptedSignIn(a.url, alice);
    const err = await oidcError(login.complete(callback, { ...a.pending, codeVerifier: other.pending.codeVerifier }), 'exchange_failed');
    assert.equal(err.providerError, 'invalid_grant');
    assertNoSecrets(err.message, callback.searchParams.get('code'), other.pending.codeVerifier);
  });

  test('a code is good once', async () => {
    const { url, pending } = await login.begin('/');
    const callback = await scriptedSignIn(url, alice);
    await login.complete(callback, pending);
    const err = await oidcError(login.complete(callback, pending), 'exchange_failed');
    assert.equal(err.providerError, 'invalid_grant');
    assertNoSecrets(err.message, callback.searchParams.get('code'));
  });

  test('cancelling at the provider is access_denied, told as such', async () => {
    const { url, pending } = await login.begin('/');
    const callback = await scriptedSignIn(url, 'cancel');
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    const err = await oidcError(login.complete(callback, pending), 'provider_error');
    assert.equal(err.providerError, 'access_denied');
    assert.match(err.message, /cancelled or refused/);
  });

  test('a sign-in that took too long is refused', async () => {
    const { url, pending } = await login.begin('/');
    const callback = await scriptedSignIn(url, alice);
    await oidcError(login.complete(callback, { ...pending, createdAt: Date.now() - 11 * 60_000 }), 'login_expired');
  });

  test('a wrong password keeps the user on the provider\'s form', async () => {
    const { url } = await login.begin('/');
    await assert.rejects(scriptedSignIn(url, { username: 'alice', password: 'nope' }), (err: Error & { page?: string }) => {
      assert.match(err.page ?? '', /Wrong username or password/);
      return true;
    });
  });

  test('a refresh token that is not one is refused', async () => {
    const err = await oidcError(login.refresh('not-a-refresh-token'), 'refresh_failed');
    assert.equal(err.providerError, 'invalid_grant');
  });

  test('RP-initiated logout: a URL at the provider whose sign-out form leads back to us', async () => {
    const { identity, jar } = await signIn(login, alice);
    const url = login.endSessionUrl({ idToken: identity.idToken, postLogoutRedirectUri: AFTER_LOGOUT, state: 'xyz' });
    assert.ok(url);
    const u = new URL(url);
    assert.equal(u.origin, provider.issuer);
    assert.equal(u.searchParams.get('id_token_hint'), identity.idToken);
    assert.equal(u.searchParams.get('post_logout_redirect_uri'), AFTER_LOGOUT);
    assert.equal(u.searchParams.get('client_id'), provider.clientId);
    // The browser, with the provider's session cookie, is asked to confirm.
    const res = await fetch(u, { redirect: 'manual', headers: { cookie: jar.header(u) } });
    jar.store(res);
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.match(html, /name="logout" value="yes"[^>]*>Yes, sign me out/);
    assert.doesNotMatch(html, /https:\/\//, 'the page loads nothing from the internet');
    const form = /<form[^>]*action="([^"]+)"[^>]*>[\s\S]*?name="xsrf" value="([^"]+)"/.exec(html);
    assert.ok(form, html);
    const confirm = new URL(form[1], u);
    const done = await fetch(confirm, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(confirm), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: form[2], logout: 'yes' }),
    });
    await done.body?.cancel();
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `${AFTER_LOGOUT}?state=xyz`);
  });
});

describe('refresh', { timeout: 30_000 }, () => {
  let provider: TestProvider;
  let login: OidcLogin;

  before(async () => {
    provider = await startTestProvider({ redirectUris: [REDIRECT], idTokenTtlSeconds: 5 });
    login = await createOidcLogin(configFor(provider));
  });
  after(() => provider.stop());

  test('a refresh yields the same user with a later expiry', async () => {
    const { identity } = await signIn(login, alice);
    assert.ok(identity.expiresAt <= Date.now() + 5000);
    assert.ok(identity.refreshToken);
    // ID token times are whole seconds: wait into the next one.
    await new Promise((r) => setTimeout(r, 1100));
    const next = await login.refresh(identity.refreshToken, identity.subject);
    assert.equal(next.user, 'alice@example.com');
    assert.deepEqual(next.groups, ['team-llm']);
    assert.equal(next.subject, 'alice');
    assert.ok(next.expiresAt > identity.expiresAt, `${next.expiresAt} > ${identity.expiresAt}`);
    assert.ok(next.refreshToken);
    assert.match(next.idToken ?? '', /^eyJ/);
    // And again, with whichever refresh token is current.
    assert.equal((await login.refresh(next.refreshToken)).user, 'alice@example.com');
  });

  test('a refresh that returns someone else is refused', async () => {
    const { identity } = await signIn(login, bob);
    assert.ok(identity.refreshToken);
    const err = await oidcError(login.refresh(identity.refreshToken, 'alice'), 'subject_changed');
    assertNoSecrets(err.message, identity.refreshToken);
  });
});

describe('claims', { timeout: 30_000 }, () => {
  let provider: TestProvider;

  before(async () => {
    provider = await startTestProvider({
      redirectUris: [REDIRECT],
      publicClient: true,
      accounts: {
        ...DEFAULT_TEST_ACCOUNTS,
        carol: { password: 'password', claims: { email: 'carol@example.com', email_verified: false, preferred_username: 'carol' } },
        dave: { password: 'password', claims: { preferred_username: 'dave', groups: 'solo' } },
      },
    });
  });
  after(() => provider.stop());

  test('a public client (PKCE only) signs in', async () => {
    const login = await createOidcLogin(configFor(provider));
    assert.equal((await signIn(login, alice)).identity.user, 'alice@example.com');
  });

  test('another username claim gets the issuer prefix unless told otherwise; groups get their prefix', async () => {
    const prefixed = await createOidcLogin(configFor(provider, { usernameClaim: 'preferred_username', groupsPrefix: 'oidc:' }));
    const a = (await signIn(prefixed, bob)).identity;
    assert.equal(a.user, `${provider.issuer}#bob`);
    assert.deepEqual(a.groups, ['oidc:team-vision']);
    const bare = await createOidcLogin(configFor(provider, { usernameClaim: 'sub', usernamePrefix: '-' }));
    assert.equal((await signIn(bare, bob)).identity.user, 'bob');
    const custom = await createOidcLogin(configFor(provider, { usernameClaim: 'preferred_username', usernamePrefix: 'oidc:' }));
    assert.equal((await signIn(custom, bob)).identity.user, 'oidc:bob');
  });

  test('a groups claim that is one string is one group; no groups claim is no groups', async () => {
    const login = await createOidcLogin(configFor(provider, { usernameClaim: 'preferred_username', usernamePrefix: '-' }));
    assert.deepEqual((await signIn(login, { username: 'dave', password: 'password' })).identity.groups, ['solo']);
    assert.deepEqual((await signIn(login, { username: 'carol', password: 'password' })).identity.groups, []);
  });

  test('a missing username claim is an error that names the claim', async () => {
    const login = await createOidcLogin(configFor(provider, { usernameClaim: 'upn' }));
    const { url, pending } = await login.begin('/');
    const err = await oidcError(login.complete(await scriptedSignIn(url, alice), pending), 'claim_missing');
    assert.match(err.message, /"upn" claim/);
    assert.match(err.message, /claims received: .*email/);
    assertNoSecrets(err.message);
  });

  test('an account without the email claim cannot sign in with the default username claim', async () => {
    const login = await createOidcLogin(configFor(provider));
    const { url, pending } = await login.begin('/');
    const err = await oidcError(login.complete(await scriptedSignIn(url, { username: 'dave', password: 'password' }), pending), 'claim_missing');
    assert.match(err.message, /"email" claim/);
  });

  test('an unverified email is not a username', async () => {
    const login = await createOidcLogin(configFor(provider));
    const { url, pending } = await login.begin('/');
    await oidcError(login.complete(await scriptedSignIn(url, { username: 'carol', password: 'password' }), pending), 'email_unverified');
  });

  test('explicit scopes are asked for as given, with openid', async () => {
    const login = await createOidcLogin(configFor(provider, { scopes: ['email'] }));
    assert.deepEqual(login.scopes, ['openid', 'email']);
    const { identity } = await signIn(login, alice);
    assert.equal(identity.user, 'alice@example.com');
    assert.deepEqual(identity.groups, [], 'no groups scope, no groups');
  });
});

test('claims only at userinfo (the spec\'s strict reading) are read from there', { timeout: 30_000 }, async () => {
  const provider = await startTestProvider({ redirectUris: [REDIRECT], claimsInIdToken: false, idTokenTtlSeconds: 60 });
  try {
    const login = await createOidcLogin(configFor(provider));
    const { identity } = await signIn(login, alice);
    assert.equal(identity.user, 'alice@example.com');
    assert.deepEqual(identity.groups, ['team-llm']);
    assert.ok(identity.refreshToken);
    const next = await login.refresh(identity.refreshToken, identity.subject);
    assert.equal(next.user, 'alice@example.com');
    assert.deepEqual(next.groups, ['team-llm']);
  } finally {
    await provider.stop();
  }
});

describe('discovery', { timeout: 30_000 }, () => {
  test('a provider that is not there: the error names the issuer', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const issuer = `http://127.0.0.1:${port}`;
    const err = await oidcError(createOidcLogin({ issuer, clientId: 'x', redirectUri: REDIRECT, timeoutMs: 2000 }), 'discovery_failed');
    assert.ok(err.message.includes(issuer), err.message);
    assert.match(err.message, /ECONNREFUSED/);
    assert.equal(err.issuer, issuer);
  });

  test('a provider that never answers: the error comes after the timeout, naming the issuer', async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((s) => sockets.add(s)); // accepts, reads nothing, says nothing
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const issuer = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/realms/team`;
    try {
      const started = Date.now();
      const err = await oidcError(createOidcLogin({ issuer, clientId: 'x', redirectUri: REDIRECT, timeoutMs: 300 }), 'discovery_failed');
      const took = Date.now() - started;
      assert.ok(took >= 250 && took < 3000, `took ${took} ms`);
      assert.ok(err.message.includes(`${issuer}/.well-known/openid-configuration`), err.message);
      assert.match(err.message, /no answer within 300 ms/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  test('a provider whose configuration is for another issuer is refused', async () => {
    const provider = await startTestProvider({ redirectUris: [REDIRECT] });
    try {
      const issuer = provider.issuer.replace('127.0.0.1', 'localhost');
      const err = await oidcError(createOidcLogin({ issuer, clientId: provider.clientId, redirectUri: REDIRECT }), 'discovery_failed');
      assert.ok(err.message.includes(issuer), err.message);
    } finally {
      await provider.stop();
    }
  });

  test('plain http only to loopback; URLs must be URLs', async () => {
    const remote = await oidcError(createOidcLogin({ issuer: 'http://login.example.com', clientId: 'x', redirectUri: REDIRECT }), 'config_invalid');
    assert.match(remote.message, /must use https/);
    await oidcError(createOidcLogin({ issuer: 'login.example.com', clientId: 'x', redirectUri: REDIRECT }), 'config_invalid');
    await oidcError(createOidcLogin({ issuer: 'https://login.example.com', clientId: 'x', redirectUri: '/callback' }), 'config_invalid');
  });
});
