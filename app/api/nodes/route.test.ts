/**
 * `GET /api/nodes` against the embedded simulated cluster over HTTPS: the nodes and pods the live
 * layer lists, with the rows holding each node's GPUs; nodes the credentials may not list are
 * unknown (null totals), never 0.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { NodesPayload } from '@/contract/index.ts';
import { loadCatalog } from '@/server/catalog/index.ts';
import { loadClusterConfigs } from '@/server/cluster/index.ts';
import { startSim, type KubeObject, type SimHandle } from '@/server/sim/index.ts';
import { LiveWorkloads } from '@/server/workloads/index.ts';
import { setRuntime } from '@/server/workloads/runtime.ts';
import { GET } from './route.ts';

const sims: SimHandle[] = [];
const lives: LiveWorkloads[] = [];
after(async () => {
  setRuntime(null);
  for (const l of lives) l.stop();
  for (const s of sims) await s.stop();
});

const catalog = LiveWorkloads.catalogEntries(loadCatalog());

function node(name: string, gpus: number, extra: { unschedulable?: boolean } = {}): KubeObject {
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': String(gpus) };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3', 'karpenter.sh/nodepool': 'train' } }, spec: { ...(extra.unschedulable ? { unschedulable: true } : {}) }, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } };
}

async function until<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function serve(sim: SimHandle, kubeconfig = sim.kubeconfigPath): Promise<LiveWorkloads> {
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig }), catalog, connection: { listWatch: { minBackoffMs: 50, maxBackoffMs: 200, forbiddenRetryMs: 500 } } });
  lives.push(live);
  live.start();
  setRuntime({ live, startedAt: new Date().toISOString(), demo: null, testHooks: null });
  await until('initial sync', () => live.clusters().length > 0 && live.clusters().every((c) => c.synced));
  return live;
}

const nodes = async () => (await (await GET(new Request('http://127.0.0.1/api/nodes'))).json()) as NodesPayload;

test('GET /api/nodes: GPU nodes with capacity, allocated and free, and the rows holding them', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: true });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  sim.store.create(node('gpu-b', 8, { unschedulable: true }));
  await serve(sim);
  const tpl = { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'x', resources: { limits: { 'nvidia.com/gpu': 4 } } }] } } } };
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'worker', replicas: 2, template: tpl }] } });
  // Pods are bound before their row is resolved (the index coalesces): wait for both.
  const body = await until('8 GPUs allocated, held by the JobSet row', async () => {
    const b = await nodes();
    return b.clusters[0]?.total?.allocated === 8 && b.clusters[0].groups[0]?.nodes[0]?.workloads[0]?.id ? b : undefined;
  });
  const [c] = body.clusters;
  assert.equal(c.nodesListing.state, 'listed');
  assert.equal(c.podsListing.state, 'listed');
  assert.deepEqual(c.total, { capacity: 16, allocatable: 16, allocated: 8, free: 8 });
  assert.deepEqual(c.resources, [{ resource: 'nvidia.com/gpu', capacity: 16, allocatable: 16, allocated: 8, free: 8 }]);
  // Only the uncordoned node could take the JobSet's pods; the cordoned one is not schedulable.
  assert.equal(c.schedulableFree, 0);
  assert.deepEqual(c.groups.map((g) => [g.product, g.pool?.value, g.nodes.map((n) => [n.name, n.cordoned, n.total.free])]), [['NVIDIA-H100-80GB-HBM3', 'train', [['gpu-a', false, 0], ['gpu-b', true, 8]]]]);
  assert.deepEqual(c.groups[0].nodes[0].workloads.map((w) => [w.id, w.pods, w.total]), [['wmap-sim/default/JobSet.jobset.x-k8s.io/train', 2, 8]]);
  assert.ok(body.poolLabels.includes('karpenter.sh/nodepool'));
});

test('GET /api/nodes: nodes the credentials may not list are unknown, not 0', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false, tokens: [{ token: 'no-nodes-token', user: 'viewer', readOnly: true, deny: [{ resources: ['nodes'] }] }] });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  const dir = mkdtempSync(join(tmpdir(), 'wmap-nodes-'));
  const kc = parse(readFileSync(sim.kubeconfigPath, 'utf8')) as { users: Array<{ user: { token: string } }> };
  kc.users[0].user.token = 'no-nodes-token';
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, stringify(kc));
  await serve(sim, file);
  const [c] = (await until('nodes forbidden', async () => ((await nodes()).clusters[0]?.nodesListing.state === 'forbidden' ? nodes() : undefined))).clusters;
  assert.deepEqual([c.total, c.resources, c.nodeCount, c.groups], [null, null, null, []]);
  assert.equal(c.podsListing.state, 'listed');
});
