/**
 * Test support: a real, certified OpenID provider (`oidc-provider`, a dev dependency) on
 * 127.0.0.1 and a random port, with one client and a few accounts, so the OIDC sign-in is tested
 * against the protocol as a provider speaks it rather than against a mock of our own reading of it.
 * Used by oidc.test.ts (scripted over HTTP, see oidc-test-client.ts) and by browser tests.
 *
 * The sign-in pages are our own (the package's development pages are meant to be replaced, load a
 * web font from the internet, and accept any user name): a login form with Username, Password and
 * "Sign in" / "Cancel"; consent is granted without a page (a first-party client). Every page the
 * provider renders itself (errors, sign-out) is replaced too, so nothing here reaches beyond
 * loopback.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account, Configuration, InteractionDetails, PageContext } from 'oidc-provider';

export interface TestAccount {
  password: string;
  /** Claims besides `sub` (which is the account's name); released by scope as configured below. */
  claims: Record<string, unknown>;
}

/** alice and bob; the password of both is `password`. */
export const DEFAULT_TEST_ACCOUNTS: Readonly<Record<string, TestAccount>> = {
  alice: {
    password: 'password',
    claims: { email: 'alice@example.com', email_verified: true, name: 'Alice Liddell', preferred_username: 'alice', groups: ['team-llm'] },
  },
  bob: {
    password: 'password',
    claims: { email: 'bob@example.com', email_verified: true, name: 'Bob Builder', preferred_username: 'bob', groups: ['team-vision'] },
  },
};

export interface TestProviderOptions {
  /** Port on 127.0.0.1; default a free one. */
  port?: number;
  /** The client's registered redirect URIs (exact match, as the provider checks them). */
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  clientId?: string;
  /** The client's secret (client_secret_basic or _post); ignored for a public client. */
  clientSecret?: string;
  /** A public client (no secret, PKCE only) instead of a confidential one. */
  publicClient?: boolean;
  /** Lifetime of ID tokens (and access tokens), seconds; short to test refresh. Default 3600. */
  idTokenTtlSeconds?: number;
  accounts?: Record<string, TestAccount>;
  /**
   * Whether ID tokens carry the scope claims (email, groups, ...), as Dex and Keycloak do. False
   * leaves them to the userinfo endpoint, as the OpenID spec's strict reading does. Default true.
   */
  claimsInIdToken?: boolean;
}

export interface TestProvider {
  /** `http://127.0.0.1:<port>` — no trailing slash, exactly the `iss` of its tokens. */
  issuer: string;
  clientId: string;
  /** Undefined for a public client. */
  clientSecret: string | undefined;
  accounts: Readonly<Record<string, TestAccount>>;
  stop(): Promise<void>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function loginPage(uid: string, clientId: string, error?: string, username = ''): string {
  const alert = error ? `<p role="alert">${escapeHtml(error)}</p>` : '';
  return page(
    'Sign in',
    `<p>to continue to ${escapeHtml(clientId)}</p>${alert}
<form method="post" action="/interaction/${escapeHtml(uid)}" autocomplete="off">
  <label for="username">Username</label> <input id="username" name="username" autocomplete="username" value="${escapeHtml(username)}" required autofocus>
  <label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit" name="action" value="login">Sign in</button>
  <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>`,
  );
}

function sendHtml(res: http.ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

function readForm(req: http.IncomingMessage, limit = 16 * 1024): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > limit) req.destroy(new Error('form too large'));
    });
    req.on('end', () => resolve(new URLSearchParams(text)));
    req.on('error', reject);
  });
}

function passwordMatches(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

function pageHooks(): Pick<Configuration, 'renderError'> & { logoutSource(ctx: PageContext, form: string): void; postLogoutSuccessSource(ctx: PageContext): void } {
  return {
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = page('Sign-in error', Object.entries(out).map(([k, v]) => `<p><strong>${escapeHtml(k)}</strong>: ${escapeHtml(String(v))}</p>`).join(''));
    },
    // `form` is the provider's hidden form (id op.logoutForm, with its xsrf field); the buttons submit it.
    logoutSource(ctx, form) {
      ctx.type = 'html';
      ctx.body = page(
        'Sign out?',
        `${form}<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Yes, sign me out</button> <button type="submit" form="op.logoutForm">No, stay signed in</button>`,
      );
    },
    postLogoutSuccessSource(ctx) {
      ctx.type = 'html';
      ctx.body = page('Signed out', '<p>You are signed out.</p>');
    },
  };
}

export async function startTestProvider(o: TestProviderOptions): Promise<TestProvider> {
  const { default: Provider } = await import('oidc-provider');
  const accounts = o.accounts ?? DEFAULT_TEST_ACCOUNTS;
  const clientId = o.clientId ?? 'wmap';
  const clientSecret = o.publicClient ? undefined : (o.clientSecret ?? 'wmap-test-secret');
  const ttl = o.idTokenTtlSeconds ?? 3600;

  // Our own keys and cookie keys: without them the provider signs with a built-in development key
  // and warns about both on every start.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), use: 'sig', alg: 'RS256' };

  let handle: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const server = http.createServer((req, res) => {
    if (handle) handle(req, res);
    else sendHtml(res, 503, page('Starting', ''));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const hooks = pageHooks();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        ...(clientSecret ? { client_secret: clientSecret } : { token_endpoint_auth_method: 'none' }),
        redirect_uris: o.redirectUris,
        post_logout_redirect_uris: o.postLogoutRedirectUris ?? [],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    findAccount(_ctx, id): Account | undefined {
      const account = Object.hasOwn(accounts, id) ? accounts[id] : undefined;
      return account ? { accountId: id, claims: () => ({ ...account.claims, sub: id }) } : undefined;
    },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    },
    scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
    conformIdTokenClaims: o.claimsInIdToken === false,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource: hooks.logoutSource, postLogoutSuccessSource: hooks.postLogoutSuccessSource },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [signingKey] },
    ttl: { IdToken: ttl, AccessToken: ttl, RefreshToken: 24 * 3600, Interaction: 600, Session: 24 * 3600, Grant: 24 * 3600 },
    pkce: { required: () => true },
    // A refresh token whenever the client may refresh. oidc-provider itself honours offline_access
    // only with prompt=consent (OIDC Core's strict reading), which would put a consent screen in
    // front of every sign-in; Keycloak, Dex and Entra ID do not ask for that, and neither do we.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    renderError: hooks.renderError,
  });
  const callback = provider.callback();

  async function interaction(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let details: InteractionDetails;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      sendHtml(res, 400, page('Sign-in expired', '<p>This sign-in is unknown or has expired; start again from the application.</p>'));
      return;
    }
    const { uid, prompt, params } = details;
    const client = String(params.client_id ?? '');

    if (prompt.name === 'consent') {
      // A first-party client: grant what it asked for, without a page.
      const accountId = details.session?.accountId;
      if (!accountId) throw new Error('consent without a signed-in account');
      const grant = details.grantId ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId: client })) : new provider.Grant({ accountId, clientId: client });
      if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
      if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      return;
    }
    if (prompt.name !== 'login') {
      sendHtml(res, 501, page('Not implemented', `<p>prompt ${escapeHtml(prompt.name)}</p>`));
      return;
    }
    if (req.method === 'GET') {
      sendHtml(res, 200, loginPage(uid, client));
      return;
    }
    if (req.method !== 'POST') {
      sendHtml(res, 405, page('Method not allowed', ''));
      return;
    }
    const form = await readForm(req);
    if (form.get('action') === 'cancel') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User aborted interaction' }, { mergeWithLastSubmission: false });
      return;
    }
    const username = form.get('username') ?? '';
    const account = Object.hasOwn(accounts, username) ? accounts[username] : undefined;
    if (!account || !passwordMatches(form.get('password') ?? '', account.password)) {
      sendHtml(res, 200, loginPage(uid, client, 'Wrong username or password.', username));
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: username } }, { mergeWithLastSubmission: false });
  }

  handle = (req, res) => {
    if (!(req.url ?? '').startsWith('/interaction/')) {
      callback(req, res);
      return;
    }
    interaction(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendHtml(res, 500, page('Error', `<p>${escapeHtml(err instanceof Error ? err.message : String(err))}</p>`));
      else res.destroy();
    });
  };

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
