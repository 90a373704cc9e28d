/**
 * Everything that can go wrong in an OIDC sign-in, as one error type with a stable code and a
 * message for people that names the provider. Messages never carry a token or a code: the text we
 * take from elsewhere (the provider's error_description, a library's message) goes through
 * `safeText`, which also redacts anything shaped like a token, since a message ends up in logs and
 * on the sign-in error page.
 */
import * as client from 'openid-client';

export type OidcErrorCode =
  /** The configuration itself is unusable (not a URL, plain http to a remote issuer, ...). */
  | 'config_invalid'
  /** The provider's /.well-known/openid-configuration could not be read (or was not for this issuer). */
  | 'discovery_failed'
  /** The provider did not answer (refused, reset, timed out) during a sign-in or refresh: worth a retry. */
  | 'provider_unreachable'
  /** The callback's `state` is missing or belongs to another sign-in. */
  | 'state_mismatch'
  /** The callback came later than the sign-in may take. */
  | 'login_expired'
  /** The provider answered the sign-in with an error (`providerError`: access_denied, login_required, ...). */
  | 'provider_error'
  /** The code exchange at the token endpoint was refused or answered wrongly. */
  | 'exchange_failed'
  /** The ID token failed validation (signature, issuer, audience, nonce, expiry). */
  | 'id_token_invalid'
  /** The username claim is not in the ID token nor in userinfo. */
  | 'claim_missing'
  /** The username or groups claim has the wrong type. */
  | 'claim_invalid'
  /** The username claim is `email` and the provider says that address is not verified. */
  | 'email_unverified'
  /** A refresh returned someone else (`sub` changed). */
  | 'subject_changed'
  /** The refresh token was refused (`providerError`, usually invalid_grant: sign in again). */
  | 'refresh_failed';

export class OidcError extends Error {
  override readonly name = 'OidcError';
  readonly code: OidcErrorCode;
  /** The issuer the error is about, as configured. */
  readonly issuer: string;
  /** The OAuth error code the provider sent (access_denied, invalid_grant, ...), when it sent one. */
  readonly providerError?: string;

  constructor(code: OidcErrorCode, issuer: string, message: string, providerError?: string) {
    super(message);
    this.code = code;
    this.issuer = issuer;
    if (providerError !== undefined) this.providerError = safeText(providerError, 64);
  }
}

// A JWT, an opaque token or a code: a long run of base64url characters (longer than a UUID, so
// tenant ids in issuer URLs stay readable), with a JWT's dotted segments.
const TOKENISH = /[A-Za-z0-9_-]{40,}(?:\.[A-Za-z0-9_-]*){0,2}/g;

/** Foreign text made fit for a message: one line, bounded, with token-shaped runs redacted. */
export function safeText(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(TOKENISH, '[redacted]').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function errorName(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && typeof (err as { name?: unknown }).name === 'string' ? (err as { name: string }).name : undefined;
}

/** Whether the request never got an answer: refused, reset, DNS, TLS, or our timeout. */
export function isUnreachable(err: unknown): boolean {
  if (isTimeout(err)) return true;
  return err instanceof TypeError && err.message === 'fetch failed';
}

// openid-client turns the timeout's DOMException into a ClientError OAUTH_TIMEOUT (discovery lets it through as is).
function isTimeout(err: unknown): boolean {
  const name = errorName(err);
  if (name === 'TimeoutError' || name === 'AbortError') return true;
  return err instanceof client.ClientError && (err.code === 'OAUTH_TIMEOUT' || err.code === 'OAUTH_ABORT');
}

/** Why a request to the provider failed, in a few words (no response bodies, no tokens). */
export function describeFailure(err: unknown, timeoutMs: number): string {
  if (isTimeout(err)) return `no answer within ${timeoutMs} ms`;
  if (err instanceof TypeError && err.message === 'fetch failed') {
    const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
    const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : 'network error';
    return `cannot connect (${safeText(why, 80)})`;
  }
  if (err instanceof client.ResponseBodyError) {
    const description = err.error_description ? `: ${safeText(err.error_description)}` : '';
    return `${safeText(err.error, 64)}${description} (HTTP ${err.status})`;
  }
  if (err instanceof client.AuthorizationResponseError) {
    return `${safeText(err.error, 64)}${err.error_description ? `: ${safeText(err.error_description)}` : ''}`;
  }
  if (err instanceof Error) {
    if (err.cause instanceof Response) return `${safeText(err.message)} (HTTP ${err.cause.status})`;
    // openid-client's messages are generic ("unexpected JWT claim value encountered"); the
    // oauth4webapi error it wraps says which check failed (fixed texts that carry no values).
    if (err instanceof client.ClientError && err.cause instanceof Error && err.cause.message) return safeText(err.cause.message);
    return safeText(err.message);
  }
  return safeText(String(err));
}

/** Whether openid-client refused the ID token itself (claims, timestamps, signature, keys). */
export function isIdTokenFailure(err: unknown): boolean {
  if (!(err instanceof client.ClientError)) return false;
  const code = err.code ?? '';
  return code.startsWith('OAUTH_JWT_') || code === 'OAUTH_KEY_SELECTION_FAILED' || code.startsWith('ERR_JW') || /\bID Token\b|\bJWT\b|signature/i.test(err.message);
}
