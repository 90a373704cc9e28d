/**
 * OIDC sign-in for the dashboard's shared mode: the authorization code flow with PKCE (S256), state
 * and nonce, through openid-client (panva's certified relying party). This module is the protocol
 * only; the caller keeps each `PendingLogin` server-side, keyed by its state, from `begin` until
 * the callback, and keeps the identity (with its refresh token) in its session store.
 *
 * What is checked, and by whom: state, the `iss` response parameter, the code exchange (PKCE,
 * client authentication) and the ID token's issuer, audience, expiry and nonce by openid-client;
 * its signature against the provider's JWKS too, which openid-client skips by default for tokens
 * from the token endpoint (TLS vouches for them there) — we turn it on because loopback test
 * providers and some in-cluster ones speak plain http. The state is compared here as well, before
 * anything is sent to the provider, so a stray callback never spends a code.
 *
 * The user and groups come from the ID token; when the configured claims are not in it (providers
 * that follow the spec's strict reading release scope claims only at userinfo), userinfo fills the
 * gaps, checked to be about the same subject.
 */
import * as client from 'openid-client';
import { isIP } from 'node:net';
import { OidcError, describeFailure, isIdTokenFailure, isUnreachable, safeText } from './oidc-error.ts';
import { lacksMappedClaims, userAndGroups, type ClaimMapping } from './oidc-claims.ts';
import { sameOriginRedirect, tokenMatches } from './token.ts';

export { OidcError, type OidcErrorCode } from './oidc-error.ts';

export interface OidcConfig {
  /** The issuer URL exactly as the provider states it (its tokens' `iss`). https, or http to loopback only. */
  issuer: string;
  clientId: string;
  /** For a confidential client (client_secret_basic, or _post where basic is not offered); none means a public client. */
  clientSecret?: string;
  /** This server's callback, registered at the provider (absolute URL). */
  redirectUri: string;
  /**
   * Scopes to ask for; `openid` is always added. Default: openid, profile and email, plus `groups`
   * and `offline_access` (a refresh token) when the provider lists them as supported — asking for
   * a scope a provider does not know makes some of them (Google, Entra ID) refuse the sign-in.
   */
  scopes?: string[];
  /** The claim that is the Kubernetes user name; default `email` (as kube-apiserver's --oidc-username-claim). */
  usernameClaim?: string;
  /** Prepended to the user name. Default: none for `email`, `<issuer>#` otherwise (kube-apiserver's); `-` for none. */
  usernamePrefix?: string;
  /** The claim with the user's groups (a string or a list of strings); default `groups`. */
  groupsClaim?: string;
  /** Prepended to every group; default none. */
  groupsPrefix?: string;
  /** Limit for each request to the provider (discovery, token, keys, userinfo). Default 10 s. */
  timeoutMs?: number;
  /** How long a begun sign-in may take before its callback is refused. Default 10 minutes. */
  loginTtlMs?: number;
}

/** What the caller keeps server-side between `begin` and the callback. Plain data (serializable). */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The same-origin path to go back to after sign-in. */
  returnTo: string;
  /** ms since the epoch. */
  createdAt: number;
}

/** Who signed in, as Kubernetes knows them, and until when. Holds credentials: never send it to a browser. */
export interface OidcIdentity {
  /** The Kubernetes user name: the username claim with its prefix. */
  user: string;
  groups: string[];
  /** The provider's `sub`: stable per user; pass it to `refresh` to insist on the same user. */
  subject: string;
  /** When this identity lapses (ms since the epoch): the ID token's `exp`; refresh before then. */
  expiresAt: number;
  /** Present when the provider issued one (usually for `offline_access`). May change on each refresh. */
  refreshToken?: string;
  /** The raw ID token: the `id_token_hint` of `endSessionUrl`. A credential to clusters that trust this issuer. */
  idToken?: string;
}

export interface OidcSignIn extends OidcIdentity {
  returnTo: string;
}

export interface OidcLogin {
  readonly issuer: string;
  /** The scopes each sign-in asks for. */
  readonly scopes: readonly string[];
  begin(returnTo: string): Promise<{ url: string; pending: PendingLogin }>;
  /** `callbackUrl` is the request's URL as received (its query is what counts; the redirect URI is the configured one). */
  complete(callbackUrl: URL, pending: PendingLogin): Promise<OidcSignIn>;
  /** A refresh-token grant. With `subject`, a token for anyone else is refused. */
  refresh(refreshToken: string, subject?: string): Promise<OidcIdentity>;
  /** The provider's RP-initiated logout URL, or undefined when it offers none. */
  endSessionUrl(o?: { idToken?: string; postLogoutRedirectUri?: string; state?: string }): string | undefined;
}

/** The `state` of a callback, to find its PendingLogin. */
export function callbackState(callbackUrl: URL): string | undefined {
  return callbackUrl.searchParams.get('state') ?? undefined;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_LOGIN_TTL_MS = 10 * 60_000;
const PLACEHOLDER_ORIGIN = 'http://wmap.invalid';

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

function parseUrl(value: string, what: string, issuer: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new OidcError('config_invalid', issuer, `The OIDC ${what} is not an absolute URL: ${JSON.stringify(value)}.`);
  }
}

/** Only same-origin paths survive; anything else becomes `/` (the callback must not redirect off-site). */
function safeReturnTo(returnTo: string): string {
  try {
    const u = new URL(returnTo || '/', PLACEHOLDER_ORIGIN);
    if (u.origin !== PLACEHOLDER_ORIGIN || !returnTo.startsWith('/')) return '/';
    return sameOriginRedirect(u.pathname, u.searchParams);
  } catch {
    return '/';
  }
}

// client_secret_basic is the spec's default; _post only for providers that do not offer basic.
function clientAuth(secret: string | undefined): client.ClientAuth {
  if (secret === undefined) return client.None();
  const basic = client.ClientSecretBasic(secret);
  const post = client.ClientSecretPost(secret);
  return (as, c, body, headers) => {
    const offered = as.token_endpoint_auth_methods_supported;
    const useBasic = !offered || offered.includes('client_secret_basic') || !offered.includes('client_secret_post');
    (useBasic ? basic : post)(as, c, body, headers);
  };
}

function scopesFor(config: OidcConfig, supported: readonly string[] | undefined): string[] {
  if (config.scopes) return [...new Set(['openid', ...config.scopes])];
  const optional = ['groups', 'offline_access'].filter((s) => supported?.includes(s));
  return ['openid', 'profile', 'email', ...optional];
}

export async function createOidcLogin(config: OidcConfig): Promise<OidcLogin> {
  const issuer = config.issuer;
  const issuerUrl = parseUrl(issuer, 'issuer', issuer);
  const redirectUri = parseUrl(config.redirectUri, 'redirect URI', issuer);
  const plainHttp = issuerUrl.protocol === 'http:';
  if (issuerUrl.protocol !== 'https:' && !(plainHttp && isLoopbackHost(issuerUrl.hostname))) {
    throw new OidcError('config_invalid', issuer, `The OIDC issuer ${issuer} must use https (plain http is allowed on loopback only, for tests).`);
  }
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const loginTtlMs = config.loginTtlMs ?? DEFAULT_LOGIN_TTL_MS;
  const mapping: ClaimMapping = {
    issuer,
    usernameClaim: config.usernameClaim ?? 'email',
    usernamePrefix: config.usernamePrefix,
    groupsClaim: config.groupsClaim ?? 'groups',
    groupsPrefix: config.groupsPrefix ?? '',
  };

  let oidc: client.Configuration;
  try {
    oidc = await client.discovery(issuerUrl, config.clientId, { redirect_uris: [redirectUri.href], response_types: ['code'] }, clientAuth(config.clientSecret), {
      timeout: timeoutMs / 1000,
      // Without allowInsecureRequests openid-client v6 refuses every http:// request, discovery included.
      execute: plainHttp ? [client.allowInsecureRequests, client.enableNonRepudiationChecks] : [client.enableNonRepudiationChecks],
    });
  } catch (err) {
    throw new OidcError('discovery_failed', issuer, `Could not read the OpenID configuration of ${issuer} (${issuer.replace(/\/$/, '')}/.well-known/openid-configuration): ${describeFailure(err, timeoutMs)}.`);
  }
  const metadata = oidc.serverMetadata();
  const scopes = scopesFor(config, metadata.scopes_supported);

  /** The claims an identity is read from: the ID token's, gaps filled from userinfo. */
  async function claimsOf(tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers, subject: string | undefined, phase: 'exchange_failed' | 'refresh_failed'): Promise<{ claims: Record<string, unknown>; expiresAt: number }> {
    const idClaims = tokens.claims() as Record<string, unknown> | undefined;
    if (idClaims && !lacksMappedClaims(idClaims, mapping)) return { claims: idClaims, expiresAt: Number(idClaims.exp) * 1000 };
    const expected = (idClaims?.sub as string | undefined) ?? subject;
    let info: Record<string, unknown> = {};
    if (metadata.userinfo_endpoint && tokens.access_token) {
      try {
        info = (await client.fetchUserInfo(oidc, tokens.access_token, expected ?? client.skipSubjectCheck)) as Record<string, unknown>;
      } catch (err) {
        throw wrap(err, phase, 'reading userinfo');
      }
    }
    if (idClaims) return { claims: { ...info, ...idClaims }, expiresAt: Number(idClaims.exp) * 1000 };
    // A refresh without a new ID token: the identity lasts as long as the access token.
    const expiresIn = tokens.expiresIn();
    if (!info.sub || expiresIn === undefined) {
      throw new OidcError(phase, issuer, `${issuer} answered the refresh without an ID token, and userinfo or the token's lifetime could not stand in for it.`);
    }
    return { claims: info, expiresAt: Date.now() + expiresIn * 1000 };
  }

  function wrap(err: unknown, phase: 'exchange_failed' | 'refresh_failed', doing: string): OidcError {
    if (err instanceof OidcError) return err;
    const why = describeFailure(err, timeoutMs);
    if (isUnreachable(err)) return new OidcError('provider_unreachable', issuer, `${issuer} did not answer while ${doing}: ${why}.`);
    if (isIdTokenFailure(err)) return new OidcError('id_token_invalid', issuer, `The ID token from ${issuer} failed validation: ${why}.`);
    const providerError = err instanceof client.ResponseBodyError ? err.error : undefined;
    return new OidcError(phase, issuer, `${issuer} refused ${doing}: ${why}.`, providerError);
  }

  async function identityOf(tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers, previous: { subject?: string; refreshToken?: string }, phase: 'exchange_failed' | 'refresh_failed'): Promise<OidcIdentity> {
    const { claims, expiresAt } = await claimsOf(tokens, previous.subject, phase);
    const subject = String(claims.sub ?? '');
    if (previous.subject !== undefined && subject !== previous.subject) {
      throw new OidcError('subject_changed', issuer, `The refresh at ${issuer} returned a different user than the one signed in.`);
    }
    const { user, groups } = userAndGroups(claims, mapping);
    const refreshToken = tokens.refresh_token ?? previous.refreshToken;
    return { user, groups, subject, expiresAt, ...(refreshToken ? { refreshToken } : {}), ...(tokens.id_token ? { idToken: tokens.id_token } : {}) };
  }

  return {
    issuer,
    scopes,

    async begin(returnTo) {
      const codeVerifier = client.randomPKCECodeVerifier();
      const pending: PendingLogin = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier, returnTo: safeReturnTo(returnTo), createdAt: Date.now() };
      const url = client.buildAuthorizationUrl(oidc, {
        redirect_uri: redirectUri.href,
        scope: scopes.join(' '),
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url: url.href, pending };
    },

    async complete(callbackUrl, pending) {
      const params = callbackUrl.searchParams;
      if (!tokenMatches(params.get('state') ?? undefined, pending.state)) {
        throw new OidcError('state_mismatch', issuer, `This sign-in response does not belong to the sign-in in progress (its state does not match). Start the sign-in again.`);
      }
      if (Date.now() - pending.createdAt > loginTtlMs) {
        throw new OidcError('login_expired', issuer, `The sign-in with ${issuer} took longer than ${Math.round(loginTtlMs / 60_000)} minutes. Start it again.`);
      }
      const error = params.get('error');
      if (error !== null) {
        const said = params.get('error_description');
        const description = `${safeText(error, 64)}${said ? `: ${safeText(said)}` : ''}`;
        const what = error === 'access_denied' ? 'The sign-in was cancelled or refused at' : 'The sign-in failed at';
        throw new OidcError('provider_error', issuer, `${what} ${issuer} (${description}).`, error);
      }
      // openid-client takes the redirect_uri it sends from the URL it is given: use the registered
      // one with the callback's query, whatever Host the request came in on (proxies).
      const current = new URL(redirectUri.href);
      current.search = callbackUrl.search;
      let tokens;
      try {
        tokens = await client.authorizationCodeGrant(oidc, current, { expectedState: pending.state, expectedNonce: pending.nonce, pkceCodeVerifier: pending.codeVerifier, idTokenExpected: true });
      } catch (err) {
        throw wrap(err, 'exchange_failed', 'the sign-in code');
      }
      return { ...(await identityOf(tokens, {}, 'exchange_failed')), returnTo: pending.returnTo };
    },

    async refresh(refreshToken, subject) {
      let tokens;
      try {
        tokens = await client.refreshTokenGrant(oidc, refreshToken);
      } catch (err) {
        throw wrap(err, 'refresh_failed', 'the refresh token');
      }
      return identityOf(tokens, { subject, refreshToken }, 'refresh_failed');
    },

    endSessionUrl(o = {}) {
      if (!metadata.end_session_endpoint) return undefined;
      const params: Record<string, string> = {};
      if (o.idToken) params.id_token_hint = o.idToken;
      if (o.postLogoutRedirectUri) params.post_logout_redirect_uri = o.postLogoutRedirectUri;
      if (o.state) params.state = o.state;
      return client.buildEndSessionUrl(oidc, params).href;
    },
  };
}
