/** The authorizer over a store: privileged group, RBAC from stored objects, rebuilt only when RBAC objects change. */

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MemoryStore } from '../store/memory-store.ts';
import { ruleIdentity } from './authn/authenticator.ts';
import { Authorizer } from './authorizer.ts';
import { installBootstrapPolicy } from './rbac/bootstrap-policy.ts';

const AV = 'rbac.authorization.k8s.io/v1';
const podsIn = (namespace: string) => ({ verb: 'list', resourceRequest: true, group: '', resource: 'pods', namespace });

it('rebuilds its policy after RBAC changes only: pod churn does not touch it', () => {
  const store = new MemoryStore();
  installBootstrapPolicy(store);
  const authz = new Authorizer(store);
  const alice = { user: { username: 'alice', groups: ['system:authenticated'] } };
  const first = authz.rbac();
  store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  for (let i = 0; i < 50; i++) store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'ns' }, spec: {} });
  assert.equal(authz.rbac(), first, 'the same policy object');
  assert.equal(authz.authorize(alice, podsIn('ns')).allowed, false);
  store.create({ apiVersion: AV, kind: 'RoleBinding', metadata: { name: 'v', namespace: 'ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }] });
  assert.notEqual(authz.rbac(), first);
  assert.deepEqual(authz.authorize(alice, podsIn('ns')), { allowed: true, reason: 'RBAC: allowed by RoleBinding "v/ns" of ClusterRole "view" to User "alice"' });
  store.delete(AV, 'RoleBinding', 'ns', 'v');
  assert.equal(authz.authorize(alice, podsIn('ns')).allowed, false);
  authz.stop();
});

it('system:masters is allowed without asking RBAC; an access rule decides for its own token', () => {
  const store = new MemoryStore();
  const authz = new Authorizer(store);
  assert.deepEqual(authz.authorize({ user: { username: 'root', groups: ['system:masters'] } }, podsIn('x')), { allowed: true, reason: '' });
  assert.equal(authz.authorize({ user: { username: 'root', groups: [] } }, podsIn('x')).allowed, false, 'no bootstrap policy in this store');
  const reader = ruleIdentity({ token: 't', user: 'reader', readOnly: true });
  assert.equal(authz.authorize(reader, podsIn('x')).allowed, true);
  // Read-only or not, every token may review itself (kubectl auth can-i / whoami), as system:basic-user grants.
  assert.equal(authz.check(reader, { verb: 'create', resourceRequest: true, group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' }), undefined);
  assert.ok(authz.check(reader, { verb: 'create', resourceRequest: true, group: 'authorization.k8s.io', resource: 'subjectaccessreviews' }));
  assert.equal(authz.check(reader, { verb: 'delete', resourceRequest: true, group: '', resource: 'pods', namespace: 'x', name: 'p' })?.message, 'pods "p" is forbidden: User "reader" cannot delete resource "pods" in API group "" in the namespace "x"');
  assert.equal(authz.check({ user: { username: 'bob', groups: ['system:authenticated'] } }, { verb: 'get', resourceRequest: false, path: '/metrics' })?.message, 'forbidden: User "bob" cannot get path "/metrics"');
  authz.stop();
});
