/** Request parsing (pure): API paths, content negotiation, continue tokens. */

import { badRequest } from './status.ts';

export interface ResourcePath {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

export type ApiPath =
  | { type: 'core-root' }
  | { type: 'groups-root' }
  | { type: 'group'; group: string }
  | { type: 'group-version'; group: string; version: string }
  | { type: 'resource'; path: ResourcePath; legacyWatch: boolean }
  | { type: 'unknown' };

/**
 * `/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{sub}]]` and the same under `/apis/{g}/{v}`.
 * `/api/v1/namespaces/{x}` is a namespace (cluster-scoped), `/api/v1/namespaces/{x}/pods` a namespaced list.
 */
export function parseApiPath(pathname: string): ApiPath {
  const segs = pathname.split('/').filter((s) => s !== '').map(decodeURIComponent);
  if (segs[0] === 'api') {
    if (segs.length === 1) return { type: 'core-root' };
    return resourceOrGv('', segs[1], segs.slice(2));
  }
  if (segs[0] === 'apis') {
    if (segs.length === 1) return { type: 'groups-root' };
    if (segs.length === 2) return { type: 'group', group: segs[1] };
    return resourceOrGv(segs[1], segs[2], segs.slice(3));
  }
  return { type: 'unknown' };
}

function resourceOrGv(group: string, version: string, rest: string[]): ApiPath {
  if (rest.length === 0) return { type: 'group-version', group, version };
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    // The deprecated `/watch/` prefix some older clients use.
    legacyWatch = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    const [, namespace, resource, name, subresource] = rest;
    if (rest.length > 5) return { type: 'unknown' };
    return { type: 'resource', path: { group, version, namespace, resource, name, subresource }, legacyWatch };
  }
  const [resource, name, subresource] = rest;
  if (rest.length > 3) return { type: 'unknown' };
  return { type: 'resource', path: { group, version, resource, name, subresource }, legacyWatch };
}

export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  return header.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const i = kv.indexOf('=');
      if (i > 0) p[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
    }
    return { type: type.toLowerCase(), params: p };
  });
}

/** The first acceptable representation among Table, aggregated discovery and plain JSON, in the client's order. */
export function wantsTable(accept: string | undefined): boolean {
  for (const r of parseAccept(accept)) {
    if (r.type === 'application/json' && r.params.as === 'Table' && r.params.g === 'meta.k8s.io' && (r.params.v === 'v1' || r.params.v === 'v1beta1')) return true;
    if (r.type === 'application/json' && !r.params.as) return false;
    if (r.type === '*/*' || r.type === 'application/*') return false;
  }
  return false;
}

export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  for (const r of parseAccept(accept)) {
    if (r.type === 'application/json' && r.params.as === 'APIGroupDiscoveryList' && r.params.g === 'apidiscovery.k8s.io' && r.params.v === 'v2') return true;
    if (r.type === 'application/json' && !r.params.as) return false;
  }
  return false;
}

/** `application/merge-patch+json; charset=utf-8` → `application/merge-patch+json`. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export interface ContinueToken {
  rv: number;
  /** The first key (`namespace/name`) of the next page. */
  start: string;
}

/** The real server's token shape: base64url of `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}`. */
export function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start }), 'utf8').toString('base64url');
}

export function decodeContinue(token: string): ContinueToken {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: string; rv?: number; start?: string };
    if (v.v !== 'meta.k8s.io/v1' || typeof v.rv !== 'number' || typeof v.start !== 'string') throw new Error('shape');
    return { rv: v.rv, start: v.start };
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

export function boolParam(v: string | null): boolean {
  return v === 'true' || v === '1';
}
