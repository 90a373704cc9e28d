/**
 * The sign-in endpoints of shared mode, answered by the gate before anything needs an identity:
 * `GET /signin` (the page), `POST /auth/signin` (a token from the page's form or a JSON body),
 * `POST /auth/signout`, and the OIDC code flow (`GET /auth/oidc/login`, `GET /auth/oidc/callback`).
 * Sign-in and sign-out are state-changing: the gate has checked their Origin before they get here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from './authenticate.ts';
import type { Principal } from './principal.ts';
import { problem, sendProblem, type RequestProblem } from './problem.ts';
import { clearedSessionCookie, SESSION_COOKIE, type Session, type SessionStore } from './sessions.ts';
import { continuePageHtml, signInPageHtml } from './signin-page.ts';
import { cookieValue, sameOriginRedirect } from './token.ts';

/** The OIDC side (server/auth/oidc.ts), as the routes use it. */
export interface OidcFlow {
  begin(returnTo: string): Promise<{ url: string; pending: unknown }>;
  complete(callbackUrl: URL, pending: unknown): Promise<{ user: string; groups: string[]; subject?: string; expiresAt: number; refreshToken?: string; returnTo: string }>;
}

export interface AuthRoutesOptions {
  authenticator: Authenticator;
  sessions: SessionStore;
  oidc?: OidcFlow;
  /** The single access token is accepted on the sign-in page. */
  accessToken: boolean;
  /** Whether this request reached the dashboard over TLS (cookies are then Secure). */
  secure(req: IncomingMessage): boolean;
  /** The externally visible base URL for the OIDC redirect (`https://wmap.example.com`). */
  now?: () => number;
}

const SIGNIN_BODY_MAX = 16 * 1024;
const PENDING_MS = 10 * 60 * 1000;
const PENDING_MAX = 1_000;
const STATE_COOKIE = 'wmap_oidc_login';

export const AUTH_PATHS = new Set(['/signin', '/auth/signin', '/auth/signout', '/auth/oidc/login', '/auth/oidc/callback']);

function readBody(req: IncomingMessage, max: number): Promise<string | RequestProblem> {
  return new Promise((resolve) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        resolve(problem(413, 'too_large', `the request body is larger than ${max} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(problem(400, 'invalid_request', 'the request body could not be read')));
  });
}

function wantsJson(req: IncomingMessage): boolean {
  return /application\/json/i.test(String(req.headers['content-type'] ?? '')) || /application\/json/i.test(String(req.headers.accept ?? ''));
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}

export function authRoutes(o: AuthRoutesOptions) {
  const now = o.now ?? Date.now;
  const pending = new Map<string, { at: number; value: unknown }>();

  const page = (res: ServerResponse, status: number, next: string, error?: string) =>
    send(res, status, 'text/html; charset=utf-8', signInPageHtml({ next, error, tokens: o.authenticator.tokenSignIn, oidc: !!o.oidc, accessToken: o.accessToken }));

  function signedIn(req: IncomingMessage, res: ServerResponse, s: Session, next: string, json: boolean): void {
    const cookie = o.sessions.cookie(s, o.secure(req));
    if (json) send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ user: s.principal.user, groups: s.principal.groups, via: s.principal.via, expiresAt: new Date(s.expiresAt).toISOString() }), { 'set-cookie': cookie });
    else send(res, 303, 'text/plain; charset=utf-8', '', { location: next, 'set-cookie': cookie });
  }

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = wantsJson(req);
    const body = await readBody(req, SIGNIN_BODY_MAX);
    if (typeof body !== 'string') return sendProblem(res, body, { close: true });
    let token: string;
    let nextRaw: string;
    if (/application\/json/i.test(String(req.headers['content-type'] ?? ''))) {
      try {
        const v = JSON.parse(body) as { token?: unknown; next?: unknown };
        token = typeof v.token === 'string' ? v.token : '';
        nextRaw = typeof v.next === 'string' ? v.next : '/';
      } catch {
        return sendProblem(res, problem(400, 'invalid_request', 'the body is not JSON'));
      }
    } else {
      const f = new URLSearchParams(body);
      token = f.get('token') ?? '';
      nextRaw = f.get('next') ?? '/';
    }
    const next = safeNext(nextRaw);
    token = token.trim();
    if (!token) return json ? sendProblem(res, problem(400, 'invalid_request', 'send a token')) : page(res, 400, next, 'Paste a token to sign in.');
    const p = await o.authenticator.principalOfToken(token);
    if ('refused' in p) return json ? sendProblem(res, problem(401, 'unauthorized', `the token was not accepted: ${p.refused}`)) : page(res, 401, next, `The token was not accepted: ${p.refused}`);
    signedIn(req, res, o.sessions.create(p), next, json);
  }

  async function oidcLogin(req: IncomingMessage, res: ServerResponse, search: URLSearchParams): Promise<void> {
    if (!o.oidc) return sendProblem(res, problem(404, 'not_found', 'OIDC sign-in is not configured'));
    const next = safeNext(search.get('next') ?? '/');
    let begun: { url: string; pending: unknown };
    try {
      begun = await o.oidc.begin(next);
    } catch (e) {
      return page(res, 502, next, `The identity provider cannot be reached: ${e instanceof Error ? e.message : String(e)}`);
    }
    const key = new URL(begun.url).searchParams.get('state') ?? '';
    for (const [k, v] of pending) if (now() - v.at > PENDING_MS) pending.delete(k);
    while (pending.size >= PENDING_MAX) pending.delete(pending.keys().next().value as string);
    pending.set(key, { at: now(), value: begun.pending });
    // Lax, not Strict: the provider sends the browser back with a cross-site top-level navigation.
    const cookie = `${STATE_COOKIE}=${encodeURIComponent(key)}; HttpOnly; SameSite=Lax; Path=/auth/oidc; Max-Age=${PENDING_MS / 1000}${o.secure(req) ? '; Secure' : ''}`;
    send(res, 303, 'text/plain; charset=utf-8', '', { location: begun.url, 'set-cookie': cookie });
  }

  async function oidcCallback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!o.oidc) return sendProblem(res, problem(404, 'not_found', 'OIDC sign-in is not configured'));
    const key = cookieValue(req.headers.cookie, STATE_COOKIE) ?? '';
    const p = pending.get(key);
    pending.delete(key);
    const clear = `${STATE_COOKIE}=; HttpOnly; SameSite=Lax; Path=/auth/oidc; Max-Age=0`;
    if (!p || key !== url.searchParams.get('state') || now() - p.at > PENDING_MS) {
      return send(res, 400, 'text/html; charset=utf-8', signInPageHtml({ next: '/', error: 'This sign-in link is not from a sign-in this browser started, or it has expired: start again.', tokens: o.authenticator.tokenSignIn, oidc: true, accessToken: o.accessToken }), { 'set-cookie': clear });
    }
    try {
      const id = await o.oidc.complete(url, p.value);
      const principal: Principal = { user: id.user, groups: id.groups, uid: id.subject, via: 'oidc', credential: { kind: 'impersonate' } };
      const s = o.sessions.create(principal, { refresh: id.refreshToken ? { at: id.expiresAt, token: id.refreshToken } : undefined, expiresAt: id.refreshToken ? undefined : id.expiresAt });
      send(res, 200, 'text/html; charset=utf-8', continuePageHtml(safeNext(id.returnTo)), { 'set-cookie': [o.sessions.cookie(s, o.secure(req)), clear] });
    } catch (e) {
      send(res, 401, 'text/html; charset=utf-8', signInPageHtml({ next: '/', error: `Sign-in failed: ${e instanceof Error ? e.message : String(e)}`, tokens: o.authenticator.tokenSignIn, oidc: true, accessToken: o.accessToken }), { 'set-cookie': clear });
    }
  }

  /** Answers an auth path; false when the path is not one. */
  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname;
    if (!AUTH_PATHS.has(path)) return false;
    const allowed = path === '/auth/signin' || path === '/auth/signout' ? 'POST' : 'GET';
    if (method !== allowed && !(allowed === 'GET' && method === 'HEAD')) {
      sendProblem(res, problem(405, 'method_not_allowed', `${path} takes ${allowed}`), { close: true });
      return true;
    }
    if (path === '/signin') page(res, 200, safeNext(url.searchParams.get('next') ?? '/'));
    else if (path === '/auth/signin') await signIn(req, res);
    else if (path === '/auth/signout') {
      o.sessions.delete(cookieValue(req.headers.cookie, SESSION_COOKIE));
      const cookie = clearedSessionCookie(o.secure(req));
      if (wantsJson(req)) send(res, 200, 'application/json; charset=utf-8', '{"signedOut":true}', { 'set-cookie': cookie });
      else send(res, 303, 'text/plain; charset=utf-8', '', { location: '/signin', 'set-cookie': cookie });
    } else if (path === '/auth/oidc/login') await oidcLogin(req, res, url.searchParams);
    else await oidcCallback(req, res, url);
    return true;
  }

  return { handle };
}

/** Where a sign-in returns to: a path on this server, never another site. */
export function safeNext(next: string): string {
  const q = next.indexOf('?');
  const path = q < 0 ? next : next.slice(0, q);
  const search = new URLSearchParams(q < 0 ? '' : next.slice(q + 1));
  const out = sameOriginRedirect(path.startsWith('/') ? path : '/', search);
  return out.startsWith('/signin') || out.startsWith('/auth/') ? '/' : out;
}
