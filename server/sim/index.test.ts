/** startSim wiring: kubeconfig, framework CRDs, and the simulated controllers behind the API. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startSim } from './index.ts';
import { eventually } from './api/test-support.ts';
import { frameworkCrds } from './crds/index.ts';

test('startSim writes a kubeconfig, installs the CRDs and runs controllers behind the API', async () => {
  const sim = await startSim({ clockSpeed: 20 });
  try {
    assert.match(sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const kubeconfig = readFileSync(sim.kubeconfigPath, 'utf8');
    assert.match(kubeconfig, /certificate-authority-data: /);
    assert.match(kubeconfig, new RegExp(`token: ${sim.adminToken}`));
    assert.equal(sim.store.list('apiextensions.k8s.io/v1', 'CustomResourceDefinition').length, frameworkCrds().length);

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    sim.store.create({
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' },
      status: { capacity: { cpu: '8', memory: '32Gi', pods: '110' }, allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
    });
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    if (existsSync(new URL('./controllers/index.ts', import.meta.url))) {
      await eventually(async () => {
        const pods = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' });
        return pods.items.length === 2 && pods.items.every((p) => p.spec?.nodeName === 'n1');
      }, 20_000, 'two scheduled pods');
    }
  } finally {
    await sim.stop();
  }
});

test('identities: tokens, kubeconfigs per identity, a token auth file; demo tokens need the identities', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmap-sim-ids-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, 'file-token,erin,e-1,"ops,oncall"\n');
  const plain = await startSim({ controllers: false, tokenAuthFile: tokenFile });
  try {
    assert.equal(plain.tokens.admin, plain.adminToken);
    assert.throws(() => plain.tokens.alice, /the demo identities are not installed/);
    assert.deepEqual(plain.identityKubeconfigs, {});
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(plain.kubeconfigFor('file-token', { namespace: 'ops' }));
    assert.equal(kc.getContextObject(kc.currentContext)?.namespace, 'ops');
    const who = await kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    assert.deepEqual(JSON.parse(JSON.stringify(who.status?.userInfo)), { username: 'erin', uid: 'e-1', groups: ['ops', 'oncall', 'system:authenticated'] });
    // The default roles and bindings of a real cluster are there.
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer']) assert.ok(plain.store.get('rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, name), name);
    assert.ok((plain.store.get('rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, 'view')?.rules as unknown[]).length > 5, 'view aggregated');
  } finally {
    await plain.stop();
  }
  const demo = await startSim({ controllers: false, identities: true, kubeconfigPath: join(dir, 'kubeconfig') });
  const files = { ...demo.identityKubeconfigs };
  try {
    assert.deepEqual(Object.keys(files).sort(), ['alice', 'bob', 'carol', 'workloadMap']);
    assert.equal(files.alice, join(dir, 'kubeconfig.alice'));
    assert.match(readFileSync(files.carol!, 'utf8'), new RegExp(`token: ${demo.tokens.carol}`));
    assert.match(readFileSync(files.workloadMap!, 'utf8'), new RegExp(`token: ${demo.tokens.workloadMap}`));
    assert.ok(demo.store.get('v1', 'ServiceAccount', 'workload-map', 'workload-map'));
  } finally {
    await demo.stop();
  }
  for (const f of Object.values(files)) assert.equal(existsSync(f), false, `${f} removed on stop`);
  rmSync(dir, { recursive: true, force: true });
});
