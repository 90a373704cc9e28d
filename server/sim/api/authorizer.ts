/**
 * Authorization as kube-apiserver chains it: members of `system:masters` are allowed before anything
 * else (the privileged-group authorizer, no reason given), then RBAC over the Role/ClusterRole/
 * RoleBinding/ClusterRoleBinding objects in the store. A requester with one of the simulator's own
 * access rules (SimOptions.tokens) is authorized by that rule instead, as before RBAC existed here.
 *
 * The RBAC policy is rebuilt lazily after any change to an RBAC object (seen on the store's event
 * stream: one cheap check per event, so watches of 100k pods are not slowed down).
 */

import type { MemoryStore } from '../store/memory-store.ts';
import type { AccessRequest } from './access.ts';
import { authorize as authorizeRule, userOf } from './access.ts';
import type { Identity, UserInfo } from './authn/user.ts';
import { isPrivileged } from './authn/user.ts';
import type { Decision } from './rbac/policy.ts';
import { aggregateMessage, RBAC_GROUP, RbacPolicy } from './rbac/policy.ts';
import type { PolicyRule, RequestAttributes } from './rbac/rules.ts';
import type { ApiError } from './status.ts';
import { forbidden, forbiddenPath } from './status.ts';

const RBAC_AV = `${RBAC_GROUP}/v1`;

export type { Decision } from './rbac/policy.ts';

export interface RulesReview {
  resourceRules: Array<{ verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs: string[] }>;
  incomplete: boolean;
  evaluationError?: string;
}

const SELF_REVIEWS = new Set(['authorization.k8s.io/selfsubjectaccessreviews', 'authorization.k8s.io/selfsubjectrulesreviews', 'authentication.k8s.io/selfsubjectreviews']);

function isSelfReview(a: RequestAttributes): boolean {
  return a.verb === 'create' && SELF_REVIEWS.has(`${a.group ?? ''}/${a.resource ?? ''}`);
}

/** The request as the simulator's own access rules see it (a Namespace object is cluster-scoped there). */
function legacyRequest(a: RequestAttributes): AccessRequest {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : (a.resource ?? '');
  const isNamespace = (a.group ?? '') === '' && a.resource === 'namespaces';
  return { verb: a.verb, group: a.group ?? '', resource, namespace: isNamespace ? undefined : a.namespace, name: a.name, namespaced: !isNamespace };
}

export class Authorizer {
  private policy: RbacPolicy | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly store: MemoryStore) {
    this.unsubscribe = store.subscribe((e) => {
      if (this.policy && e.object.apiVersion.startsWith(`${RBAC_GROUP}/`)) this.policy = undefined;
    });
  }

  stop(): void {
    this.unsubscribe();
  }

  /** The RBAC policy as the store holds it now. */
  rbac(): RbacPolicy {
    this.policy ??= new RbacPolicy({
      clusterRoles: this.store.list(RBAC_AV, 'ClusterRole'),
      roles: this.store.list(RBAC_AV, 'Role'),
      clusterRoleBindings: this.store.list(RBAC_AV, 'ClusterRoleBinding'),
      roleBindings: this.store.list(RBAC_AV, 'RoleBinding'),
    });
    return this.policy;
  }

  /** The decision for a user described by a SubjectAccessReview (no token, so never a legacy rule). */
  authorizeUser(user: UserInfo, attrs: RequestAttributes): Decision {
    if (isPrivileged(user)) return { allowed: true, reason: '' };
    return this.rbac().authorize(user, attrs);
  }

  authorize(id: Identity, attrs: RequestAttributes): Decision {
    if (id.legacy) {
      // The access rules only ever restricted resource requests; and every user of a real cluster may
      // review itself (system:basic-user), so `kubectl auth can-i` works with any of them.
      if (!attrs.resourceRequest || isSelfReview(attrs)) return { allowed: true, reason: '' };
      return { allowed: authorizeRule(id.legacy, legacyRequest(attrs)) === undefined, reason: '' };
    }
    return this.authorizeUser(id.user, attrs);
  }

  /** The 403 for a denied request, or undefined when it is allowed. */
  check(id: Identity, attrs: RequestAttributes): ApiError | undefined {
    if (id.legacy && attrs.resourceRequest && !isSelfReview(attrs)) return authorizeRule(id.legacy, legacyRequest(attrs));
    const d = this.authorize(id, attrs);
    return d.allowed ? undefined : forbiddenError(id.user.username, attrs, d.reason);
  }

  /** What SelfSubjectRulesReview lists: RBAC's rules (the privileged group lists none of its own). */
  rulesFor(id: Identity, namespace: string): RulesReview {
    if (id.legacy) {
      if (id.legacy.admin) return { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false };
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: `the access rule of ${userOf(id.legacy)} is not RBAC and cannot be listed` };
    }
    const { rules, errors } = this.rbac().rulesFor(id.user, namespace);
    const review: RulesReview = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const r of rules) {
      if ((r.resources ?? []).length > 0) review.resourceRules.push(resourceRule(r));
      if ((r.nonResourceURLs ?? []).length > 0) review.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] });
    }
    if (errors.length > 0) review.evaluationError = aggregateMessage(errors);
    return review;
  }
}

function resourceRule(r: PolicyRule): RulesReview['resourceRules'][number] {
  const out: RulesReview['resourceRules'][number] = { verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [] };
  if ((r.resourceNames ?? []).length > 0) out.resourceNames = r.resourceNames;
  return out;
}

/** responsewriters.Forbidden for these attributes. */
export function forbiddenError(username: string, a: RequestAttributes, reason: string): ApiError {
  if (!a.resourceRequest) return forbiddenPath(username, a.verb, a.path ?? '', reason);
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : (a.resource ?? '');
  return forbidden(username, a.verb, a.group ?? '', resource, a.name || undefined, a.namespace || undefined, reason);
}
