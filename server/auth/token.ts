/**
 * Reading credentials from a request: bearer tokens, cookies, constant-time comparison, and where a
 * sign-in link may redirect to. Nothing here throws on what a client sends: a malformed cookie is no
 * cookie.
 */
import { timingSafeEqual } from 'node:crypto';

export function tokenMatches(given: string | undefined, want: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

function decodeOrNull(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** One cookie's value from a Cookie header; undefined when absent or not decodable. */
export function cookieValue(header: string | string[] | undefined, name: string): string | undefined {
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let v = part.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    return decodeOrNull(v) ?? undefined;
  }
  return undefined;
}

export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1] : undefined;
}

const PLACEHOLDER_ORIGIN = 'http://wmap.invalid';

/**
 * The path a `?token=` link redirects to once the token is in a cookie: the same path without the
 * token, always on this server. Backslashes and repeated slashes become one slash (browsers read
 * `//host` and `/\host` as another server), dot segments are resolved, and anything that would
 * still leave the origin becomes `/`.
 */
export function sameOriginRedirect(pathname: string, search: URLSearchParams): string {
  const collapse = (p: string) => `/${p.replace(/\\/g, '/').replace(/^\/+/, '')}`.replace(/\/{2,}/g, '/');
  let path = collapse(pathname);
  try {
    path = collapse(new URL(path, PLACEHOLDER_ORIGIN).pathname);
  } catch {
    path = '/';
  }
  const q = search.toString();
  const location = `${path}${q ? `?${q}` : ''}`;
  try {
    const u = new URL(location, PLACEHOLDER_ORIGIN);
    return u.origin === PLACEHOLDER_ORIGIN && location.startsWith('/') && !/^\/[/\\]/.test(location) ? location : '/';
  } catch {
    return '/';
  }
}
