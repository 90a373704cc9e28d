/**
 * TokenReview, SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview and impersonation
 * through @kubernetes/client-node 1.4.0 (and raw HTTP where the wire matters), as the product's shared
 * mode uses them from its ServiceAccount.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import { cleanupTempDirs, raw } from './test-support.ts';

function client(sim: SimHandle, token: string, impersonate?: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(sim.kubeconfigFor(token));
  if (impersonate) kc.users[0] = { ...kc.users[0], impersonateUser: impersonate };
  return kc;
}

interface ApiFailure {
  code?: number;
  body?: string;
}

/** The client's model instances as plain JSON (what the server sent). */
function plain(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function failure(e: unknown): { code?: number; status: { message?: string; reason?: string; details?: unknown } } {
  const f = e as ApiFailure;
  return { code: f.code, status: JSON.parse(String(f.body ?? '{}')) as { message?: string; reason?: string } };
}

describe('access and token reviews', () => {
  let sim: SimHandle;
  let authn: k8s.AuthenticationV1Api;
  let authz: k8s.AuthorizationV1Api;

  before(async () => {
    sim = await startSim({ controllers: false, identities: true, staticTokens: [{ token: 'dana-token', user: 'dana', uid: 'd-1', groups: ['team-x'] }] });
    const product = client(sim, sim.tokens.workloadMap);
    authn = product.makeApiClient(k8s.AuthenticationV1Api);
    authz = product.makeApiClient(k8s.AuthorizationV1Api);
  });

  after(async () => {
    await sim?.stop();
    cleanupTempDirs();
  });

  it('TokenReview: a static token is its user (with system:authenticated) for the API server\'s audience', async () => {
    const r = await authn.createTokenReview({ body: { spec: { token: sim.tokens.alice } } });
    assert.equal(r.status?.authenticated, true);
    assert.deepEqual(plain(r.status?.user), { username: 'alice', uid: 'demo-alice', groups: ['ml-engineers', 'system:authenticated'] });
    assert.deepEqual(plain(r.status?.audiences), ['https://kubernetes.default.svc.cluster.local']);
    const dana = await authn.createTokenReview({ body: { spec: { token: 'dana-token' } } });
    assert.deepEqual(plain(dana.status?.user?.groups), ['team-x', 'system:authenticated']);
    // Static tokens are for the API server only.
    const elsewhere = await authn.createTokenReview({ body: { spec: { token: sim.tokens.alice, audiences: ['vault'] } } });
    assert.notEqual(elsewhere.status?.authenticated, true);
  });

  it('TokenReview: an unknown token is not authenticated, with the bearer authenticator\'s error', async () => {
    const r = await authn.createTokenReview({ body: { spec: { token: 'no-such-token' } } });
    assert.notEqual(r.status?.authenticated, true);
    assert.equal(r.status?.error, 'invalid bearer token');
    assert.deepEqual(plain(r.status?.user), {});
    await assert.rejects(authn.createTokenReview({ body: { spec: { token: '' } } }), (e: unknown) => failure(e).code === 400 && failure(e).status.message === 'token is required for TokenReview in authentication');
  });

  it('TokenReview: a service-account token is valid for the audiences it was requested for', async () => {
    const token = sim.serviceAccountToken('workload-map', 'workload-map', { audiences: ['vault'], expirationSeconds: 600 });
    const ok = await authn.createTokenReview({ body: { spec: { token, audiences: ['vault', 'other'] } } });
    assert.equal(ok.status?.authenticated, true);
    assert.equal(ok.status?.user?.username, 'system:serviceaccount:workload-map:workload-map');
    assert.deepEqual(plain(ok.status?.audiences), ['vault']);
    const api = await authn.createTokenReview({ body: { spec: { token } } });
    assert.notEqual(api.status?.authenticated, true);
    assert.equal(api.status?.error, 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]');
    // …and such a token cannot call the API.
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces', { token })).status, 401);
  });

  it('creating a TokenReview or SubjectAccessReview needs RBAC permission for it', async () => {
    const bob = client(sim, sim.tokens.bob);
    await assert.rejects(bob.makeApiClient(k8s.AuthenticationV1Api).createTokenReview({ body: { spec: { token: sim.tokens.alice } } }), (e: unknown) => {
      const f = failure(e);
      return f.code === 403 && f.status.message === 'tokenreviews.authentication.k8s.io is forbidden: User "bob" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope';
    });
    await assert.rejects(bob.makeApiClient(k8s.AuthorizationV1Api).createSubjectAccessReview({ body: { spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } } } }), (e: unknown) => failure(e).code === 403);
  });

  it('SubjectAccessReview: RBAC\'s decision and reason for the user and groups described', async () => {
    const allowed = await authz.createSubjectAccessReview({ body: { spec: { user: 'alice', groups: ['system:authenticated'], resourceAttributes: { namespace: 'team-llm', verb: 'create', group: 'apps', resource: 'deployments' } } } });
    assert.deepEqual(plain(allowed.status), { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-edit/team-llm" of ClusterRole "edit" to User "alice"' });
    const carol = await authz.createSubjectAccessReview({ body: { spec: { user: 'carol', resourceAttributes: { verb: 'list', resource: 'pods' } } } });
    assert.equal(carol.status?.reason, 'RBAC: allowed by ClusterRoleBinding "carol-view" of ClusterRole "view" to User "carol"');
    const denied = await authz.createSubjectAccessReview({ body: { spec: { user: 'bob', resourceAttributes: { namespace: 'team-vision', verb: 'delete', resource: 'pods', name: 'p' } } } });
    assert.deepEqual(plain(denied.status), { allowed: false });
    // Exactly the groups given: without system:authenticated there is no discovery either.
    const bare = await authz.createSubjectAccessReview({ body: { spec: { user: 'x', nonResourceAttributes: { path: '/apis', verb: 'get' } } } });
    assert.equal(bare.status?.allowed, false);
    const authed = await authz.createSubjectAccessReview({ body: { spec: { user: 'x', groups: ['system:authenticated'], nonResourceAttributes: { path: '/apis', verb: 'get' } } } });
    assert.equal(authed.status?.reason, 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"');
    // system:masters is allowed before RBAC is asked, with no reason.
    const masters = await authz.createSubjectAccessReview({ body: { spec: { user: 'root', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes', name: 'n1' } } } });
    assert.deepEqual(plain(masters.status), { allowed: true });
    await assert.rejects(authz.createSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } } }), (e: unknown) => {
      const f = failure(e);
      return f.code === 422 && f.status.message === 'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified';
    });
  });

  it('LocalSubjectAccessReview answers within its namespace only', async () => {
    const adminAuthz = (() => {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(sim.kubeconfigPath);
      return kc.makeApiClient(k8s.AuthorizationV1Api);
    })();
    const r = await adminAuthz.createNamespacedLocalSubjectAccessReview({ namespace: 'team-llm', body: { metadata: { namespace: 'team-llm' }, spec: { user: 'alice', resourceAttributes: { namespace: 'team-llm', verb: 'delete', resource: 'pods' } } } });
    assert.equal(r.status?.allowed, true);
    await assert.rejects(adminAuthz.createNamespacedLocalSubjectAccessReview({ namespace: 'team-llm', body: { spec: { user: 'alice', resourceAttributes: { namespace: 'team-vision', verb: 'delete', resource: 'pods' } } } }), (e: unknown) => {
      const f = failure(e);
      return f.code === 422 && f.status.message === 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "team-vision": must match metadata.namespace';
    });
  });

  it('SelfSubjectAccessReview and SelfSubjectReview as an impersonated user', async () => {
    const asAlice = client(sim, sim.tokens.workloadMap, 'alice');
    const ssar = await asAlice.makeApiClient(k8s.AuthorizationV1Api).createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { namespace: 'team-llm', verb: 'patch', group: 'apps', resource: 'deployments', name: 'web' } } } });
    assert.equal(ssar.status?.allowed, true);
    const who = await asAlice.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    assert.deepEqual(plain(who.status?.userInfo), { username: 'alice', groups: ['system:authenticated'] });
    const asSa = client(sim, sim.tokens.workloadMap, 'system:serviceaccount:team-llm:runner');
    const saWho = await asSa.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    assert.deepEqual(plain(saWho.status?.userInfo?.groups), ['system:serviceaccounts', 'system:serviceaccounts:team-llm', 'system:authenticated']);
  });

  it('impersonation on the wire: every header is checked, groups need a user, uids and extras need their own verbs', async () => {
    const asBob = await raw(sim, 'GET', '/api/v1/namespaces/team-llm/pods', { token: sim.tokens.bob, headers: { 'Impersonate-User': 'alice' } });
    assert.equal(asBob.status, 403);
    assert.deepEqual(JSON.parse(asBob.body), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: 'alice', group: '', kind: 'users' },
    });
    const groupsOnly = await raw(sim, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-Group': 'g' } });
    assert.equal(groupsOnly.status, 500);
    assert.match(String(groupsOnly.headers['content-type']), /^text\/plain/);
    assert.equal(groupsOnly.body, 'Internal Server Error: "/api/v1/namespaces": requested [{Group  g    }] without impersonating a user\n');
    // The product's account may impersonate users and groups, not uids or extras.
    const uid = await raw(sim, 'GET', '/api/v1/namespaces/team-llm/pods', { token: sim.tokens.workloadMap, headers: { 'Impersonate-User': 'alice', 'Impersonate-Uid': 'u-1' } });
    assert.equal(JSON.parse(uid.body).message, 'uids.authentication.k8s.io "u-1" is forbidden: User "system:serviceaccount:workload-map:workload-map" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
    const extra = await raw(sim, 'GET', '/api/v1/namespaces/team-llm/pods', { token: sim.tokens.workloadMap, headers: { 'Impersonate-User': 'alice', 'Impersonate-Extra-Scopes': 'view' } });
    assert.equal(JSON.parse(extra.body).message, 'userextras.authentication.k8s.io "view" is forbidden: User "system:serviceaccount:workload-map:workload-map" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    // The admin may impersonate all of it; the request then runs as that user alone.
    const full = await raw(sim, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: {}, headers: { 'Impersonate-User': 'eve', 'Impersonate-Group': ['g1', 'g2'], 'Impersonate-Uid': 'u-9', 'Impersonate-Extra-Scopes': 'a' } });
    assert.equal(full.status, 201);
    assert.deepEqual((JSON.parse(full.body) as { status: unknown }).status, { userInfo: { username: 'eve', uid: 'u-9', groups: ['g1', 'g2', 'system:authenticated'], extra: { scopes: ['a'] } } });
    const eveLists = await raw(sim, 'GET', '/api/v1/pods', { headers: { 'Impersonate-User': 'eve' } });
    assert.equal(JSON.parse(eveLists.body).message, 'pods is forbidden: User "eve" cannot list resource "pods" in API group "" at the cluster scope');
  });

  it('reviews and token requests are discoverable and create-only', async () => {
    const authnResources = JSON.parse((await raw(sim, 'GET', '/apis/authentication.k8s.io/v1')).body) as { resources: Array<{ name: string; verbs: string[]; namespaced: boolean }> };
    assert.deepEqual(authnResources.resources.map((r) => [r.name, r.verbs, r.namespaced]), [['selfsubjectreviews', ['create'], false], ['tokenreviews', ['create'], false]]);
    const authzResources = JSON.parse((await raw(sim, 'GET', '/apis/authorization.k8s.io/v1')).body) as { resources: Array<{ name: string; namespaced: boolean }> };
    assert.deepEqual(authzResources.resources.map((r) => r.name).sort(), ['localsubjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'subjectaccessreviews']);
    const core = JSON.parse((await raw(sim, 'GET', '/api/v1')).body) as { resources: Array<Record<string, unknown>> };
    assert.deepEqual(core.resources.find((r) => r.name === 'serviceaccounts/token'), { name: 'serviceaccounts/token', singularName: '', namespaced: true, kind: 'TokenRequest', verbs: ['create'], group: 'authentication.k8s.io', version: 'v1' });
    assert.equal((await raw(sim, 'GET', '/apis/authorization.k8s.io/v1/subjectaccessreviews')).status, 405);
  });
});
