/**
 * The default ClusterRoles and ClusterRoleBindings a real cluster starts with (kubernetes
 * plugin/pkg/auth/authorizer/rbac/bootstrappolicy, the user-facing part of it): `cluster-admin` bound
 * to `system:masters`; `admin`, `edit` and `view` as aggregated roles over `system:aggregate-to-*`
 * (view aggregates into edit, edit into admin); `system:basic-user` (self reviews), `system:discovery`
 * and `system:public-info-viewer` for every authenticated user; `system:auth-delegator` for
 * delegated authentication; `system:monitoring`; the issuer-discovery role for service accounts.
 * Controller and node roles are left out: nothing in the simulator acts as them.
 */

import type { MemoryStore } from '../../store/memory-store.ts';
import type { KubeObject } from '../../store/object-store.ts';
import { clone } from '../../store/object-utils.ts';
import { aggregateAll } from './aggregation.ts';
import { RBAC_GROUP } from './policy.ts';
import type { PolicyRule } from './rules.ts';

const AV = `${RBAC_GROUP}/v1`;
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

export const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

const DEFAULT_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  labels?: Record<string, string>;
  /** Aggregated from the ClusterRoles carrying this label (value "true"). */
  aggregateFrom?: string;
}

const VIEW_RULES: PolicyRule[] = [
  rule(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
  rule(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
  rule(READ, [''], ['namespaces']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
  rule(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
  rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
  rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

const EDIT_RULES: PolicyRule[] = [
  rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['pods/eviction']),
  rule(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
  rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
  rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
  rule(WRITE, ['policy'], ['poddisruptionbudgets']),
  rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
  rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
];

const ADMIN_RULES: PolicyRule[] = [
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  rule(READ_WRITE, [RBAC_GROUP], ['rolebindings', 'roles']),
];

const ROLES: RoleSpec[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'admin', aggregateFrom: AGGREGATE_TO_ADMIN },
  { name: 'edit', aggregateFrom: AGGREGATE_TO_EDIT, labels: { [AGGREGATE_TO_ADMIN]: 'true' } },
  { name: 'view', aggregateFrom: AGGREGATE_TO_VIEW, labels: { [AGGREGATE_TO_EDIT]: 'true' } },
  { name: 'system:aggregate-to-admin', rules: ADMIN_RULES, labels: { [AGGREGATE_TO_ADMIN]: 'true' } },
  { name: 'system:aggregate-to-edit', rules: EDIT_RULES, labels: { [AGGREGATE_TO_EDIT]: 'true' } },
  { name: 'system:aggregate-to-view', rules: VIEW_RULES, labels: { [AGGREGATE_TO_VIEW]: 'true' } },
  {
    name: 'system:basic-user',
    rules: [rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])],
  },
  { name: 'system:discovery', rules: [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])] },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])] },
  { name: 'system:auth-delegator', rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
  { name: 'system:monitoring', rules: [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])] },
  { name: 'system:service-account-issuer-discovery', rules: [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])] },
];

const BINDINGS: Array<{ name: string; role?: string; groups: string[] }> = [
  { name: 'cluster-admin', groups: ['system:masters'] },
  { name: 'system:basic-user', groups: ['system:authenticated'] },
  { name: 'system:discovery', groups: ['system:authenticated'] },
  { name: 'system:public-info-viewer', groups: ['system:authenticated', 'system:unauthenticated'] },
  { name: 'system:monitoring', groups: ['system:monitoring'] },
  { name: 'system:service-account-issuer-discovery', groups: ['system:serviceaccounts'] },
];

function clusterRole(s: RoleSpec): KubeObject {
  const o: KubeObject = {
    apiVersion: AV,
    kind: 'ClusterRole',
    metadata: { name: s.name, labels: { ...DEFAULT_LABELS, ...(s.labels ?? {}) }, annotations: { ...AUTOUPDATE } },
    rules: (s.rules ?? []).map((r) => ({ ...r })),
  };
  if (s.aggregateFrom) o.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [s.aggregateFrom]: 'true' } }] };
  return o;
}

/** The default ClusterRoles; aggregated ones with empty rules (the aggregation controller fills them). */
export function bootstrapClusterRoles(): KubeObject[] {
  return ROLES.map(clusterRole);
}

export function bootstrapClusterRoleBindings(): KubeObject[] {
  return BINDINGS.map((b) => ({
    apiVersion: AV,
    kind: 'ClusterRoleBinding',
    metadata: { name: b.name, labels: { ...DEFAULT_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: b.role ?? b.name },
    subjects: b.groups.map((name) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name })),
  }));
}

/**
 * Creates the default roles and bindings that are missing (what a restarted API server's RBAC
 * bootstrapper reconciles), with aggregated roles already holding their rules, as they would once the
 * aggregation controller has run. Objects that exist (a state file) are left as they are.
 */
export function installBootstrapPolicy(store: MemoryStore): void {
  const existing = store.list(AV, 'ClusterRole');
  const missing = bootstrapClusterRoles().filter((r) => !existing.some((e) => e.metadata.name === r.metadata.name));
  const all = [...existing.map((e) => clone(e)), ...missing];
  aggregateAll(all);
  for (const r of missing) store.create(all.find((x) => x.metadata.name === r.metadata.name)!);
  for (const b of bootstrapClusterRoleBindings()) if (!store.get(AV, 'ClusterRoleBinding', undefined, b.metadata.name!)) store.create(b);
}
