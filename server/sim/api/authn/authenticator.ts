/**
 * Authentication: who a request is, from its bearer token, in kube-apiserver's order: the simulator's
 * own access-rule tokens (SimOptions.tokens), static tokens (`--token-auth-file`: the admin token of the
 * kubeconfig among them), then service-account tokens (bound and legacy). Every authenticated user is
 * also in `system:authenticated`. The same chain answers TokenReviews, with their audiences: static
 * tokens are valid for the API server's audiences only, service-account tokens for their own.
 */

import type { IncomingMessage } from 'node:http';
import type { AccessRule } from '../access.ts';
import { userOf } from '../access.ts';
import { aggregateMessage } from '../rbac/policy.ts';
import { ApiError } from '../status.ts';
import type { ServiceAccountTokens } from './service-account-tokens.ts';
import type { StaticToken } from './token-file.ts';
import type { Identity, UserInfo } from './user.ts';
import { SYSTEM_MASTERS, withAuthenticatedGroup } from './user.ts';

const PUBLIC_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

export interface TokenReviewResult {
  authenticated: boolean;
  user?: UserInfo;
  audiences?: string[];
  error?: string;
}

interface Authenticated {
  id: Identity;
  audiences: string[];
}

export function staticIdentity(t: StaticToken): Identity {
  const user: UserInfo = { username: t.user, groups: [...(t.groups ?? [])] };
  if (t.uid) user.uid = t.uid;
  return { user: withAuthenticatedGroup(user) };
}

export function ruleIdentity(rule: AccessRule): Identity {
  return { user: withAuthenticatedGroup({ username: userOf(rule), groups: rule.admin ? [SYSTEM_MASTERS] : [] }), legacy: rule };
}

/** `Authorization: Bearer <token>` as the bearer-token authenticator splits it; undefined = no bearer token. */
export function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

export class Authenticator {
  private readonly byToken = new Map<string, Identity>();

  /**
   * `anonymous` is who a request without credentials is. Over plain http kubectl sends none, so an http
   * simulator on loopback treats such requests as the admin; absent = 401 like a server without
   * anonymous access.
   */
  constructor(
    rules: AccessRule[],
    staticTokens: StaticToken[],
    private readonly serviceAccounts: ServiceAccountTokens,
    private readonly anonymous?: Identity,
  ) {
    for (const r of rules) this.byToken.set(r.token, ruleIdentity(r));
    this.addStaticTokens(staticTokens);
  }

  /** More static tokens (the demo identities, added once their objects exist); an earlier token wins. */
  addStaticTokens(tokens: StaticToken[]): void {
    for (const t of tokens) if (!this.byToken.has(t.token)) this.byToken.set(t.token, staticIdentity(t));
  }

  private authenticateToken(token: string, audiences: string[]): { ok?: Authenticated; error?: string } {
    const errors: string[] = [];
    const fixed = this.byToken.get(token);
    if (fixed) {
      // Audience-agnostic tokens are valid for the API server's own audiences only.
      const auds = this.serviceAccounts.apiAudiences.filter((a) => audiences.includes(a));
      if (auds.length > 0) return { ok: { id: fixed, audiences: auds } };
    }
    const sa = this.serviceAccounts.authenticate(token, audiences);
    if (sa?.user) return { ok: { id: { user: withAuthenticatedGroup(sa.user) }, audiences: sa.audiences ?? [] } };
    if (sa?.error) errors.push(sa.error);
    // The bearer-token authenticator's default when no token authenticator had anything to say.
    return { error: errors.length > 0 ? aggregateMessage(errors) : 'invalid bearer token' };
  }

  /**
   * Who the request is; undefined only for a public path (version, health) asked without credentials.
   * An unknown token is 401 everywhere, no credentials is 401 outside the public paths.
   */
  authenticate(req: IncomingMessage, path: string): Identity | undefined {
    const header = req.headers.authorization;
    if (!header) {
      if (this.anonymous) return this.anonymous;
      if (PUBLIC_PATHS.has(path) || path.startsWith('/healthz/')) return undefined;
      throw unauthorized();
    }
    const token = bearerToken(header);
    if (!token) throw unauthorized();
    const r = this.authenticateToken(token, this.serviceAccounts.apiAudiences);
    if (!r.ok) throw unauthorized();
    return r.ok.id;
  }

  /** A TokenReview: the token checked for the audiences asked (the API server's when none are). */
  review(token: string, audiences: string[]): TokenReviewResult {
    const auds = audiences.length > 0 ? audiences : this.serviceAccounts.apiAudiences;
    const r = this.authenticateToken(token, auds);
    if (!r.ok) return { authenticated: false, error: r.error };
    return { authenticated: true, user: r.ok.id.user, audiences: r.ok.audiences };
  }
}

function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}
