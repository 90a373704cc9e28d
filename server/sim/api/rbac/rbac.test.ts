/** The RBAC evaluator (pure): rule matching, bindings, reasons, rules listing, aggregation, the bootstrap policy. */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../store/object-store.ts';
import type { UserInfo } from '../authn/user.ts';
import { aggregateAll, aggregatedRules } from './aggregation.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy.ts';
import type { RbacObjects } from './policy.ts';
import { RbacPolicy } from './policy.ts';
import type { PolicyRule, RequestAttributes } from './rules.ts';
import { compileRule, ruleAllows } from './rules.ts';

const AV = 'rbac.authorization.k8s.io/v1';

function clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>): KubeObject {
  return { apiVersion: AV, kind: 'ClusterRole', metadata: { name, ...(labels ? { labels } : {}) }, rules };
}

function role(namespace: string, name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: AV, kind: 'Role', metadata: { name, namespace }, rules };
}

function binding(kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, ref: { kind: string; name: string }, subjects: Array<Record<string, string>>, namespace?: string): KubeObject {
  return { apiVersion: AV, kind, metadata: namespace ? { name, namespace } : { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...ref }, subjects };
}

function policy(o: Partial<RbacObjects>): RbacPolicy {
  return new RbacPolicy({ clusterRoles: o.clusterRoles ?? [], roles: o.roles ?? [], clusterRoleBindings: o.clusterRoleBindings ?? [], roleBindings: o.roleBindings ?? [] });
}

const res = (verb: string, group: string, resource: string, extra: Partial<RequestAttributes> = {}): RequestAttributes => ({ verb, resourceRequest: true, group, resource, ...extra });
const path = (verb: string, p: string): RequestAttributes => ({ verb, resourceRequest: false, path: p });
const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] });

describe('RBAC rule matching', () => {
  const allows = (rule: PolicyRule, a: RequestAttributes) => ruleAllows(compileRule(rule), a);

  it('matches verbs, groups and resources exactly or by *', () => {
    const r: PolicyRule = { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] };
    assert.equal(allows(r, res('get', 'apps', 'deployments')), true);
    assert.equal(allows(r, res('delete', 'apps', 'deployments')), false);
    assert.equal(allows(r, res('get', '', 'deployments')), false);
    assert.equal(allows(r, res('get', 'apps', 'statefulsets')), false);
    assert.equal(allows({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, res('escalate', 'x.io', 'things', { subresource: 'status' })), true);
  });

  it('keeps subresources apart from their resource, except for * and */sub', () => {
    assert.equal(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods', { subresource: 'log' })), false);
    assert.equal(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods', { subresource: 'log' })), true);
    assert.equal(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods')), false);
    assert.equal(allows({ verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] }, res('update', 'apps', 'deployments', { subresource: 'scale' })), true);
    assert.equal(allows({ verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] }, res('update', 'apps', 'deployments')), false);
    assert.equal(allows({ verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] }, res('update', 'apps', 'deployments', { subresource: 'status' })), false);
  });

  it('resourceNames restrict by name: a create or an unfiltered list never matches them', () => {
    const r: PolicyRule = { verbs: ['get', 'list', 'create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] };
    assert.equal(allows(r, res('get', '', 'configmaps', { name: 'settings' })), true);
    assert.equal(allows(r, res('get', '', 'configmaps', { name: 'other' })), false);
    assert.equal(allows(r, res('list', '', 'configmaps')), false);
    assert.equal(allows(r, res('create', '', 'configmaps')), false);
  });

  it('nonResourceURLs match exactly, by a trailing * prefix, or all with *', () => {
    const r: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    assert.equal(allows(r, path('get', '/healthz')), true);
    assert.equal(allows(r, path('get', '/healthz/etcd')), false);
    assert.equal(allows(r, path('get', '/apis/apps/v1')), true);
    assert.equal(allows(r, path('get', '/apis')), false);
    assert.equal(allows(r, path('post', '/healthz')), false);
    assert.equal(allows({ verbs: ['*'], nonResourceURLs: ['*'] }, path('delete', '/anything')), true);
    // A resource rule never allows a path, nor a path rule a resource.
    assert.equal(allows({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, path('get', '/api')), false);
    assert.equal(allows({ verbs: ['*'], nonResourceURLs: ['*'] }, res('get', '', 'pods')), false);
  });
});

describe('RBAC bindings', () => {
  const reader = clusterRole('pod-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]);

  it('a RoleBinding grants a ClusterRole in its namespace only; a ClusterRoleBinding everywhere', () => {
    const p = policy({
      clusterRoles: [reader],
      roleBindings: [binding('RoleBinding', 'read', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'User', name: 'alice' }], 'team-a')],
      clusterRoleBindings: [binding('ClusterRoleBinding', 'read-all', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', name: 'sre' }])],
    });
    assert.deepEqual(p.authorize(user('alice'), res('list', '', 'pods', { namespace: 'team-a' })), { allowed: true, reason: 'RBAC: allowed by RoleBinding "read/team-a" of ClusterRole "pod-reader" to User "alice"' });
    assert.deepEqual(p.authorize(user('alice'), res('list', '', 'pods', { namespace: 'team-b' })), { allowed: false, reason: '' });
    assert.equal(p.authorize(user('alice'), res('list', '', 'pods')).allowed, false, 'cluster-wide list');
    assert.deepEqual(p.authorize(user('carol', 'sre'), res('list', '', 'pods')), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "read-all" of ClusterRole "pod-reader" to Group "sre"' });
    assert.equal(p.authorize(user('carol', 'sre'), res('delete', '', 'pods', { namespace: 'team-a', name: 'p' })).allowed, false);
  });

  it('a Role binds only through a RoleBinding of its own namespace', () => {
    const p = policy({
      roles: [role('team-a', 'cm-writer', [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }])],
      roleBindings: [
        binding('RoleBinding', 'w', { kind: 'Role', name: 'cm-writer' }, [{ kind: 'User', name: 'alice' }], 'team-a'),
        binding('RoleBinding', 'w', { kind: 'Role', name: 'cm-writer' }, [{ kind: 'User', name: 'alice' }], 'team-b'),
      ],
    });
    assert.equal(p.authorize(user('alice'), res('create', '', 'configmaps', { namespace: 'team-a' })).allowed, true);
    assert.deepEqual(p.authorize(user('alice'), res('create', '', 'configmaps', { namespace: 'team-b' })), { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "cm-writer" not found' });
  });

  it('service accounts: by subject (namespace defaulting to the binding\'s) and by their groups', () => {
    const sa = (ns: string, name: string): UserInfo => ({ username: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] });
    const p = policy({
      clusterRoles: [reader],
      roleBindings: [binding('RoleBinding', 'sa', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'ServiceAccount', name: 'bot' }], 'ci')],
      clusterRoleBindings: [
        binding('ClusterRoleBinding', 'no-namespace', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'ServiceAccount', name: 'bot' }]),
        binding('ClusterRoleBinding', 'all-in-ml', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', name: 'system:serviceaccounts:ml' }]),
      ],
    });
    assert.deepEqual(p.authorize(sa('ci', 'bot'), res('get', '', 'pods', { namespace: 'ci', name: 'x' })), { allowed: true, reason: 'RBAC: allowed by RoleBinding "sa/ci" of ClusterRole "pod-reader" to ServiceAccount "bot/ci"' });
    assert.equal(p.authorize(sa('other', 'bot'), res('get', '', 'pods', { namespace: 'ci', name: 'x' })).allowed, false);
    // A ServiceAccount subject of a ClusterRoleBinding without a namespace applies to nobody.
    assert.equal(p.authorize(sa('ci', 'bot'), res('get', '', 'pods', { namespace: 'elsewhere', name: 'x' })).allowed, false);
    assert.equal(p.authorize(sa('ml', 'trainer'), res('list', '', 'pods')).reason, 'RBAC: allowed by ClusterRoleBinding "all-in-ml" of ClusterRole "pod-reader" to Group "system:serviceaccounts:ml"');
    // The ServiceAccount subject is the user name: a static-token user of that name is the same subject.
    assert.equal(p.authorize(user('system:serviceaccount:ci:bot'), res('list', '', 'pods', { namespace: 'ci' })).allowed, true);
  });

  it('names the first applying subject of a binding, and bindings in name order', () => {
    const p = policy({
      clusterRoles: [reader],
      clusterRoleBindings: [
        binding('ClusterRoleBinding', 'zz', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'User', name: 'alice' }]),
        binding('ClusterRoleBinding', 'aa', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', name: 'nope' }, { kind: 'Group', name: 'devs' }, { kind: 'User', name: 'alice' }]),
      ],
    });
    assert.equal(p.authorize(user('alice', 'devs'), res('list', '', 'pods')).reason, 'RBAC: allowed by ClusterRoleBinding "aa" of ClusterRole "pod-reader" to Group "devs"');
  });

  it('missing roles are resolution errors in the denial reason, aggregated like Go does', () => {
    const p = policy({
      clusterRoleBindings: [
        binding('ClusterRoleBinding', 'a', { kind: 'ClusterRole', name: 'gone' }, [{ kind: 'User', name: 'alice' }]),
        binding('ClusterRoleBinding', 'b', { kind: 'ClusterRole', name: 'also-gone' }, [{ kind: 'User', name: 'alice' }]),
      ],
    });
    assert.equal(p.authorize(user('alice'), res('get', '', 'pods', { namespace: 'x', name: 'p' })).reason, 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, clusterrole.rbac.authorization.k8s.io "also-gone" not found]');
    assert.deepEqual(p.rulesFor(user('alice'), 'x').errors.length, 2);
  });

  it('lists the rules of the cluster and of the namespace for a rules review', () => {
    const p = policy({
      clusterRoles: [reader, clusterRole('cm', [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }])],
      clusterRoleBindings: [binding('ClusterRoleBinding', 'r', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', name: 'system:authenticated' }])],
      roleBindings: [binding('RoleBinding', 'cm', { kind: 'ClusterRole', name: 'cm' }, [{ kind: 'User', name: 'alice' }], 'team-a')],
    });
    assert.deepEqual(p.rulesFor(user('alice'), 'team-a').rules.map((r) => r.resources), [['pods'], ['configmaps']]);
    assert.deepEqual(p.rulesFor(user('alice'), 'team-b').rules.map((r) => r.resources), [['pods']]);
  });
});

describe('ClusterRole aggregation and the bootstrap policy', () => {
  const roles = bootstrapClusterRoles();
  aggregateAll(roles);
  const byName = (n: string) => roles.find((r) => r.metadata.name === n)!;
  const p = policy({ clusterRoles: roles, clusterRoleBindings: bootstrapClusterRoleBindings() });
  const edit = policy({ clusterRoles: roles, roleBindings: [binding('RoleBinding', 'e', { kind: 'ClusterRole', name: 'edit' }, [{ kind: 'User', name: 'alice' }], 'ns')] });
  const view = policy({ clusterRoles: roles, roleBindings: [binding('RoleBinding', 'v', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'User', name: 'bob' }], 'ns')] });
  const admin = policy({ clusterRoles: roles, roleBindings: [binding('RoleBinding', 'a', { kind: 'ClusterRole', name: 'admin' }, [{ kind: 'User', name: 'dana' }], 'ns')] });

  it('view is inside edit, edit inside admin; only admin manages RBAC', () => {
    const rulesOf = (n: string) => byName(n).rules as unknown[];
    for (const r of rulesOf('view')) assert.ok(rulesOf('edit').some((x) => JSON.stringify(x) === JSON.stringify(r)));
    for (const r of rulesOf('edit')) assert.ok(rulesOf('admin').some((x) => JSON.stringify(x) === JSON.stringify(r)));
    const ns = { namespace: 'ns' };
    assert.equal(view.authorize(user('bob'), res('list', 'apps', 'deployments', ns)).allowed, true);
    assert.equal(view.authorize(user('bob'), res('get', '', 'pods', { ...ns, subresource: 'log', name: 'p' })).allowed, true);
    assert.equal(view.authorize(user('bob'), res('get', '', 'secrets', { ...ns, name: 's' })).allowed, false, 'view reads no secrets');
    assert.equal(view.authorize(user('bob'), res('patch', 'apps', 'deployments', { ...ns, name: 'd' })).allowed, false);
    assert.equal(edit.authorize(user('alice'), res('patch', 'apps', 'deployments', { ...ns, name: 'd' })).allowed, true);
    assert.equal(edit.authorize(user('alice'), res('update', 'apps', 'deployments', { ...ns, subresource: 'scale', name: 'd' })).allowed, true);
    assert.equal(edit.authorize(user('alice'), res('create', '', 'serviceaccounts', { ...ns, subresource: 'token', name: 'sa' })).allowed, true);
    assert.equal(edit.authorize(user('alice'), res('create', 'rbac.authorization.k8s.io', 'rolebindings', ns)).allowed, false);
    assert.equal(admin.authorize(user('dana'), res('create', 'rbac.authorization.k8s.io', 'rolebindings', ns)).allowed, true);
    assert.equal(admin.authorize(user('dana'), res('create', 'authorization.k8s.io', 'localsubjectaccessreviews', ns)).allowed, true);
  });

  it('aggregates what a new labelled ClusterRole brings, once, in name order', () => {
    const extra = clusterRole('kubeflow-view', [{ verbs: ['get'], apiGroups: ['kubeflow.org'], resources: ['pytorchjobs'] }], { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' });
    const dup = clusterRole('a-dup', [{ verbs: ['get'], apiGroups: ['kubeflow.org'], resources: ['pytorchjobs'] }], { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' });
    const rules = aggregatedRules(byName('view'), [...roles, extra, dup])!;
    assert.equal(rules.filter((r) => JSON.stringify(r).includes('pytorchjobs')).length, 1);
    assert.equal(aggregatedRules(byName('system:basic-user'), roles), undefined);
    const withExtra = [...roles.map((r) => structuredClone(r)), extra];
    aggregateAll(withExtra);
    const admins = withExtra.find((r) => r.metadata.name === 'admin')!.rules as unknown[];
    assert.ok(admins.some((r) => JSON.stringify(r).includes('pytorchjobs')), 'reaches admin through edit');
  });

  it('every authenticated user may review itself, discover and read the version; nobody else may read resources', () => {
    const u = user('nobody');
    assert.equal(p.authorize(u, res('create', 'authorization.k8s.io', 'selfsubjectaccessreviews')).allowed, true);
    assert.equal(p.authorize(u, res('create', 'authorization.k8s.io', 'selfsubjectrulesreviews')).allowed, true);
    assert.equal(p.authorize(u, res('create', 'authentication.k8s.io', 'selfsubjectreviews')).allowed, true);
    assert.equal(p.authorize(u, res('create', 'authentication.k8s.io', 'tokenreviews')).allowed, false);
    assert.equal(p.authorize(u, res('create', 'authorization.k8s.io', 'subjectaccessreviews')).allowed, false);
    for (const x of ['/api', '/api/v1', '/apis', '/apis/apps/v1', '/openapi/v3', '/version', '/healthz', '/readyz', '/livez']) assert.equal(p.authorize(u, path('get', x)).allowed, true, x);
    assert.equal(p.authorize(u, path('get', '/metrics')).allowed, false);
    assert.equal(p.authorize(u, res('list', '', 'pods')).allowed, false);
    // Unauthenticated requests may read the version and health only.
    assert.equal(p.authorize({ username: 'system:anonymous', groups: ['system:unauthenticated'] }, path('get', '/version')).allowed, true);
    assert.equal(p.authorize({ username: 'system:anonymous', groups: ['system:unauthenticated'] }, path('get', '/api')).allowed, false);
    // cluster-admin through system:masters.
    assert.equal(p.authorize(user('root', 'system:masters'), res('delete', 'x.io', 'y', { namespace: 'n', name: 'z' })).reason, 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"');
  });
});
