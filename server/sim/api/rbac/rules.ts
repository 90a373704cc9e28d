/**
 * RBAC rule matching (pure), with the RBAC authorizer's semantics (kubernetes
 * plugin/pkg/auth/authorizer/rbac `RuleAllows` and pkg/apis/rbac/v1 evaluation helpers): `*` matches every
 * verb, group, resource (subresources included) and URL; `*\/scale` matches the `scale` subresource of
 * any resource; resourceNames restrict by the request's name (a request without one, like create or an
 * unfiltered list, never matches them); a nonResourceURL ending in `*` matches by prefix.
 */

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** What a request asks to do (the authorizer's Attributes). */
export interface RequestAttributes {
  verb: string;
  /** Resource requests name a group and resource; the others (discovery, health) a path. */
  resourceRequest: boolean;
  group?: string;
  /** Plural resource, without the subresource. */
  resource?: string;
  subresource?: string;
  /** The namespace asked for (for a Namespace object itself: its name, as the request-info resolver sets it). */
  namespace?: string;
  name?: string;
  path?: string;
}

/** A rule prepared once for many matches: sets instead of lists, wildcards resolved. */
export interface CompiledRule {
  rule: PolicyRule;
  verbs: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  resources: ReadonlySet<string>;
  /** Subresources matched for any resource (`*\/scale` → `scale`). */
  anySubresources: ReadonlySet<string>;
  names: ReadonlySet<string>;
  urls: ReadonlySet<string>;
  urlPrefixes: readonly string[];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** A rule as stored (any of its lists may be missing or null), with only its string entries. */
export function normalizeRule(raw: unknown): PolicyRule {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const rule: PolicyRule = { verbs: strings(r.verbs) };
  if (Array.isArray(r.apiGroups)) rule.apiGroups = strings(r.apiGroups);
  if (Array.isArray(r.resources)) rule.resources = strings(r.resources);
  if (Array.isArray(r.resourceNames)) rule.resourceNames = strings(r.resourceNames);
  if (Array.isArray(r.nonResourceURLs)) rule.nonResourceURLs = strings(r.nonResourceURLs);
  return rule;
}

export function compileRule(rule: PolicyRule): CompiledRule {
  const resources = rule.resources ?? [];
  const urls = rule.nonResourceURLs ?? [];
  return {
    rule,
    verbs: new Set(rule.verbs),
    groups: new Set(rule.apiGroups ?? []),
    resources: new Set(resources),
    anySubresources: new Set(resources.filter((r) => r.startsWith('*/') && r.length > 2).map((r) => r.slice(2))),
    names: new Set(rule.resourceNames ?? []),
    urls: new Set(urls),
    urlPrefixes: urls.filter((u) => u.endsWith('*') && u !== '*').map((u) => u.replace(/\*+$/, '')),
  };
}

function verbMatches(r: CompiledRule, verb: string): boolean {
  return r.verbs.has('*') || r.verbs.has(verb);
}

function resourceMatches(r: CompiledRule, resource: string, subresource: string | undefined): boolean {
  if (r.resources.has('*')) return true;
  if (r.resources.has(subresource ? `${resource}/${subresource}` : resource)) return true;
  return subresource !== undefined && subresource !== '' && r.anySubresources.has(subresource);
}

function nameMatches(r: CompiledRule, name: string | undefined): boolean {
  return r.names.size === 0 || (name !== undefined && r.names.has(name));
}

function urlMatches(r: CompiledRule, path: string): boolean {
  if (r.urls.has('*') || r.urls.has(path)) return true;
  return r.urlPrefixes.some((p) => path.startsWith(p));
}

/** Whether one rule allows the request. */
export function ruleAllows(r: CompiledRule, a: RequestAttributes): boolean {
  if (!verbMatches(r, a.verb)) return false;
  if (!a.resourceRequest) return urlMatches(r, a.path ?? '');
  const group = a.group ?? '';
  if (!r.groups.has('*') && !r.groups.has(group)) return false;
  return resourceMatches(r, a.resource ?? '', a.subresource) && nameMatches(r, a.name || undefined);
}
