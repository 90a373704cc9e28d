/**
 * Who a request is (pure): the user info every authenticator produces, and the service-account naming
 * rules of k8s.io/apiserver/pkg/authentication/serviceaccount (`system:serviceaccount:NS:NAME`, groups
 * `system:serviceaccounts` and `system:serviceaccounts:NS`).
 */

import type { AccessRule } from '../access.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';

export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS = 'system:anonymous';
/** Members are allowed everything before any authorizer is asked (the API server's privileged group). */
export const SYSTEM_MASTERS = 'system:masters';
export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * An authenticated requester. `legacy` marks the simulator's own per-token access rules
 * (SimOptions.tokens): such a request is authorized by its rule instead of RBAC.
 */
export interface Identity {
  user: UserInfo;
  legacy?: AccessRule;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS, `${ALL_SERVICE_ACCOUNTS}:${namespace}`];
}

/** `system:serviceaccount:NS:NAME` → its namespace and name, when both are valid names (SplitUsername). */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** The authenticated-group adder: every authenticated user is in `system:authenticated`. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS || user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS);
}
