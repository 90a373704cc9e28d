/**
 * Per-token access rules (pure), so that clients can be tested against Forbidden answers:
 * a token limited to some namespaces, one that may not list pods, a read-only one.
 */

import { forbidden } from './status.ts';
import type { ApiError } from './status.ts';

export interface AccessMatch {
  /** get, list, watch, create, update, patch, delete, deletecollection; absent = any. */
  verbs?: string[];
  /** API groups ('' = core); absent = any. */
  groups?: string[];
  /** Plural resources, optionally with subresource (`pods/status`); absent = any. */
  resources?: string[];
  /** Namespaces; absent = any (including cluster scope). */
  namespaces?: string[];
}

export interface AccessRule {
  /** The bearer token. */
  token: string;
  /** User name in messages (default `user-<first 6 characters of the token>`). */
  user?: string;
  /** Full access (what the kubeconfig's default token has). */
  admin?: boolean;
  /** Only get, list and watch. */
  readOnly?: boolean;
  /**
   * Everything is restricted to these namespaces, as a RoleBinding per namespace would: cluster-scope
   * requests (`-A`, nodes) are forbidden, except reading these Namespace objects themselves.
   */
  namespaces?: string[];
  /** When present, a request must match one of these. */
  allow?: AccessMatch[];
  /** A request matching any of these is forbidden. */
  deny?: AccessMatch[];
}

export interface AccessRequest {
  verb: string;
  group: string;
  /** Plural, with `/sub` for subresources. */
  resource: string;
  namespace?: string;
  name?: string;
  /** Whether the resource is namespaced (a cluster-wide list of a namespaced kind has no namespace). */
  namespaced: boolean;
}

const READ_VERBS = new Set(['get', 'list', 'watch']);

function matches(m: AccessMatch, r: AccessRequest): boolean {
  if (m.verbs && !m.verbs.includes(r.verb) && !m.verbs.includes('*')) return false;
  if (m.groups && !m.groups.includes(r.group) && !m.groups.includes('*')) return false;
  if (m.resources && !m.resources.includes(r.resource) && !m.resources.includes(r.resource.split('/')[0]) && !m.resources.includes('*')) return false;
  if (m.namespaces && (r.namespace === undefined || !m.namespaces.includes(r.namespace))) return false;
  return true;
}

export function userOf(rule: AccessRule): string {
  return rule.user ?? (rule.admin ? 'admin' : `user-${rule.token.slice(0, 6)}`);
}

/** The Forbidden error for a denied request, or undefined when it is allowed. */
export function authorize(rule: AccessRule, r: AccessRequest): ApiError | undefined {
  if (rule.admin) return undefined;
  const deny = () => forbidden(userOf(rule), r.verb, r.group, r.resource, r.name, r.namespace);
  if (rule.readOnly && !READ_VERBS.has(r.verb)) return deny();
  if (rule.namespaces) {
    const ownNamespace = r.group === '' && r.resource === 'namespaces' && r.name !== undefined && rule.namespaces.includes(r.name) && READ_VERBS.has(r.verb);
    if (!ownNamespace && (r.namespace === undefined || !rule.namespaces.includes(r.namespace))) return deny();
  }
  if (rule.deny?.some((m) => matches(m, r))) return deny();
  if (rule.allow && !rule.allow.some((m) => matches(m, r))) return deny();
  return undefined;
}
