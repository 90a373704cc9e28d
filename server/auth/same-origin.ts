/**
 * Cross-site request forgery: state-changing and expensive requests must come from the server's
 * own pages. A browser names the page a request comes from in `Origin` (every cross-origin request
 * and every POST) and, in current browsers, says how it relates to the target in `Sec-Fetch-Site`.
 * Such a request is accepted when `Origin` is the server's own origin, or when `Origin` is absent
 * and `Sec-Fetch-Site` says `same-origin` or `none` (typed by the user, or a tool that says so), or
 * when it is `null` and `Sec-Fetch-Site` says `same-origin` (the sign-in page's own form).
 * Its body must be JSON: a cross-site HTML form or a `text/plain` fetch (which a page may send
 * without asking) is refused with 415 even before the Origin is looked at by anything else.
 */
import { parseAuthority } from './hosts.ts';
import { problem, type RequestProblem } from './problem.ts';

type Headers = Record<string, string | string[] | undefined>;

const SAFE_METHODS = new Set(['GET', 'HEAD']);
/** Requests that are expensive even though they change nothing; POST-only today, listed so that a GET added later is still guarded. */
const EXPENSIVE_PATHS = new Set(['/api/definitions/validate']);
/**
 * Reads that reach through to the API server (logs, held open when followed; events, paged through a
 * namespace): a page on another site must not be able to make the dashboard run them.
 */
const EXPENSIVE_PATTERNS = [/^\/api\/pods\/[^/]+\/[^/]+\/[^/]+(\/log)?$/, /^\/api\/workloads\/[^/]+\/[^/]+\/[^/]+\/[^/]+\/events$/, /^\/api\/studio\//];

function one(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/** Does this request need a same-origin JSON request? Every non-GET/HEAD one, and the expensive paths. */
export function needsSameOrigin(method: string | undefined, pathname: string): boolean {
  return !SAFE_METHODS.has((method ?? 'GET').toUpperCase()) || EXPENSIVE_PATHS.has(pathname) || EXPENSIVE_PATTERNS.some((p) => p.test(pathname));
}

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * `hostKey` is the request's Host as the Host check normalised it (`host:port`); `schemes` the
 * schemes under which the server's pages are served (`http:` on loopback; also `https:` behind a
 * TLS-terminating proxy when exposed).
 */
export function checkSameOrigin(headers: Headers, hostKey: string, schemes: readonly string[] = ['http:']): RequestProblem | null {
  const origin = one(headers.origin);
  const site = one(headers['sec-fetch-site'])?.trim().toLowerCase();
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return problem(403, 'cross_origin', `a ${site} request may not change anything or run an expensive operation here (Sec-Fetch-Site: ${site})`);
  }
  if (origin === undefined) {
    if (site === undefined) return problem(403, 'origin_required', 'a state-changing or expensive request must say where it comes from: send Origin (browsers do) or Sec-Fetch-Site: same-origin');
    return null;
  }
  // Under `Referrer-Policy: no-referrer` a browser's own form POST says `Origin: null`; its
  // Sec-Fetch-Site (which no page can set) still tells a same-origin form from an opaque origin.
  if (origin.trim() === 'null') return site === 'same-origin' ? null : problem(403, 'cross_origin', 'requests from an opaque origin (Origin: null) are refused');
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return problem(403, 'cross_origin', 'the Origin header is not an origin');
  }
  const a = parseAuthority(u.host);
  const port = a?.port ?? DEFAULT_PORT[u.protocol];
  if (!a || !schemes.includes(u.protocol) || `${a.host}:${port}` !== hostKey || u.origin !== origin.trim().toLowerCase()) {
    return problem(403, 'cross_origin', `requests from ${u.origin} are refused: only this server's own pages may change anything or run an expensive operation`);
  }
  return null;
}

/** Does the request carry a body (a declared non-zero length, or a chunked one)? */
export function hasBody(headers: Headers): boolean {
  const len = one(headers['content-length']);
  return (len !== undefined && len.trim() !== '0') || one(headers['transfer-encoding']) !== undefined;
}

/** `application/json`, optionally with `charset=utf-8`; anything else is a 415. */
export function checkJsonContentType(contentType: string | null | undefined): RequestProblem | null {
  const [type, ...params] = (contentType ?? '').split(';').map((s) => s.trim().toLowerCase());
  const charsetOk = params.every((p) => !p.startsWith('charset=') || /^charset="?utf-8"?$/.test(p));
  if (type === 'application/json' && charsetOk) return null;
  return problem(415, 'unsupported_media_type', `send the request body as JSON (content-type: application/json)${type ? `, not ${type}` : ''}`);
}
