/**
 * The request target, read without letting it name another server: `new URL(req.url, base)` would
 * take `//evil.example/x` or `/\evil.example` as an authority, so the path and the query are split
 * by hand and only the path's own form is kept.
 */
import { problem, type RequestProblem } from './problem.ts';

/** Longer targets get a 414 (Node itself refuses request heads beyond 16 KiB). */
export const MAX_TARGET_LENGTH = 8192;

export interface RequestTarget {
  /** As sent (percent-encoded). */
  pathname: string;
  search: URLSearchParams;
}

function decodes(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

export function requestTarget(raw: string | undefined): RequestTarget | RequestProblem {
  const url = raw ?? '';
  if (url.length > MAX_TARGET_LENGTH) return problem(414, 'uri_too_long', `the request target is longer than ${MAX_TARGET_LENGTH} characters`);
  if (!url.startsWith('/')) return problem(400, 'invalid_target', 'the request target must be a path (origin form, starting with /)');
  const hash = url.indexOf('#');
  const noHash = hash < 0 ? url : url.slice(0, hash);
  const q = noHash.indexOf('?');
  const pathname = q < 0 ? noHash : noHash.slice(0, q);
  // A path the router could not decode would make it throw (a 500): refuse it here.
  if (!decodes(pathname)) return problem(400, 'invalid_target', 'the request path has a malformed percent-escape');
  // URLSearchParams keeps a malformed escape as it is instead of throwing.
  return { pathname, search: new URLSearchParams(q < 0 ? '' : noHash.slice(q + 1)) };
}
