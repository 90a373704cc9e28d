import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalogFile } from '../server/catalog/index.ts';
import { pickRoot, resolveWorkload, type KubeObject } from '../server/engine/index.ts';
import { digest, fixtureObjects, resolveFixture } from './testing.ts';

const SLUG = 'milvus-io-milvus-v1beta1';
const CLUSTER_UID = '51d2e362-64ab-4947-9138-81b4a96e8936';
const STANDALONE_UID = '1dcc6fcd-7971-495a-8040-89faf86da902';
const GPU1 = { 'nvidia.com/gpu': 1 };

const PROXY = ['vecdb-milvus-proxy-6b6cqzg2hl-zwncw', 'vecdb-milvus-proxy-6b6cqzg2hl-dd4n9'];
const MIXCOORD = 'vecdb-milvus-mixcoord-n74l4n4p2m-4g8qj';
const DATANODE = 'vecdb-milvus-datanode-4hdhhmtvf5-djmw4';
const STREAMINGNODE = 'vecdb-milvus-streamingnode-vd5mjrwkz5-mzsbk';
const QUERYNODE = ['vecdb-milvus-querynode-0-4cpj462tt9-cxwvd', 'vecdb-milvus-querynode-0-4cpj462tt9-g6gcp'];
const ALL = [...PROXY, MIXCOORD, DATANODE, STREAMINGNODE, ...QUERYNODE];

const clusterPods = {
  [PROXY[0]]: 'proxy/proxy',
  [PROXY[1]]: 'proxy/proxy',
  [MIXCOORD]: 'mixcoord/mixcoord',
  [DATANODE]: 'datanode/datanode',
  [STREAMINGNODE]: 'streamingnode/streamingnode',
  [QUERYNODE[0]]: 'querynode/querynode',
  [QUERYNODE[1]]: 'querynode/querynode',
};

function roles(live: Record<string, number>, ready: Record<string, number>, desired = { proxy: 2, mixcoord: 1, datanode: 1, querynode: 2, streamingnode: 1 }) {
  const out: Record<string, { desired: number; live: number; ready: number; gpusPerPod: Record<string, number> }> = {};
  for (const [name, want] of Object.entries(desired)) {
    out[name] = { desired: want, live: live[name] ?? 0, ready: ready[name] ?? 0, gpusPerPod: name === 'querynode' ? GPU1 : {} };
  }
  return out;
}

test('cluster, pending: the GPU query nodes cannot be scheduled', () => {
  const tree = resolveFixture(SLUG, 'pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  // No standalone role in cluster mode (the webhook leaves standalone at 0 replicas there).
  assert.deepEqual(d.roles, roles(
    { proxy: 2, mixcoord: 1, datanode: 1, querynode: 2, streamingnode: 1 },
    { proxy: 0, mixcoord: 1, datanode: 1, querynode: 0, streamingnode: 1 },
  ));
  assert.deepEqual(d.pods, clusterPods);
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 2, requested: 2, allocated: 0 });
  assert.deepEqual(tree.gang.map((g) => [g.name, g.minMember, [...g.pods].sort()]), [[`pg-${CLUSTER_UID}-vecdb`, 7, [...ALL].sort()]]);
});

test('cluster, running: five components, query nodes on GPUs', () => {
  const tree = resolveFixture(SLUG, 'running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  const all = { proxy: 2, mixcoord: 1, datanode: 1, querynode: 2, streamingnode: 1 };
  assert.deepEqual(d.roles, roles(all, all));
  assert.deepEqual(d.pods, clusterPods);
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 2, requested: 2, allocated: 2 });
  // The query node pods come from the rolling group 0 Deployment; group 1 has none.
  assert.deepEqual(tree.gang.map((g) => [g.name, g.minMember, g.pods.length]), [[`pg-${CLUSTER_UID}-vecdb`, 7, 7]]);
});

test('cluster, degraded: a query node crash-loops after the cluster was healthy', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Degraded']);
  const all = { proxy: 2, mixcoord: 1, datanode: 1, querynode: 2, streamingnode: 1 };
  assert.deepEqual(d.roles, roles(all, { ...all, querynode: 1 }));
  assert.deepEqual(d.pods, clusterPods);
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 2, requested: 2, allocated: 2 });
  assert.equal(tree.pods.find((p) => p.name === QUERYNODE[1])?.restarts, 12);
});

test('cluster, stopped: every component at 0 replicas, Suspended', () => {
  const tree = resolveFixture(SLUG, 'stopped');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Suspended']);
  assert.deepEqual(d.roles, roles({}, {}, { proxy: 0, mixcoord: 0, datanode: 0, querynode: 0, streamingnode: 0 }));
  assert.deepEqual(d.pods, {});
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.deepEqual(tree.gang, []);
});

test('standalone mode: a single standalone role', () => {
  const tree = resolveFixture(SLUG, 'standalone-running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, { standalone: { desired: 1, live: 1, ready: 1, gpusPerPod: {} } });
  assert.deepEqual(d.pods, { 'notes-db-milvus-standalone-2hk7cnxb62-kw5wf': 'standalone/standalone' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.deepEqual(tree.gang.map((g) => [g.name, g.minMember]), [[`pg-${STANDALONE_UID}-notes-db`, 1]]);
});

test('standalone mode without spec.components.standalone (no webhook defaults): the standalone role and its pod', () => {
  const POD = 'vecdb-dev-milvus-standalone-6d9f8b7c4d-q7xkz';
  const tree = resolveFixture(SLUG, 'standalone-defaults');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  // One replica by default, as the operator runs it; the pod is claimed, none left unmatched.
  assert.deepEqual(d.roles, { standalone: { desired: 1, live: 1, ready: 1, gpusPerPod: {} } });
  assert.deepEqual(d.pods, { [POD]: 'standalone/standalone' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.deepEqual(tree.gang.map((g) => [g.name, g.minMember, g.pods]), [['pg-7b0c5e1a-2f43-4d8e-9a61-3c9d2e4f8a17-vecdb-dev', 1, [POD]]]);
  // The cluster-mode components have no instance in standalone mode.
  const deployments = tree.components.filter((c) => c.kind === 'apps/v1/Deployment');
  assert.equal(deployments.length, 12);
  for (const c of deployments) assert.deepEqual(c.instances.map((i) => i.id), c.name === 'standalone' ? ['standalone'] : [], c.name);
});

test('mode defaults to standalone when spec.mode is absent', () => {
  const objects = fixtureObjects(SLUG, 'standalone-defaults');
  const milvus = objects.find((o) => o.kind === 'Milvus')!;
  delete (milvus.spec as { mode?: string }).mode;
  const compiled = loadCatalogFile(join(fileURLToPath(new URL('.', import.meta.url)), `${SLUG}.yaml`))[0]!.compiled!;
  const d = digest(resolveWorkload(compiled, pickRoot(objects, [compiled]) as KubeObject, objects));
  assert.deepEqual(d.roles, { standalone: { desired: 1, live: 1, ready: 1, gpusPerPod: {} } });
  assert.deepEqual(d.unmatched, []);
});
