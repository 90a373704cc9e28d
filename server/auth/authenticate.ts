/**
 * Who a shared-mode request is, from (in this order): an authenticating proxy's user and group
 * headers, trusted only when the request carries the configured proxy secret; a bearer token (the
 * single access token, or a Kubernetes token validated with TokenReview); the session cookie of a
 * sign-in. Nothing here throws on what a client sends: an unusable credential is no credential, and
 * a token the cluster rejects is a 401 that says so.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ownPrincipal, type Principal } from './principal.ts';
import { SESSION_COOKIE, type Session, type SessionStore } from './sessions.ts';
import { bearerToken, cookieValue, tokenMatches } from './token.ts';

/** What a TokenReview said of a token: the user, or why not. */
export type TokenVerdict = { user: string; groups: string[]; uid?: string; cluster: string } | { error: string };

export interface ProxyAuthOptions {
  /** The shared secret the proxy sends in `secretHeader`; requests without it get no identity from the headers. */
  secret: string;
  /** Default `x-wmap-proxy-secret`. */
  secretHeader?: string;
  /** Default `x-remote-user` (kube-apiserver's --requestheader-username-headers). */
  userHeader?: string;
  /** Default `x-remote-group`, repeatable or comma-separated. */
  groupHeader?: string;
}

export interface AuthenticatorOptions {
  sessions: SessionStore;
  /** The single access token of one-admin setups: its holder acts as the server's own identity. */
  accessToken?: string;
  /** Validates a Kubernetes bearer token (TokenReview); absent = token sign-in is off. */
  reviewToken?: (token: string) => Promise<TokenVerdict>;
  proxy?: ProxyAuthOptions;
  /** Renews an OIDC session whose identity is due for a refresh; false = the session is over. */
  refreshSession?: (s: Session) => Promise<boolean>;
  now?: () => number;
}

export type Authentication = { principal: Principal; session?: Session } | { refused: string } | null;

const TOKEN_CACHE_MS = 60_000;
const TOKEN_CACHE_MAX = 5_000;

function header(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name.toLowerCase()];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

export function accessTokenPrincipal(): Principal {
  return ownPrincipal('access-token', 'admin (access token)');
}

/** A principal from a TokenReview's answer; the token is kept to act as the user in its own cluster. */
export function tokenPrincipal(v: Exclude<TokenVerdict, { error: string }>, token: string): Principal {
  return { user: v.user, groups: v.groups, uid: v.uid, via: 'token', credential: { kind: 'bearer', token, cluster: v.cluster } };
}

export class Authenticator {
  private readonly o: AuthenticatorOptions;
  private readonly now: () => number;
  /** TokenReview answers by token hash, so that an API client's every request is not a review. */
  private readonly reviewed = new Map<string, { at: number; verdict: TokenVerdict }>();
  /** One renewal per session at a time: a refresh token may rotate, and a reused one can revoke the grant. */
  private readonly renewing = new Map<string, Promise<boolean>>();

  constructor(o: AuthenticatorOptions) {
    this.o = o;
    this.now = o.now ?? Date.now;
  }

  get tokenSignIn(): boolean {
    return this.o.reviewToken !== undefined;
  }

  /** A token typed on the sign-in page or sent as a bearer token: the access token, or a reviewed Kubernetes token. */
  async principalOfToken(token: string): Promise<Principal | { refused: string }> {
    if (this.o.accessToken && tokenMatches(token, this.o.accessToken)) return accessTokenPrincipal();
    if (!this.o.reviewToken) return { refused: 'this server accepts no Kubernetes tokens (token sign-in is off)' };
    const key = createHash('sha256').update(token).digest('base64url');
    const hit = this.reviewed.get(key);
    let verdict: TokenVerdict;
    if (hit && this.now() - hit.at < TOKEN_CACHE_MS) verdict = hit.verdict;
    else {
      verdict = await this.o.reviewToken(token);
      this.reviewed.set(key, { at: this.now(), verdict });
      while (this.reviewed.size > TOKEN_CACHE_MAX) this.reviewed.delete(this.reviewed.keys().next().value as string);
    }
    return 'error' in verdict ? { refused: verdict.error } : tokenPrincipal(verdict, token);
  }

  private fromProxy(req: IncomingMessage): Principal | null {
    const p = this.o.proxy;
    if (!p) return null;
    const userHeader = p.userHeader ?? 'x-remote-user';
    const groupHeader = p.groupHeader ?? 'x-remote-group';
    const secret = header(req, p.secretHeader ?? 'x-wmap-proxy-secret')[0];
    const user = header(req, userHeader)[0]?.trim();
    const trusted = secret !== undefined && tokenMatches(secret, p.secret);
    // Identity headers from anyone but the proxy are dropped, so nothing downstream can mistake them for the proxy's.
    if (!trusted) {
      delete req.headers[userHeader];
      delete req.headers[groupHeader];
      return null;
    }
    if (!user) return null;
    const groups = header(req, groupHeader).flatMap((g) => g.split(',')).map((g) => g.trim()).filter(Boolean);
    return { user, groups, via: 'proxy', credential: { kind: 'impersonate' } };
  }

  async authenticate(req: IncomingMessage): Promise<Authentication> {
    const proxied = this.fromProxy(req);
    if (proxied) return { principal: proxied };
    const bearer = bearerToken(req.headers.authorization);
    if (bearer !== undefined) {
      const p = await this.principalOfToken(bearer);
      return 'refused' in p ? { refused: `the bearer token was not accepted: ${p.refused}` } : { principal: p };
    }
    const s = this.o.sessions.get(cookieValue(req.headers.cookie, SESSION_COOKIE));
    if (!s) return null;
    if (s.refresh && s.refresh.at <= this.now()) {
      let renewal = this.renewing.get(s.id);
      if (!renewal) {
        const refresh = this.o.refreshSession;
        renewal = (refresh ? refresh(s).catch(() => false) : Promise.resolve(false)).finally(() => this.renewing.delete(s.id));
        this.renewing.set(s.id, renewal);
      }
      const ok = await renewal;
      if (!ok) {
        this.o.sessions.delete(s.id);
        return { refused: 'your sign-in has expired and could not be renewed: sign in again' };
      }
    }
    return { principal: s.principal, session: s };
  }
}
