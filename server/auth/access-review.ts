/**
 * What a user may do, asked of the cluster: a SubjectAccessReview from the server's account (or the
 * user's own SelfSubjectAccessReview when the server holds their token for that cluster), cached per
 * user and question for a short time so that a page of 100,000 rows costs one review per namespace
 * and kind, not one per row. The server's own identity (local mode, the access token) may do what
 * its kubeconfig may: it is not reviewed. A review that fails is a denial with the reason, cached
 * briefly: failing closed, never open.
 */
import { createHash } from 'node:crypto';
import type { Principal } from './principal.ts';

export interface AccessAttributes {
  verb: string;
  group: string;
  /** Plural resource (`jobsets`). */
  resource: string;
  subresource?: string;
  /** Absent = cluster-wide (every namespace, or a cluster-scoped resource). */
  namespace?: string;
  name?: string;
  /**
   * A non-resource URL (`/metrics`): the review asks about that path and `verb` only, as the
   * authorizer does for paths that name no object (`group` and `resource` are then empty).
   */
  nonResourcePath?: string;
}

export interface AccessDecision {
  allowed: boolean;
  /** Why (the authorizer's reason, or the failure of the review). */
  reason: string;
}

/** Sends one review to a cluster for a principal (serve.ts: SubjectAccessReview or SelfSubjectAccessReview). */
export type ReviewTransport = (cluster: string, principal: Principal, a: AccessAttributes) => Promise<AccessDecision>;

export interface AccessReviewerOptions {
  ttlMs?: number;
  /** How long a failed review is remembered (short: the cluster may come back). */
  errorTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/** A stable key of who is asking: user, groups and (for a token) which token. */
export function principalKey(p: Principal): string {
  const cred = p.credential.kind === 'bearer' ? `bearer:${createHash('sha256').update(p.credential.token).digest('base64url').slice(0, 16)}` : p.credential.kind;
  return `${p.via}\u0000${p.user}\u0000${[...p.groups].sort().join(',')}\u0000${cred}`;
}

function attrKey(cluster: string, a: AccessAttributes): string {
  return [cluster, a.verb, a.group, a.resource, a.subresource ?? '', a.namespace ?? '', a.name ?? '', a.nonResourcePath ?? ''].join('\u0000');
}

export class AccessReviewer {
  private readonly transport: ReviewTransport;
  private readonly ttl: number;
  private readonly errorTtl: number;
  private readonly max: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, { at: number; ttl: number; decision: AccessDecision }>();
  private readonly inflight = new Map<string, Promise<AccessDecision>>();
  /** Reviews sent (tests and metrics). */
  sent = 0;

  constructor(transport: ReviewTransport, o: AccessReviewerOptions = {}) {
    this.transport = transport;
    this.ttl = o.ttlMs ?? 30_000;
    this.errorTtl = o.errorTtlMs ?? 5_000;
    this.max = o.maxEntries ?? 50_000;
    this.now = o.now ?? Date.now;
  }

  /** The cached decision, if it is still fresh (no review is sent). */
  peek(cluster: string, p: Principal, a: AccessAttributes): AccessDecision | undefined {
    if (p.credential.kind === 'own') return { allowed: true, reason: 'the server\'s own identity' };
    const hit = this.cache.get(`${principalKey(p)}\u0001${attrKey(cluster, a)}`);
    return hit && this.now() - hit.at < hit.ttl ? hit.decision : undefined;
  }

  async check(cluster: string, p: Principal, a: AccessAttributes): Promise<AccessDecision> {
    const fresh = this.peek(cluster, p, a);
    if (fresh) return fresh;
    const key = `${principalKey(p)}\u0001${attrKey(cluster, a)}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const review = (async () => {
      this.sent++;
      let decision: AccessDecision;
      let ttl = this.ttl;
      try {
        decision = await this.transport(cluster, p, a);
      } catch (e) {
        decision = { allowed: false, reason: `the access review failed: ${e instanceof Error ? e.message : String(e)}` };
        ttl = this.errorTtl;
      }
      this.cache.set(key, { at: this.now(), ttl, decision });
      while (this.cache.size > this.max) this.cache.delete(this.cache.keys().next().value as string);
      return decision;
    })().finally(() => this.inflight.delete(key));
    this.inflight.set(key, review);
    return review;
  }
}
