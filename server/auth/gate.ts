/**
 * The custom server's front door: every request passes here before Next.js sees it. In order:
 * security headers on the response; the request target read without letting it name another
 * server; the Host check (DNS rebinding); in shared mode, who the request is (auth-routes.ts for
 * signing in, authenticate.ts for everything else), a page navigation without one sent to the sign-in
 * page; and for state-changing or expensive requests the same-origin check and a JSON body. The
 * request then goes on stamped with its principal (request-identity.ts). A refusal is a JSON error with a
 * 4xx status, never an exception: nothing a client sends reaches Next.js unchecked.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessTokenPrincipal, type Authenticator } from './authenticate.ts';
import { AUTH_PATHS, type authRoutes } from './auth-routes.ts';
import { checkHost, hostPolicy, type HostPolicy } from './hosts.ts';
import { ownPrincipal, type Principal } from './principal.ts';
import { sendProblem, type RequestProblem } from './problem.ts';
import { stampIdentity, unstamp } from './request-identity.ts';
import { checkJsonContentType, checkSameOrigin, hasBody, needsSameOrigin } from './same-origin.ts';
import { contentSecurityPolicy, newNonce, STATIC_SECURITY_HEADERS } from './security-headers.ts';
import type { SessionStore } from './sessions.ts';
import { requestTarget } from './target.ts';
import { sameOriginRedirect, tokenMatches } from './token.ts';
import { checkDeclaredLength, MAX_BODY_BYTES } from './body.ts';

/**
 * Shared mode: every request is authenticated. `accessToken` is also accepted once in a `?token=`
 * link, traded for a session cookie (the cookie never holds the token).
 */
export interface SharedAuth {
  authenticator: Authenticator;
  sessions: SessionStore;
  routes: ReturnType<typeof authRoutes>;
  accessToken?: string;
  secure(req: IncomingMessage): boolean;
}

export interface GateOptions {
  bindHost: string;
  port: number;
  /** Shared mode; absent = local mode (loopback only), where every request is the kubeconfig's identity. */
  shared?: SharedAuth;
  /** The user name local mode shows (the kubeconfig's). */
  localUser?: string;
  /** Extra names an exposed server answers to (WMAP_ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /** Hashes of the build's fixed inline scripts (security-headers.ts buildScriptHashes). */
  scriptHashes?: readonly string[];
  /** Largest request body accepted before a route reads it. */
  maxBodyBytes?: number;
}

export interface Gate {
  policy: HostPolicy;
  /**
   * True when the gate answered the request itself (a refusal, a sign-in page or endpoint, the token
   * redirect); false when it may go on, stamped with its principal (request-identity.ts).
   */
  answer(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

function isProblem(v: object): v is RequestProblem {
  return 'status' in v && 'code' in v;
}

/** A browser navigating to a page (sent to the sign-in page) rather than a script calling the API (a 401). */
function isPageNavigation(req: IncomingMessage, pathname: string): boolean {
  const method = (req.method ?? 'GET').toUpperCase();
  if ((method !== 'GET' && method !== 'HEAD') || pathname.startsWith('/api/') || pathname.startsWith('/_next/')) return false;
  const mode = req.headers['sec-fetch-mode'];
  return mode === 'navigate' || /text\/html/.test(String(req.headers.accept ?? ''));
}

export function requestGate(o: GateOptions): Gate {
  const policy = hostPolicy({ bindHost: o.bindHost, port: o.port, allowedHosts: o.allowedHosts });
  if (policy.exposed && !o.shared) throw new Error(`binding to ${o.bindHost} exposes the dashboard beyond this machine: it must run in shared mode, where every request is authenticated`);
  // Behind a TLS-terminating proxy an exposed server's pages are https.
  const schemes = policy.exposed ? ['http:', 'https:'] : ['http:'];
  const hashes = o.scriptHashes ?? [];
  const maxBody = o.maxBodyBytes ?? 2 * MAX_BODY_BYTES;
  const local = ownPrincipal('local', o.localUser ?? 'kubeconfig');

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    for (const [k, v] of Object.entries(STATIC_SECURITY_HEADERS)) res.setHeader(k, v);
    // Next.js puts the request's CSP nonce on the scripts it renders; the response carries the same policy.
    const csp = contentSecurityPolicy(newNonce(), hashes);
    req.headers['content-security-policy'] = csp;
    res.setHeader('content-security-policy', csp);
    unstamp(req);

    const refuseWith = (p: RequestProblem) => {
      // A body we will not read must not stay on a kept-alive connection.
      sendProblem(res, p, { close: hasBody(req.headers) });
      return true;
    };
    const target = requestTarget(req.url);
    if (isProblem(target)) return refuseWith(target);
    const host = checkHost(policy, req.headers.host);
    if (isProblem(host)) return refuseWith(host);

    const sameOrigin = (): RequestProblem | null => {
      if (!needsSameOrigin(req.method, target.pathname)) return null;
      return checkSameOrigin(req.headers, host.key, schemes);
    };

    let principal: Principal = local;
    const shared = o.shared;
    if (shared) {
      if (AUTH_PATHS.has(target.pathname)) {
        const cross = sameOrigin();
        if (cross) return refuseWith(cross);
        const base = `http://${host.authority}`;
        return shared.routes.handle(req, res, new URL(`${target.pathname}${target.search.size ? `?${target.search}` : ''}`, base));
      }
      const fromLink = target.search.get('token');
      if (fromLink !== null && shared.accessToken && tokenMatches(fromLink, shared.accessToken)) {
        target.search.delete('token');
        const session = shared.sessions.create(accessTokenPrincipal());
        res.writeHead(303, { location: sameOriginRedirect(target.pathname, target.search), 'set-cookie': shared.sessions.cookie(session, shared.secure(req)), 'cache-control': 'no-store' });
        res.end();
        return true;
      }
      const auth = await shared.authenticator.authenticate(req);
      if (auth === null || 'refused' in auth) {
        if (isPageNavigation(req, target.pathname)) {
          const next = sameOriginRedirect(target.pathname, target.search);
          res.writeHead(303, { location: `/signin?next=${encodeURIComponent(next)}`, 'cache-control': 'no-store' });
          res.end();
          return true;
        }
        return refuseWith({ status: 401, code: 'unauthorized', message: auth === null ? 'sign in first: this dashboard is shared (a session from /signin, Authorization: Bearer <Kubernetes or access token>, or an authenticating proxy)' : auth.refused });
      }
      principal = auth.principal;
    }

    const cross = sameOrigin();
    if (cross) return refuseWith(cross);
    if (needsSameOrigin(req.method, target.pathname) && hasBody(req.headers)) {
      const type = checkJsonContentType(req.headers['content-type']);
      if (type) return refuseWith(type);
      const length = checkDeclaredLength(req.headers['content-length'], maxBody);
      if (length) return refuseWith(length);
    }
    stampIdentity(req, res, principal);
    return false;
  }

  return { policy, answer };
}
