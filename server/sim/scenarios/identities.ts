/**
 * Identities and RBAC for shared-mode demos and tests, as a cluster admin would set them up:
 * - the product's own ServiceAccount `workload-map/workload-map`, bound to a read-only ClusterRole
 *   (`workload-map-reader`: get/list/watch on what the dashboard watches, GPU metrics through the pod and
 *   service proxies, TokenReviews and SubjectAccessReviews to check its users, and `impersonate` on users,
 *   groups and service accounts, so it can act as the signed-in user from its own account);
 * - people with static tokens (`--token-auth-file`): alice may edit in team-llm, bob may view team-vision
 *   only, carol may view the whole cluster and write nothing.
 * Tokens are random per simulator; the service account's is a bound token valid for a year.
 */

import { randomBytes } from 'node:crypto';
import type { KubeObject, ObjectStore } from '../store/object-store.ts';

export const PRODUCT_NAMESPACE = 'workload-map';
export const PRODUCT_SERVICE_ACCOUNT = 'workload-map';
export const READER_CLUSTER_ROLE = 'workload-map-reader';

export type DemoUser = 'alice' | 'bob' | 'carol';

export interface DemoPerson {
  user: DemoUser;
  groups: string[];
  /** What the person may do, for people reading a demo. */
  access: string;
}

export const DEMO_PEOPLE: readonly DemoPerson[] = [
  { user: 'alice', groups: ['ml-engineers'], access: 'edit in team-llm' },
  { user: 'bob', groups: ['vision'], access: 'view in team-vision' },
  { user: 'carol', groups: ['sre'], access: 'view everywhere, no writes' },
];

export interface IdentityTokens {
  /** Static tokens of the people, for the API server's token authenticator. */
  people: Array<{ token: string; user: DemoUser; uid: string; groups: string[] }>;
  /** A bound token of the product's service account. */
  serviceAccount: string;
}

const RBAC_AV = 'rbac.authorization.k8s.io/v1';
const RBAC = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];

/** Built-in groups a dashboard reads (besides the core group and every CRD group). */
const BUILTIN_GROUPS = ['apps', 'batch', 'autoscaling', 'policy', 'events.k8s.io', 'discovery.k8s.io', 'scheduling.k8s.io', 'networking.k8s.io', 'apiextensions.k8s.io'];

function ensure(store: ObjectStore, o: KubeObject): KubeObject {
  return store.get(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name!) ?? store.create(o);
}

function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };
}

export function readerClusterRole(crdGroups: string[]): KubeObject {
  const groups = [...new Set([...BUILTIN_GROUPS, ...crdGroups])].sort();
  return {
    apiVersion: RBAC_AV,
    kind: 'ClusterRole',
    metadata: { name: READER_CLUSTER_ROLE, labels: { 'app.kubernetes.io/name': 'workload-map' } },
    rules: [
      { apiGroups: [''], resources: ['pods', 'pods/log', 'pods/status', 'nodes', 'namespaces', 'events', 'services', 'endpoints', 'persistentvolumeclaims', 'resourcequotas'], verbs: READ },
      { apiGroups: [''], resources: ['pods/proxy', 'services/proxy'], verbs: ['get'] },
      { apiGroups: groups, resources: ['*'], verbs: READ },
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      { apiGroups: [''], resources: ['users', 'groups', 'serviceaccounts'], verbs: ['impersonate'] },
    ],
  };
}

/**
 * What the frameworks' operators install with their CRDs (Kubeflow's training operator, KubeRay and
 * JobSet ship such roles): ClusterRoles labelled to aggregate into the default view and edit/admin
 * roles, so that a namespace's viewers and editors may read and change its JobSets, PyTorchJobs, …
 * as they may its Deployments. Without them `edit` says nothing of custom resources.
 */
export function frameworkAggregateRoles(crdGroups: string[]): KubeObject[] {
  const groups = [...new Set(crdGroups)].sort();
  const role = (name: string, labels: Record<string, string>, verbs: string[]): KubeObject => ({
    apiVersion: RBAC_AV,
    kind: 'ClusterRole',
    metadata: { name, labels: { 'app.kubernetes.io/part-of': 'ai-frameworks', ...labels } },
    rules: [{ apiGroups: groups, resources: ['*'], verbs }],
  });
  return [
    role('ai-frameworks-view', { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, READ),
    role('ai-frameworks-edit', { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }, ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']),
  ];
}

function binding(kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, namespace: string | undefined, role: string, subject: Record<string, string>): KubeObject {
  return {
    apiVersion: RBAC_AV,
    kind,
    metadata: namespace ? { name, namespace } : { name },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: [subject],
  };
}

const user = (name: string) => ({ apiGroup: RBAC, kind: 'User', name });

/**
 * Creates what is missing (objects already there, e.g. from a state file, are kept) and returns the
 * tokens; `issue` makes a bound token for a service account.
 */
export function installIdentities(store: ObjectStore, o: { crdGroups: string[]; issue: (sa: KubeObject) => string }): IdentityTokens {
  for (const ns of [PRODUCT_NAMESPACE, 'team-llm', 'team-vision']) ensure(store, namespace(ns));
  const sa = ensure(store, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: PRODUCT_SERVICE_ACCOUNT, namespace: PRODUCT_NAMESPACE, labels: { 'app.kubernetes.io/name': 'workload-map' } } });
  ensure(store, readerClusterRole(o.crdGroups));
  for (const r of frameworkAggregateRoles(o.crdGroups)) ensure(store, r);
  ensure(store, binding('ClusterRoleBinding', READER_CLUSTER_ROLE, undefined, READER_CLUSTER_ROLE, { kind: 'ServiceAccount', name: PRODUCT_SERVICE_ACCOUNT, namespace: PRODUCT_NAMESPACE }));
  ensure(store, binding('RoleBinding', 'alice-edit', 'team-llm', 'edit', user('alice')));
  ensure(store, binding('RoleBinding', 'bob-view', 'team-vision', 'view', user('bob')));
  ensure(store, binding('ClusterRoleBinding', 'carol-view', undefined, 'view', user('carol')));
  const people = DEMO_PEOPLE.map((p) => ({ token: randomBytes(24).toString('hex'), user: p.user, uid: `demo-${p.user}`, groups: p.groups }));
  return { people, serviceAccount: o.issue(sa) };
}
