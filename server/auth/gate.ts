/**
 * The custom server's front door: every request passes here before Next.js sees it. In order:
 * security headers on the response; the request target read without letting it name another
 * server; the Host check (DNS rebinding); the access token when the server is exposed (a
 * `?token=` link traded for a cookie, redirected only within this server); and for state-changing
 * or expensive requests the same-origin check and a JSON body. A refusal is a JSON error with a
 * 4xx status, never an exception: nothing a client sends reaches Next.js unchecked.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkHost, hostPolicy, type HostPolicy } from './hosts.ts';
import { sendProblem, type RequestProblem } from './problem.ts';
import { checkJsonContentType, checkSameOrigin, hasBody, needsSameOrigin } from './same-origin.ts';
import { contentSecurityPolicy, newNonce, STATIC_SECURITY_HEADERS } from './security-headers.ts';
import { requestTarget } from './target.ts';
import { presentedToken, sameOriginRedirect, tokenCookie, tokenMatches } from './token.ts';
import { checkDeclaredLength, MAX_BODY_BYTES } from './body.ts';

export interface GateOptions {
  bindHost: string;
  port: number;
  /** Required when the server is exposed beyond loopback. */
  token?: string;
  /** Extra names an exposed server answers to (WMAP_ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /** Hashes of the build's fixed inline scripts (security-headers.ts buildScriptHashes). */
  scriptHashes?: readonly string[];
  /** Largest request body accepted before a route reads it. */
  maxBodyBytes?: number;
}

export interface Gate {
  policy: HostPolicy;
  /** True when the gate answered the request itself (a refusal or the token redirect). */
  refuse(req: IncomingMessage, res: ServerResponse): boolean;
}

function isProblem(v: object): v is RequestProblem {
  return 'status' in v && 'code' in v;
}

export function requestGate(o: GateOptions): Gate {
  const policy = hostPolicy({ bindHost: o.bindHost, port: o.port, allowedHosts: o.allowedHosts });
  if (policy.exposed && !o.token) throw new Error(`binding to ${o.bindHost} exposes the dashboard beyond this machine: set an access token with --token or WMAP_TOKEN`);
  // Behind a TLS-terminating proxy an exposed server's pages are https.
  const schemes = policy.exposed ? ['http:', 'https:'] : ['http:'];
  const hashes = o.scriptHashes ?? [];
  const maxBody = o.maxBodyBytes ?? 2 * MAX_BODY_BYTES;

  function refuse(req: IncomingMessage, res: ServerResponse): boolean {
    for (const [k, v] of Object.entries(STATIC_SECURITY_HEADERS)) res.setHeader(k, v);
    // Next.js puts the request's CSP nonce on the scripts it renders; the response carries the same policy.
    const csp = contentSecurityPolicy(newNonce(), hashes);
    req.headers['content-security-policy'] = csp;
    res.setHeader('content-security-policy', csp);

    const refuseWith = (p: RequestProblem) => {
      // A body we will not read must not stay on a kept-alive connection.
      sendProblem(res, p, { close: hasBody(req.headers) });
      return true;
    };
    const target = requestTarget(req.url);
    if (isProblem(target)) return refuseWith(target);
    const host = checkHost(policy, req.headers.host);
    if (isProblem(host)) return refuseWith(host);

    if (o.token) {
      const fromLink = target.search.get('token');
      if (fromLink !== null && tokenMatches(fromLink, o.token)) {
        target.search.delete('token');
        res.writeHead(303, { location: sameOriginRedirect(target.pathname, target.search), 'set-cookie': tokenCookie(o.token), 'cache-control': 'no-store' });
        res.end();
        return true;
      }
      if (!tokenMatches(presentedToken(req.headers), o.token)) {
        return refuseWith({ status: 401, code: 'unauthorized', message: 'an access token is required (Authorization: Bearer <token>, or open the link with ?token=<token>)' });
      }
    }

    if (needsSameOrigin(req.method, target.pathname)) {
      const origin = checkSameOrigin(req.headers, host.key, schemes);
      if (origin) return refuseWith(origin);
      if (hasBody(req.headers)) {
        const type = checkJsonContentType(req.headers['content-type']);
        if (type) return refuseWith(type);
        const length = checkDeclaredLength(req.headers['content-length'], maxBody);
        if (length) return refuseWith(length);
      }
    }
    return false;
  }

  return { policy, refuse };
}
