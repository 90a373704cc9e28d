/**
 * Builds shared mode from its settings: the session store, the authenticator with the methods that
 * are configured (Kubernetes tokens reviewed by a cluster, OIDC, an authenticating proxy, the single
 * access token), and the sign-in routes. At least one method must be on.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { Authenticator, type ProxyAuthOptions, type TokenVerdict } from './authenticate.ts';
import { authRoutes, type OidcFlow } from './auth-routes.ts';
import type { SharedAuth } from './gate.ts';
import { SessionStore } from './sessions.ts';

export interface SharedModeOptions {
  accessToken?: string;
  /** Kubernetes token sign-in: reviews a token with a cluster's TokenReview. */
  reviewToken?: (token: string) => Promise<TokenVerdict>;
  oidc?: OidcFlow & { refresh(refreshToken: string, subject?: string): Promise<{ user: string; groups: string[]; subject?: string; expiresAt: number; refreshToken?: string }> };
  proxy?: ProxyAuthOptions;
  sessionTtlMs?: number;
  /** The dashboard's external URL is https (behind a TLS-terminating proxy): cookies are Secure. */
  httpsPublicUrl?: boolean;
  now?: () => number;
}

export function sharedMode(o: SharedModeOptions): SharedAuth {
  if (!o.accessToken && !o.reviewToken && !o.oidc && !o.proxy) throw new Error('shared mode needs a way to sign in: Kubernetes token sign-in, OIDC, an authenticating proxy or an access token');
  const sessions = new SessionStore({ ttlMs: o.sessionTtlMs, now: o.now });
  const oidc = o.oidc;
  const authenticator = new Authenticator({
    sessions,
    accessToken: o.accessToken,
    reviewToken: o.reviewToken,
    proxy: o.proxy,
    now: o.now,
    refreshSession: oidc
      ? async (s) => {
          if (!s.refresh) return false;
          const id = await oidc.refresh(s.refresh.token, s.principal.uid);
          sessions.update(s, { ...s.principal, user: id.user, groups: id.groups, uid: id.subject ?? s.principal.uid }, { at: id.expiresAt, token: id.refreshToken ?? s.refresh.token });
          return true;
        }
      : undefined,
  });
  const secure = (req: IncomingMessage) => o.httpsPublicUrl === true || (req.socket as TLSSocket).encrypted === true;
  const routes = authRoutes({ authenticator, sessions, oidc, accessToken: !!o.accessToken, secure, now: o.now });
  return { authenticator, sessions, routes, accessToken: o.accessToken, secure };
}
