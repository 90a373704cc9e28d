/**
 * The create-only reviews (pkg/registry/authentication and pkg/registry/authorization): nothing is
 * stored, the answer is the request with its status filled in (201 Created).
 * - TokenReview: the token checked for its audiences (the API server's when none are given).
 * - SubjectAccessReview / LocalSubjectAccessReview: RBAC's decision for the user and groups described
 *   (exactly those: `system:authenticated` is not added), the local one within its namespace.
 * - SelfSubjectAccessReview: the same for the requester (`kubectl auth can-i`).
 * - SelfSubjectRulesReview: the requester's rules in a namespace (`kubectl auth can-i --list`).
 * - SelfSubjectReview: who the requester is (`kubectl auth whoami`).
 * Asking for a TokenReview or SubjectAccessReview is itself authorized (create tokenreviews /
 * subjectaccessreviews), like any request, before this runs.
 */

import type { KubeObject } from '../../store/object-store.ts';
import { isPlainObject, rfc3339 } from '../../store/object-utils.ts';
import type { UserInfo } from '../authn/user.ts';
import type { ResourceRequest } from '../context.ts';
import type { RequestAttributes } from '../rbac/rules.ts';
import { decodeBody, readRawBody } from '../request-body.ts';
import { sendJson } from '../respond.ts';
import { badRequest } from '../status.ts';
import type { FieldError } from '../validation/field-errors.ts';
import { invalidError, invalidValue, q } from '../validation/field-errors.ts';
import { normalizeBody } from './admission.ts';

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return isPlainObject(v) ? v : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** UserInfo as the API writes it: empty fields left out. */
function userInfoJson(u: UserInfo): Obj {
  const out: Obj = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups.length > 0) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

/** Go's `%#v` of the attributes struct in the "exactly one of" errors. */
function goAttributes(kind: string, a: Obj): string {
  const fieldsOf: Record<string, string[]> = { NonResourceAttributes: ['path', 'verb'], ResourceAttributes: ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] };
  const parts = fieldsOf[kind].map((f) => `${f[0].toUpperCase()}${f.slice(1)}:${q(str(a[f]))}`);
  if (kind === 'ResourceAttributes') parts.push('FieldSelector:(*authorization.FieldSelectorAttributes)(nil)', 'LabelSelector:(*authorization.LabelSelectorAttributes)(nil)');
  return `authorization.${kind}{${parts.join(', ')}}`;
}

/** ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec. */
function specErrors(spec: Obj, needsSubject: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  if (isPlainObject(ra) && isPlainObject(nra)) errs.push(invalidValue('spec.nonResourceAttributes', goAttributes('NonResourceAttributes', nra), 'cannot be specified in combination with resourceAttributes'));
  if (!isPlainObject(ra) && !isPlainObject(nra)) errs.push(invalidValue('spec.resourceAttributes', '"null"', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (needsSubject && !str(spec.user) && strings(spec.groups).length === 0) errs.push(invalidValue('spec.user', q(str(spec.user)), 'at least one of user or group must be specified'));
  return errs;
}

/** ResourceAttributesFrom / NonResourceAttributesFrom. */
function attributesOf(spec: Obj): RequestAttributes {
  if (isPlainObject(spec.resourceAttributes)) {
    const a = spec.resourceAttributes;
    return { verb: str(a.verb), resourceRequest: true, group: str(a.group), resource: str(a.resource), subresource: str(a.subresource) || undefined, namespace: str(a.namespace) || undefined, name: str(a.name) || undefined };
  }
  const n = obj(spec.nonResourceAttributes);
  return { verb: str(n.verb), resourceRequest: false, path: str(n.path) };
}

function decisionStatus(d: { allowed: boolean; reason: string }): Obj {
  const status: Obj = { allowed: d.allowed };
  if (d.reason) status.reason = d.reason;
  return status;
}

async function readReview(r: ResourceRequest): Promise<KubeObject> {
  const raw = await readRawBody(r.req);
  const body = decodeBody(raw, 'object', { kind: r.desc.kind });
  return normalizeBody(r.desc, r.p, body?.value ?? {});
}

/** The request with its status; reviews carry no server-set metadata (a zero creationTimestamp is null). */
function answer(r: ResourceRequest, review: KubeObject, status: Obj, creationTimestamp: string | null = null): void {
  const { name, namespace } = review.metadata;
  const metadata: Obj = { ...(name ? { name } : {}), ...(namespace ? { namespace } : {}), creationTimestamp };
  sendJson(r.res, 201, { ...review, metadata, status });
}

export async function handleReview(r: ResourceRequest): Promise<void> {
  const { ctx, desc, user } = r;
  const review = await readReview(r);
  const spec = obj(review.spec);
  const invalid = (errs: FieldError[]) => {
    if (errs.length > 0) throw invalidError(desc.kind, desc.group, '', errs);
  };
  switch (desc.kind) {
    case 'TokenReview': {
      const token = str(spec.token);
      if (!token) throw badRequest('token is required for TokenReview in authentication');
      const result = ctx.auth.authenticator.review(token, strings(spec.audiences));
      const status: Obj = {};
      if (result.authenticated) status.authenticated = true;
      status.user = result.user ? userInfoJson(result.user) : {};
      if (result.audiences && result.audiences.length > 0) status.audiences = result.audiences;
      if (result.error) status.error = result.error;
      return answer(r, review, status);
    }
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview': {
      invalid(specErrors(spec, true));
      if (desc.kind === 'LocalSubjectAccessReview') {
        if (!isPlainObject(spec.resourceAttributes)) invalid([invalidValue('spec.nonResourceAttributes', goAttributes('NonResourceAttributes', obj(spec.nonResourceAttributes)), 'disallowed on this kind of request')]);
        const ns = str(obj(spec.resourceAttributes).namespace);
        if (ns !== review.metadata.namespace) invalid([invalidValue('spec.resourceAttributes.namespace', q(ns), 'must match metadata.namespace')]);
      }
      const subject: UserInfo = { username: str(spec.user), groups: strings(spec.groups) };
      if (str(spec.uid)) subject.uid = str(spec.uid);
      if (isPlainObject(spec.extra)) subject.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, strings(v)]));
      return answer(r, review, decisionStatus(ctx.auth.authorizer.authorizeUser(subject, attributesOf(spec))));
    }
    case 'SelfSubjectAccessReview': {
      invalid(specErrors(spec, false));
      return answer(r, review, decisionStatus(ctx.auth.authorizer.authorize(user, attributesOf(spec))));
    }
    case 'SelfSubjectRulesReview': {
      const ns = str(spec.namespace);
      if (!ns) throw badRequest('no namespace on request');
      const rules = ctx.auth.authorizer.rulesFor(user, ns);
      const status: Obj = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete };
      if (rules.evaluationError) status.evaluationError = rules.evaluationError;
      return answer(r, review, status);
    }
    case 'SelfSubjectReview': {
      return answer(r, review, { userInfo: userInfoJson(user.user) }, rfc3339(new Date(ctx.now())));
    }
  }
  throw badRequest(`${desc.kind} is not a review`);
}
