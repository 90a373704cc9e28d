/** startSim wiring: kubeconfig, framework CRDs, and the simulated controllers behind the API. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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
