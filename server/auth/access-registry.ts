/**
 * The process's access settings, shared between the custom server (which makes them) and the route
 * handlers (bundled apart by Next.js, so they find them on globalThis): the mode, whether writes are
 * on and why not, the cached access reviewer, and how to reach a cluster as a given user.
 */
import type { AccessReviewer } from './access-review.ts';
import type { Principal } from './principal.ts';

export interface AccessSettings {
  mode: 'local' | 'shared';
  /** Writes (actions) are on; when off, `reason` says why (`--read-only`, shared mode without `--allow-writes`). */
  writes: { enabled: boolean; reason: string | null };
  reviewer: AccessReviewer;
}

/** Whom to send a request to `cluster` as (the cluster layer's ActAs): null = the server's own identity. */
export type ActAsValue = { kind: 'bearer'; token: string } | { kind: 'impersonate'; user: string; groups: string[]; uid?: string };

/**
 * The user's own token in the cluster that accepted it; anywhere else, and for OIDC and proxy users,
 * impersonation from the server's account (which must be allowed to impersonate).
 */
export function actAsFor(p: Principal, cluster: string): ActAsValue | null {
  if (p.credential.kind === 'own') return null;
  if (p.credential.kind === 'bearer' && p.credential.cluster === cluster) return { kind: 'bearer', token: p.credential.token };
  return { kind: 'impersonate', user: p.user, groups: p.groups, uid: p.uid };
}

const KEY = Symbol.for('workload-map.access-settings');

export function setAccessSettings(s: AccessSettings | null): void {
  (globalThis as Record<symbol, unknown>)[KEY] = s;
}

export function getAccessSettings(): AccessSettings | null {
  return ((globalThis as Record<symbol, unknown>)[KEY] as AccessSettings | undefined) ?? null;
}
