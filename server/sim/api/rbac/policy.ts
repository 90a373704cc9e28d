/**
 * The RBAC rule resolver and authorizer over a set of Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding objects (pure). Same answers as kubernetes' DefaultRuleResolver + RBACAuthorizer
 * (pkg/registry/rbac/validation/rule.go, plugin/pkg/auth/authorizer/rbac/rbac.go): ClusterRoleBindings
 * first, then the RoleBindings of the request's namespace; a RoleBinding may grant a ClusterRole within
 * its namespace; a ServiceAccount subject without a namespace means the binding's; a role that does not
 * exist is an error the denial reason names; the first rule that allows wins and the reason names its
 * binding ("RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group "z"").
 *
 * Built once per change of the RBAC objects: rules are compiled once per role, and bindings are indexed
 * by subject (user name or group), so a request looks only at the bindings of its own user and groups.
 */

import type { KubeObject } from '../../store/object-store.ts';
import type { UserInfo } from '../authn/user.ts';
import type { CompiledRule, PolicyRule, RequestAttributes } from './rules.ts';
import { compileRule, normalizeRule, ruleAllows } from './rules.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface RbacObjects {
  clusterRoles: readonly KubeObject[];
  roles: readonly KubeObject[];
  clusterRoleBindings: readonly KubeObject[];
  roleBindings: readonly KubeObject[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

interface Binding {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  name: string;
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  roleRef: { kind: string; name: string };
  subjects: Subject[];
  /** Position in name order: bindings are visited in it, so answers do not depend on creation order. */
  order: number;
}

interface Candidate {
  binding: Binding;
  /** The first subject of the binding that applies (the one the reason names). */
  subject: number;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

export interface ResolvedRules {
  rules: PolicyRule[];
  /** Resolution errors (a binding to a role that does not exist), in Go's wording. */
  errors: string[];
}

/** Visits (where the rule comes from, the rule) or a resolution error; returning false stops. */
export type RuleVisitor = (source: (() => string) | undefined, rule: CompiledRule | undefined, error: string | undefined) => boolean;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function subjectsOf(o: KubeObject): Subject[] {
  const raw = Array.isArray(o.subjects) ? (o.subjects as unknown[]) : [];
  return raw.map((s) => {
    const r = (typeof s === 'object' && s !== null ? s : {}) as Record<string, unknown>;
    const subject: Subject = { kind: str(r.kind), name: str(r.name) };
    if (str(r.namespace)) subject.namespace = str(r.namespace);
    return subject;
  });
}

function roleRefOf(o: KubeObject): { kind: string; name: string } {
  const r = (typeof o.roleRef === 'object' && o.roleRef !== null ? o.roleRef : {}) as Record<string, unknown>;
  return { kind: str(r.kind), name: str(r.name) };
}

function compiledRulesOf(o: KubeObject): CompiledRule[] {
  return (Array.isArray(o.rules) ? (o.rules as unknown[]) : []).map((r) => compileRule(normalizeRule(r)));
}

/** `%q` for the names in messages. */
function quote(s: string): string {
  return JSON.stringify(s);
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${quote(`${s.name}/${s.namespace ?? bindingNamespace}`)}`;
  return `${s.kind} ${quote(s.name)}`;
}

function describe(c: Candidate): string {
  const b = c.binding;
  const name = b.kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
  return `${b.kind} ${quote(name)} of ${b.roleRef.kind} ${quote(b.roleRef.name)} to ${describeSubject(b.subjects[c.subject], b.namespace)}`;
}

/** The index key a subject applies under: a user name (service accounts by theirs) or a group. */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `u:${s.name}`;
    case 'Group':
      return `g:${s.name}`;
    case 'ServiceAccount': {
      const ns = s.namespace ?? bindingNamespace;
      // A ServiceAccount subject of a ClusterRoleBinding needs its namespace; without one it applies to nobody.
      return ns ? `u:system:serviceaccount:${ns}:${s.name}` : undefined;
    }
    default:
      return undefined;
  }
}

type SubjectIndex = Map<string, Candidate[]>;

function indexBindings(bindings: Binding[]): SubjectIndex {
  const index: SubjectIndex = new Map();
  for (const b of bindings) {
    const seen = new Set<string>();
    b.subjects.forEach((s, i) => {
      const key = subjectKey(s, b.namespace);
      if (key === undefined || seen.has(key)) return;
      seen.add(key);
      const list = index.get(key) ?? [];
      list.push({ binding: b, subject: i });
      index.set(key, list);
    });
  }
  return index;
}

function bindingsOf(objects: readonly KubeObject[], kind: Binding['kind']): Binding[] {
  const out = objects.map((o) => ({ kind, name: o.metadata.name ?? '', namespace: kind === 'RoleBinding' ? (o.metadata.namespace ?? '') : '', roleRef: roleRefOf(o), subjects: subjectsOf(o), order: 0 }));
  out.sort((a, b) => (a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1));
  out.forEach((b, i) => (b.order = i));
  return out;
}

/** utilerrors.NewAggregate(...).Error(): one message as it is, several deduplicated in brackets. */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

export class RbacPolicy {
  private readonly clusterRoles = new Map<string, CompiledRule[]>();
  private readonly roles = new Map<string, CompiledRule[]>();
  private readonly clusterBindings: SubjectIndex;
  private readonly namespaceBindings = new Map<string, SubjectIndex>();

  constructor(objects: RbacObjects) {
    for (const o of objects.clusterRoles) this.clusterRoles.set(o.metadata.name ?? '', compiledRulesOf(o));
    for (const o of objects.roles) this.roles.set(`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, compiledRulesOf(o));
    this.clusterBindings = indexBindings(bindingsOf(objects.clusterRoleBindings, 'ClusterRoleBinding'));
    const byNamespace = new Map<string, Binding[]>();
    for (const b of bindingsOf(objects.roleBindings, 'RoleBinding')) {
      const list = byNamespace.get(b.namespace) ?? [];
      list.push(b);
      byNamespace.set(b.namespace, list);
    }
    for (const [ns, list] of byNamespace) this.namespaceBindings.set(ns, indexBindings(list));
  }

  /** The bindings of an index that apply to the user, in binding order, each with its first applying subject. */
  private candidates(index: SubjectIndex | undefined, user: UserInfo): Candidate[] {
    if (!index) return [];
    const found = new Map<Binding, number>();
    const add = (key: string) => {
      for (const c of index.get(key) ?? []) {
        const seen = found.get(c.binding);
        if (seen === undefined || c.subject < seen) found.set(c.binding, c.subject);
      }
    };
    add(`u:${user.username}`);
    for (const g of user.groups) add(`g:${g}`);
    return [...found].map(([binding, subject]) => ({ binding, subject })).sort((a, b) => a.binding.order - b.binding.order);
  }

  private roleRules(ref: { kind: string; name: string }, bindingNamespace: string): { rules?: CompiledRule[]; error?: string } {
    if (ref.kind === 'ClusterRole') {
      const rules = this.clusterRoles.get(ref.name);
      return rules ? { rules } : { error: `clusterrole.${RBAC_GROUP} ${quote(ref.name)} not found` };
    }
    if (ref.kind === 'Role') {
      const rules = this.roles.get(`${bindingNamespace}/${ref.name}`);
      return rules ? { rules } : { error: `role.${RBAC_GROUP} ${quote(ref.name)} not found` };
    }
    return { error: `unsupported role reference kind: ${quote(ref.kind)}` };
  }

  /** VisitRulesFor: every rule that applies to the user in the namespace (cluster-wide only when none). */
  visitRulesFor(user: UserInfo, namespace: string | undefined, visit: RuleVisitor): void {
    const scopes: Array<[SubjectIndex | undefined, string]> = [[this.clusterBindings, '']];
    if (namespace) scopes.push([this.namespaceBindings.get(namespace), namespace]);
    for (const [index, ns] of scopes) {
      for (const c of this.candidates(index, user)) {
        const { rules, error } = this.roleRules(c.binding.roleRef, ns);
        if (!rules) {
          if (!visit(undefined, undefined, error)) return;
          continue;
        }
        const source = () => describe(c);
        for (const r of rules) if (!visit(source, r, undefined)) return;
      }
    }
  }

  authorize(user: UserInfo, attrs: RequestAttributes): Decision {
    let reason: string | undefined;
    const errors: string[] = [];
    this.visitRulesFor(user, attrs.namespace, (source, rule, error) => {
      if (rule && source && ruleAllows(rule, attrs)) {
        reason = `RBAC: allowed by ${source()}`;
        return false;
      }
      if (error) errors.push(error);
      return true;
    });
    if (reason !== undefined) return { allowed: true, reason };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateMessage(errors)}` : '' };
  }

  rulesFor(user: UserInfo, namespace: string | undefined): ResolvedRules {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule) rules.push(rule.rule);
      if (error) errors.push(error);
      return true;
    });
    return { rules, errors };
  }
}
