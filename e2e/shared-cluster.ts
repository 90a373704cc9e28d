/**
 * The cluster side of the shared-mode browser tests, run as its own process (`node --import tsx
 * e2e/shared-cluster.ts APP_PORT`): the simulated cluster's demo scenario with its identities (the
 * product's service account; alice, bob and carol with their RBAC), a kubeconfig of the service
 * account for the server, and a real OIDC provider whose users map to the same RBAC (alice@example.com
 * may edit in team-llm). Prints one JSON line with what the tests need, and stops on SIGTERM.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestProvider } from '../server/auth/oidc-test-provider.ts';
import { startSim } from '../server/sim/index.ts';

const appPort = Number(process.argv[2]);
if (!Number.isInteger(appPort) || appPort <= 0) throw new Error('usage: shared-cluster.ts APP_PORT');

const dir = mkdtempSync(join(tmpdir(), 'wmap-shared-'));
const sim = await startSim({ scenario: 'demo', seed: 11, kubeconfigPath: join(dir, 'admin-kubeconfig') });
const provider = await startTestProvider({ redirectUris: [`http://127.0.0.1:${appPort}/auth/oidc/callback`] });
// The provider's alice is a user of her own (her email), bound like the static-token alice.
sim.store.create({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'alice-oidc-edit', namespace: 'team-llm' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' }],
});
// A Prometheus of the cluster's own: its service account may get /metrics (system:monitoring), as
// a monitoring stack's ClusterRole grants it.
sim.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'monitoring' } });
sim.store.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'prometheus', namespace: 'monitoring' } });
sim.store.create({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'prometheus-monitoring' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:monitoring' },
  subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'monitoring' }],
});
const prometheusToken = sim.serviceAccountToken('monitoring', 'prometheus', { expirationSeconds: 3600 });
const serverKubeconfig = sim.kubeconfigFor(sim.tokens.workloadMap, { path: join(dir, 'workload-map-kubeconfig') });
process.stdout.write(`${JSON.stringify({ url: sim.url, adminKubeconfig: sim.kubeconfigPath, serverKubeconfig, tokens: { alice: sim.tokens.alice, bob: sim.tokens.bob, carol: sim.tokens.carol, prometheus: prometheusToken }, oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret } })}\n`);

const stop = async () => {
  await provider.stop();
  await sim.stop();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
