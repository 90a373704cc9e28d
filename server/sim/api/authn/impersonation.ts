/**
 * Impersonation, as kube-apiserver's impersonation filter does it: `Impersonate-User` (a
 * `system:serviceaccount:NS:NAME` user is the service account), `Impersonate-Group` (repeatable),
 * `Impersonate-Uid` and `Impersonate-Extra-<key>`. The requester needs the `impersonate` verb on each
 * value (users, groups, serviceaccounts in the core group; uids and userextras/<key> in
 * authentication.k8s.io), else 403 naming the first value refused. The request then runs as the
 * impersonated user alone: its own groups (a service account's when none are given) plus
 * `system:authenticated`; nothing of the requester is kept.
 */

import type { IncomingMessage } from 'node:http';
import type { Authorizer } from '../authorizer.ts';
import type { RequestAttributes } from '../rbac/rules.ts';
import { PlainTextError } from '../status.ts';
import type { Identity, UserInfo } from './user.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername } from './user.ts';

const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.k8s.io';

/** One thing asked to be impersonated (an ObjectReference in the real filter). */
interface Asked {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  namespace?: string;
  name: string;
  apiVersion?: string;
  /** The extra's key. */
  fieldPath?: string;
}

/** url.PathUnescape of an extra key; a malformed one is kept as it is. */
function unescapeKey(k: string): string {
  try {
    return decodeURIComponent(k);
  } catch {
    return k;
  }
}

/** Go's %v of the []ObjectReference, for the error of groups without a user. */
function goRefs(asked: Asked[]): string {
  return `[${asked.map((a) => `{${[a.kind, a.namespace ?? '', a.name, '', a.apiVersion ?? '', '', a.fieldPath ?? ''].join(' ')}}`).join(' ')}]`;
}

function askedOf(req: IncomingMessage): { asked: Asked[]; groupsGiven: boolean } {
  const h = req.headersDistinct;
  const asked: Asked[] = [];
  const user = h['impersonate-user']?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    asked.push(sa ? { kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name } : { kind: 'User', name: user });
  }
  const groups = h['impersonate-group'] ?? [];
  for (const g of groups) asked.push({ kind: 'Group', name: g });
  let extras = false;
  for (const [header, values] of Object.entries(h)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    extras = true;
    const key = unescapeKey(header.slice(EXTRA_PREFIX.length).toLowerCase());
    for (const v of values) asked.push({ kind: 'UserExtra', name: v, apiVersion: `${AUTHN_GROUP}/v1`, fieldPath: key });
  }
  const uid = h['impersonate-uid']?.[0] ?? '';
  if (uid) asked.push({ kind: 'UID', name: uid, apiVersion: `${AUTHN_GROUP}/v1` });
  if ((groups.length > 0 || extras || uid) && !user) {
    throw new PlainTextError(500, `Internal Server Error: ${JSON.stringify(req.url ?? '/')}: requested ${goRefs(asked)} without impersonating a user`);
  }
  return { asked, groupsGiven: groups.length > 0 };
}

function attributesOf(a: Asked): RequestAttributes {
  const base = { verb: 'impersonate', resourceRequest: true, name: a.name };
  switch (a.kind) {
    case 'ServiceAccount':
      return { ...base, group: '', resource: 'serviceaccounts', namespace: a.namespace };
    case 'User':
      return { ...base, group: '', resource: 'users' };
    case 'Group':
      return { ...base, group: '', resource: 'groups' };
    case 'UserExtra':
      return { ...base, group: AUTHN_GROUP, resource: 'userextras', subresource: a.fieldPath };
    case 'UID':
      return { ...base, group: AUTHN_GROUP, resource: 'uids' };
  }
}

/** Whether the request asks to impersonate anyone (cheap: most requests do not). */
export function wantsImpersonation(req: IncomingMessage): boolean {
  return Object.keys(req.headers).some((h) => h.startsWith('impersonate-'));
}

/** The identity the request runs as: the requester's own, or the impersonated one when allowed. */
export function impersonate(req: IncomingMessage, requester: Identity, authz: Authorizer): Identity {
  if (!wantsImpersonation(req)) return requester;
  const { asked, groupsGiven } = askedOf(req);
  if (asked.length === 0) return requester;
  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const a of asked) {
    const denied = authz.check(requester, attributesOf(a));
    if (denied) throw denied;
    if (a.kind === 'ServiceAccount') {
      username = serviceAccountUsername(a.namespace!, a.name);
      if (!groupsGiven) groups = serviceAccountGroups(a.namespace!);
    } else if (a.kind === 'User') username = a.name;
    else if (a.kind === 'Group') groups.push(a.name);
    else if (a.kind === 'UserExtra') (extra[a.fieldPath!] ??= []).push(a.name);
    else uid = a.name;
  }
  if (username !== ANONYMOUS) {
    if (!groups.includes(ALL_AUTHENTICATED) && !groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_UNAUTHENTICATED);
  const user: UserInfo = { username, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return { user };
}
