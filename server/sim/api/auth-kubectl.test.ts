/**
 * Authentication and authorization with the real kubectl (1.32): `auth can-i` (exit codes, `--as`,
 * `-n`, `--list`), `auth whoami`, service-account tokens from `kubectl create token` and from token
 * Secrets, impersonation allowed and refused, RBAC changes taking effect. The demo identities are used:
 * alice (edit in team-llm), bob (view in team-vision), carol (view everywhere), the workload-map
 * ServiceAccount (read-only, may impersonate).
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSim } from '../index.ts';
import type { SimHandle } from '../index.ts';
import { Kubectl, cleanupTempDirs, eventually, kubectlSkip } from './test-support.ts';

describe('kubectl auth against the simulated cluster', { skip: kubectlSkip }, () => {
  let sim: SimHandle;
  let admin: Kubectl;
  let alice: Kubectl;
  let bob: Kubectl;
  let carol: Kubectl;
  let product: Kubectl;

  before(async () => {
    sim = await startSim({ controllers: false, identities: true });
    admin = new Kubectl(sim.kubeconfigPath);
    alice = new Kubectl(sim.kubeconfigFor(sim.tokens.alice));
    bob = new Kubectl(sim.kubeconfigFor(sim.tokens.bob));
    carol = new Kubectl(sim.kubeconfigFor(sim.tokens.carol));
    product = new Kubectl(sim.kubeconfigFor(sim.tokens.workloadMap));
  });

  after(async () => {
    await sim?.stop();
    cleanupTempDirs();
  });

  it('auth can-i answers yes (exit 0) and no (exit 1) from the RoleBindings and ClusterRoleBindings', async () => {
    assert.deepEqual(await alice.run(['auth', 'can-i', 'create', 'deployments', '-n', 'team-llm']), { code: 0, stdout: 'yes\n', stderr: '' });
    assert.deepEqual(await alice.run(['auth', 'can-i', 'create', 'deployments', '-n', 'team-vision']), { code: 1, stdout: 'no\n', stderr: '' });
    assert.equal((await alice.run(['auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'team-llm'])).stdout, 'yes\n');
    assert.equal((await carol.run(['auth', 'can-i', 'list', 'pods', '-A'])).code, 0);
    assert.equal((await carol.run(['auth', 'can-i', 'delete', 'pods', '-n', 'team-llm'])).code, 1);
    assert.equal((await bob.run(['auth', 'can-i', 'list', 'pods', '-n', 'team-llm'])).code, 1);
    assert.equal((await bob.run(['auth', 'can-i', 'get', 'secrets', '-n', 'team-vision'])).code, 1, 'view reads no secrets');
    assert.equal((await admin.run(['auth', 'can-i', '*', '*'])).stdout, 'yes\n');
  });

  it('auth can-i --as asks for another user, in the namespace of -n', async () => {
    assert.equal((await admin.run(['auth', 'can-i', 'list', 'pods', '--as', 'bob', '-n', 'team-vision'])).code, 0);
    assert.equal((await admin.run(['auth', 'can-i', 'list', 'pods', '--as', 'bob', '-n', 'team-llm'])).code, 1);
    assert.equal((await admin.run(['auth', 'can-i', 'create', 'tokenreviews', '--as', 'system:serviceaccount:workload-map:workload-map'])).code, 0);
    assert.equal((await admin.run(['auth', 'can-i', 'delete', 'pods', '-A', '--as', 'system:serviceaccount:workload-map:workload-map'])).code, 1);
    // The product's account impersonates the user it acts for, and sees exactly what that user sees.
    assert.equal((await product.run(['auth', 'can-i', 'patch', 'deployments', '--as', 'alice', '-n', 'team-llm'])).code, 0);
    assert.equal((await product.run(['auth', 'can-i', 'patch', 'deployments', '--as', 'bob', '-n', 'team-vision'])).code, 1);
  });

  it('auth can-i --list lists the rules of the namespace', async () => {
    const rows = (out: string) => out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    const aliceRules = rows(await alice.ok(['auth', 'can-i', '--list', '-n', 'team-llm']));
    assert.deepEqual(aliceRules[0], ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    const deployments = aliceRules.find((r) => r[0] === 'deployments.apps');
    assert.ok(deployments?.[3].includes('create') && deployments[3].includes('list'), JSON.stringify(deployments));
    assert.ok(aliceRules.some((r) => r[0] === 'selfsubjectaccessreviews.authorization.k8s.io'));
    assert.ok(aliceRules.some((r) => r[0] === '[/api/*]' && r[2] === '[get]'), 'discovery, from system:discovery');
    const elsewhere = rows(await alice.ok(['auth', 'can-i', '--list', '-n', 'team-vision']));
    assert.equal(elsewhere.find((r) => r[0] === 'deployments.apps'), undefined);
    const bobs = await bob.ok(['auth', 'can-i', '--list', '-n', 'team-vision']);
    assert.match(bobs, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.equal(await product.ok(['auth', 'can-i', '--list', '-n', 'team-vision', '--as', 'bob']), bobs);
  });

  it('auth whoami shows the user, its uid, groups and extras', async () => {
    assert.equal(await alice.ok(['auth', 'whoami']), 'ATTRIBUTE   VALUE\nUsername    alice\nUID         demo-alice\nGroups      [ml-engineers system:authenticated]\n');
    assert.match(await admin.ok(['auth', 'whoami']), /Username\s+kubernetes-admin\nGroups\s+\[system:masters system:authenticated\]/);
    assert.match(await admin.ok(['auth', 'whoami', '--as', 'dana', '--as-group', 'team-x', '--as-group', 'team-y']), /Username\s+dana\nGroups\s+\[team-x team-y system:authenticated\]/);
    const sa = await product.ok(['auth', 'whoami']);
    assert.match(sa, /Username\s+system:serviceaccount:workload-map:workload-map\n/);
    assert.match(sa, /Groups\s+\[system:serviceaccounts system:serviceaccounts:workload-map system:authenticated\]/);
    assert.match(sa, /Extra: authentication\.kubernetes\.io\/credential-id\s+\[JTI=[0-9a-f-]+\]/);
  });

  it('a ServiceAccount token from kubectl create token: forbidden until a RoleBinding grants, then allowed', async () => {
    await admin.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: ci-bot, namespace: team-llm}\n');
    const token = (await admin.ok(['create', 'token', 'ci-bot', '-n', 'team-llm', '--duration', '20m'])).trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string; exp: number; iat: number; aud: string[] };
    assert.equal(claims.sub, 'system:serviceaccount:team-llm:ci-bot');
    assert.equal(claims.exp - claims.iat, 1200);
    assert.deepEqual(claims.aud, ['https://kubernetes.default.svc.cluster.local']);
    const bot = new Kubectl(sim.kubeconfigFor(token, { namespace: 'team-llm' }));
    const denied = await bot.run(['get', 'pods']);
    assert.equal(denied.code, 1);
    assert.equal(denied.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:team-llm:ci-bot" cannot list resource "pods" in API group "" in the namespace "team-llm"');
    await admin.ok(['apply', '-f', '-'], 'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: ci-bot-view, namespace: team-llm}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}\nsubjects: [{kind: ServiceAccount, name: ci-bot}]\n');
    assert.equal((await bot.run(['get', 'pods'])).stderr.trim(), 'No resources found in team-llm namespace.');
    const write = await bot.run(['create', 'configmap', 'x', '--from-literal=a=b']);
    assert.equal(write.stderr.trim(), 'error: failed to create configmap: configmaps is forbidden: User "system:serviceaccount:team-llm:ci-bot" cannot create resource "configmaps" in API group "" in the namespace "team-llm"');
    const short = await admin.run(['create', 'token', 'ci-bot', '-n', 'team-llm', '--duration', '5m']);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /TokenRequest\.authentication\.k8s\.io "" is invalid: spec\.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/);
    // Deleting the ServiceAccount invalidates its tokens.
    await admin.ok(['delete', 'serviceaccount', 'ci-bot', '-n', 'team-llm']);
    assert.match((await bot.run(['get', 'pods'])).stderr, /Unauthorized/);
  });

  it('a token Secret gets its token from the tokens controller; it works until the Secret is gone', async () => {
    await admin.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: legacy, namespace: team-llm}\n');
    const missing = await admin.run(['apply', '-f', '-'], 'apiVersion: v1\nkind: Secret\ntype: kubernetes.io/service-account-token\nmetadata: {name: nameless, namespace: team-llm}\n');
    assert.match(missing.stderr, /metadata\.annotations\[kubernetes\.io\/service-account\.name\]: Required value/);
    await admin.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Secret\ntype: kubernetes.io/service-account-token\nmetadata: {name: legacy-token, namespace: team-llm, annotations: {kubernetes.io/service-account.name: legacy}}\n');
    let token = '';
    await eventually(async () => {
      token = Buffer.from((await admin.ok(['get', 'secret', 'legacy-token', '-n', 'team-llm', '-o', 'jsonpath={.data.token}'])).trim(), 'base64').toString();
      return token !== '';
    }, 5000, 'the tokens controller');
    const uid = (await admin.ok(['get', 'sa', 'legacy', '-n', 'team-llm', '-o', 'jsonpath={.metadata.uid}'])).trim();
    assert.equal((await admin.ok(['get', 'secret', 'legacy-token', '-n', 'team-llm', '-o', "jsonpath={.metadata.annotations.kubernetes\\.io/service-account\\.uid}"])).trim(), uid);
    const legacy = new Kubectl(sim.kubeconfigFor(token));
    assert.match(await legacy.ok(['auth', 'whoami']), /Username\s+system:serviceaccount:team-llm:legacy/);
    await admin.ok(['delete', 'secret', 'legacy-token', '-n', 'team-llm']);
    assert.match((await legacy.run(['auth', 'whoami'])).stderr, /Unauthorized/);
  });

  it('impersonation: allowed by the impersonate verb, refused with the real message otherwise', async () => {
    assert.equal((await product.run(['get', 'pods', '-n', 'team-llm', '--as', 'alice'])).stderr.trim(), 'No resources found in team-llm namespace.');
    const asAlice = await product.run(['get', 'pods', '-n', 'team-vision', '--as', 'alice']);
    assert.equal(asAlice.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team-vision"');
    // `get --raw` skips discovery, so kubectl prints the server's message (discovery would print "unknown", as with a real server).
    const refused = await bob.run(['get', '--raw', '/api/v1/namespaces/team-llm/pods', '--as', 'alice']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Error from server \(Forbidden\): users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/);
    const group = await bob.run(['get', '--raw', '/api/v1/namespaces/team-vision/pods', '--as', 'bob', '--as-group', 'system:masters']);
    assert.match(group.stderr, /users "bob" is forbidden: User "bob" cannot impersonate resource "users"/, 'even yourself');
    // edit allows impersonating the service accounts of its namespace, and only those.
    await admin.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: runner, namespace: team-llm}\n');
    assert.match(await alice.ok(['auth', 'whoami', '--as', 'system:serviceaccount:team-llm:runner']), /Groups\s+\[system:serviceaccounts system:serviceaccounts:team-llm system:authenticated\]/);
    const other = await alice.run(['get', '--raw', '/api/v1/namespaces/team-vision/pods', '--as', 'system:serviceaccount:team-vision:default']);
    assert.match(other.stderr, /serviceaccounts "default" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team-vision"/);
  });

  it('RBAC changes take effect at once: a new RoleBinding grants, deleting it takes back', async () => {
    assert.equal((await bob.run(['auth', 'can-i', 'create', 'jobs.batch', '-n', 'team-llm'])).code, 1);
    await admin.ok(['apply', '-f', '-'], 'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: bob-edit, namespace: team-llm}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}\nsubjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]\n');
    assert.equal((await bob.run(['auth', 'can-i', 'create', 'jobs.batch', '-n', 'team-llm'])).code, 0);
    await admin.ok(['delete', 'rolebinding', 'bob-edit', '-n', 'team-llm']);
    assert.equal((await bob.run(['auth', 'can-i', 'create', 'jobs.batch', '-n', 'team-llm'])).code, 1);
    // A ClusterRole labelled to aggregate into view gives carol (view everywhere) its resources.
    assert.equal((await carol.run(['auth', 'can-i', 'list', 'priorityclasses.scheduling.k8s.io'])).code, 1);
    await admin.ok(['apply', '-f', '-'], 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: priority-view, labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}}\nrules: [{apiGroups: [scheduling.k8s.io], resources: [priorityclasses], verbs: [get, list, watch]}]\n');
    await eventually(async () => (await carol.run(['auth', 'can-i', 'list', 'priorityclasses.scheduling.k8s.io'])).code === 0, 5000, 'aggregation into view');
    await eventually(async () => (await admin.ok(['get', 'clusterrole', 'admin', '-o', 'yaml'])).includes('priorityclasses'), 5000, 'through edit into admin');
  });
});
