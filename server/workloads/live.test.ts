/**
 * Integration tests of the live layer against the embedded simulated cluster over real HTTPS:
 * discovery, list+watch, owner walking, deltas, SSE, recovery from dropped watches and 410, RBAC.
 */
import { parseQuery } from '../../lib/rows/index.ts';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify, parse } from 'yaml';
import { startSim, type SimHandle, type KubeObject } from '../sim/index.ts';
import { loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { streamResponse } from '../stream/index.ts';
import { LiveWorkloads } from './live.ts';
import type { WorkloadRow } from './row.ts';

const sims: SimHandle[] = [];
const lives: LiveWorkloads[] = [];
after(async () => {
  for (const l of lives) l.stop();
  for (const s of sims) await s.stop();
});

const catalog = LiveWorkloads.catalogEntries(loadCatalog());

function node(name: string, gpus: number): KubeObject {
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': String(gpus) };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' } }, spec: {}, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } };
}

function runningPod(name: string, gpus: number, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'default', ...extra },
    spec: { nodeName: 'gpu-a', containers: [{ name: 'main', image: 'x', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

async function until<T>(what: string, fn: () => T | undefined | null | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function connect(sim: SimHandle, kubeconfig = sim.kubeconfigPath): Promise<LiveWorkloads> {
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig }), catalog, connection: { listWatch: { minBackoffMs: 50, maxBackoffMs: 200, forbiddenRetryMs: 500 } } });
  lives.push(live);
  live.start();
  await until('initial sync', () => live.clusters().every((c) => c.synced));
  return live;
}

const tpl = (gpus: number) => ({ spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'x', resources: { limits: { 'nvidia.com/gpu': gpus } } }] } } } });

test('a JobSet created in the cluster becomes one row with its roles and GPU totals', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: true });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  sim.store.create(node('gpu-b', 8));
  const live = await connect(sim);
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: tpl(4) }, { name: 'worker', replicas: 2, template: tpl(4) }] } });
  const row = await until('a Running JobSet row with 12 allocated GPUs', () => {
    const r = live.index.row('wmap-sim/default/JobSet.jobset.x-k8s.io/train');
    return r && r.status === 'Running' && r.gpus.allocated === 12 ? r : undefined;
  });
  assert.equal(row.gpus.desired, 12);
  assert.equal(row.rolesSummary, '1 leader · 2 workers');
  assert.deepEqual(row.pods, { ready: 3, total: 3 });
  // The Jobs of the JobSet are not workloads of their own.
  assert.deepEqual(live.index.allRows().map((r) => r.kind), ['JobSet']);
});

test('one pod change reaches an SSE client as one delta', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  const pod = sim.store.create(runningPod('solo', 2));
  const live = await connect(sim);
  await until('the pod row', () => live.index.row('wmap-sim/default/Pod/solo'));
  const abort = new AbortController();
  const res = streamResponse(live, parseQuery('minGpus=1').query, null, abort.signal);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const readUntil = async (re: RegExp) => {
    while (!re.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  };
  await readUntil(/event: snapshot[\s\S]*?\n\n/);
  assert.match(text, /"name":"solo"/);
  const before = text.length;
  sim.store.updateStatus({ ...pod, status: { phase: 'Failed', conditions: [{ type: 'Ready', status: 'False' }] } });
  await readUntil(/event: delta[\s\S]*?\n\n/);
  const events = text.slice(before).split('\n\n').filter((f) => f.includes('event: delta'));
  assert.equal(events.length, 1);
  const deltas = JSON.parse(events[0].split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as Array<{ op: string; row?: WorkloadRow }>;
  assert.equal(deltas.length, 1);
  // Failed pods hold no GPUs, so under `minGpus=1` the row leaves this client's view.
  assert.equal(deltas[0].op, 'remove');
  abort.abort();
});

test('dropped watches and a forced 410 end in the same state as a fresh relist', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false, historySize: 50 });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  for (let i = 0; i < 5; i++) sim.store.create(runningPod(`p${i}`, 1));
  const live = await connect(sim);
  await until('5 rows', () => live.index.allRows().length === 5);
  const relistsBefore = live.connection('wmap-sim')!.info().kinds.reduce((s, k) => s + (k.synced ? 1 : 0), 0);
  assert.ok(relistsBefore > 0);
  // Changes while watches are dropped and every resume answers 410.
  sim.faults.set({ watchGone: true });
  sim.faults.dropWatches();
  sim.store.delete('v1', 'Pod', 'default', 'p0');
  for (let i = 0; i < 60; i++) sim.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `noise-${i}`, namespace: 'default' }, data: {} });
  sim.store.create(runningPod('p9', 3));
  const p1 = sim.store.get('v1', 'Pod', 'default', 'p1')!;
  sim.store.updateStatus({ ...p1, status: { phase: 'Succeeded', conditions: [] } });
  await new Promise((r) => setTimeout(r, 300));
  sim.faults.set({ watchGone: null });
  const fresh = await connect(sim);
  const snapshot = (l: LiveWorkloads) => JSON.stringify(l.index.allRows().map((r) => [r.id, r.status, r.gpus]).sort());
  await until('the recovering index to equal a fresh relist', () => snapshot(live) === snapshot(fresh) && fresh.index.allRows().length === 5);
  assert.ok(!live.index.row('wmap-sim/default/Pod/p0'));
  assert.equal(live.index.row('wmap-sim/default/Pod/p9')!.gpus.allocated, 3);
  assert.equal(live.index.row('wmap-sim/default/Pod/p1')!.status, 'Completed');
});

test('a kind the credentials may not list is reported as forbidden; the rest keeps working', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false, tokens: [{ token: 'no-pods-token', user: 'viewer', readOnly: true, deny: [{ resources: ['pods'] }] }] });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  sim.store.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } });
  const dir = mkdtempSync(join(tmpdir(), 'wmap-live-'));
  const kc = parse(readFileSync(sim.kubeconfigPath, 'utf8')) as { users: Array<{ user: { token: string } }> };
  kc.users[0].user.token = 'no-pods-token';
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, stringify(kc));
  const live = await connect(sim, file);
  const info = await until('pods forbidden', () => live.clusters().find((c) => c.forbiddenKinds.includes('pods')));
  assert.equal(info.state, 'connected');
  await until('the Job row despite forbidden pods', () => live.index.row('wmap-sim/default/Job.batch/j'));
  // What the pods would contribute is unknown, never 0; and the row says why.
  const row = await until('marked unknown', () => { const r = live.index.row('wmap-sim/default/Job.batch/j'); return r?.pods.unknown ? r : undefined; });
  assert.deepEqual(row.gpus.unknown, ['allocated', 'requested']);
  assert.match(row.stale?.reason ?? '', /pods cannot be read/);
});

test('an unreachable cluster is reported as such', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false });
  // Read the kubeconfig first: a stopped simulator removes it.
  const clusters = loadClusterConfigs({ kubeconfig: sim.kubeconfigPath });
  await sim.stop();
  const live = new LiveWorkloads({ clusters, catalog });
  lives.push(live);
  live.start();
  const c = await until('unreachable', () => live.clusters().find((x) => x.state === 'unreachable'));
  assert.match(c.message ?? '', /ECONNREFUSED|connect|Unreachable/i);
});

const kubectl = '/usr/bin/kubectl';
test('applying a Karta with kubectl makes its workloads appear', { skip: existsSync(kubectl) ? false : 'kubectl is not installed at /usr/bin/kubectl' }, async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  const live = await connect(sim);
  const dir = mkdtempSync(join(tmpdir(), 'wmap-karta-'));
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'trainers.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'trainers', singular: 'trainer', kind: 'Trainer', listKind: 'TrainerList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  };
  const karta = {
    apiVersion: 'run.ai/v1alpha1', kind: 'Karta',
    metadata: { name: 'example-com-trainer-v1', labels: { 'run.ai/karta-group': 'example.com', 'run.ai/karta-version': 'v1', 'run.ai/karta-kind': 'Trainer' } },
    spec: { structureDefinition: {
      rootComponent: { name: 'trainer', kind: { group: 'example.com', version: 'v1', kind: 'Trainer' },
        statusDefinition: { phaseDefinition: { path: '.status.phase' }, statusMappings: { running: [{ byPhase: 'Training' }] } } },
      childComponents: [{ name: 'worker', ownerRef: 'trainer', specDefinition: { podTemplateSpecPath: '.spec.template' }, scaleDefinition: { replicasPath: '.spec.workers' } }],
    } },
  };
  writeFileSync(join(dir, 'crd.yaml'), stringify(crd));
  writeFileSync(join(dir, 'karta.yaml'), stringify(karta));
  const env = { ...process.env, KUBECONFIG: sim.kubeconfigPath };
  // Asynchronously: the simulated API server answers from this very process.
  const apply = (file: string) => new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const p = spawn(kubectl, ['apply', '-f', file], { env });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('close', (code) => resolve({ code, stderr }));
  });
  for (const f of ['crd.yaml', 'karta.yaml']) {
    const r = await apply(join(dir, f));
    assert.equal(r.code, 0, r.stderr);
  }
  const trainer = sim.store.create({ apiVersion: 'example.com/v1', kind: 'Trainer', metadata: { name: 'llm', namespace: 'default' }, spec: { workers: 2, template: { spec: { containers: [{ name: 'w', image: 'x', resources: { limits: { 'nvidia.com/gpu': 2 } } }] } } }, status: { phase: 'Training' } });
  const owner = [{ apiVersion: 'example.com/v1', kind: 'Trainer', name: 'llm', uid: trainer.metadata.uid!, controller: true }];
  sim.store.create(runningPod('llm-0', 2, { ownerReferences: owner }));
  sim.store.create(runningPod('llm-1', 2, { ownerReferences: owner }));
  const row = await until('the Trainer row from the cluster definition', () => live.index.row('wmap-sim/default/Trainer.example.com/llm'));
  assert.equal(row.definition.source, 'cluster');
  await until('both pods and 4 GPUs', () => live.index.row('wmap-sim/default/Trainer.example.com/llm')?.gpus.allocated === 4);
  assert.equal(live.index.row('wmap-sim/default/Trainer.example.com/llm')!.status, 'Running');
  // The pods are part of the Trainer, not workloads of their own.
  assert.ok(!live.index.row('wmap-sim/default/Pod/llm-0'));
  assert.deepEqual(live.clusters()[0].definitionApis.karta, ['v1alpha1']);
});

test('a kind whose list and watch keep failing marks its rows stale within seconds, and recovery clears them', async () => {
  const requests: Array<{ path: string; at: number }> = [];
  const sim = await startSim({ scenario: 'empty', controllers: false, onRequest: (e) => requests.push({ path: e.url, at: Date.now() }) });
  sims.push(sim);
  sim.store.create(node('gpu-a', 8));
  sim.store.create(runningPod('solo', 2));
  const live = await connect(sim);
  await until('the pod row', () => live.index.row('wmap-sim/default/Pod/solo'));
  assert.equal(live.index.row('wmap-sim/default/Pod/solo')!.stale, null);
  // Every pod request fails (Retry-After 0: the client's floor, not a tight loop) and the watch is cut.
  const started = Date.now();
  sim.faults.set({ errorRate: 1, errorCodes: [500], retryAfterSeconds: 0, errorPathContains: '/api/v1/pods' });
  sim.faults.dropWatches();
  const stale = await until('the row marked stale', () => live.index.row('wmap-sim/default/Pod/solo')?.stale);
  assert.ok(Date.now() - started < 10_000);
  assert.deepEqual(stale.kinds, ['pods']);
  assert.match(stale.reason, /^pods cannot be read: /);
  const info = live.clusters()[0];
  assert.deepEqual(info.failingKinds.map((k) => k.kind), ['pods']);
  assert.equal(info.state, 'connected', 'one failing kind does not make the cluster unreachable');
  // The retries back off instead of hammering the server.
  const before = requests.length;
  await new Promise((r) => setTimeout(r, 1000));
  const podRequests = requests.slice(before).filter((e) => e.path.includes('/api/v1/pods')).length;
  assert.ok(podRequests <= 12, `${podRequests} pod requests in a second`);
  sim.faults.set({ errorRate: 0, errorPathContains: undefined });
  await until('the mark cleared', () => live.index.row('wmap-sim/default/Pod/solo')?.stale === null && live.clusters()[0].failingKinds.length === 0);
});

test('a kubeconfig rewritten with the right CA is picked up without a restart', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false });
  const other = await startSim({ scenario: 'empty', controllers: false });
  sims.push(sim, other);
  sim.store.create(node('gpu-a', 8));
  sim.store.create(runningPod('solo', 2));
  // The server of one simulated cluster with the CA of another: TLS fails as after a CA rotation.
  const right = parse(readFileSync(sim.kubeconfigPath, 'utf8')) as { clusters: Array<{ cluster: Record<string, string> }> };
  const wrongCa = (parse(readFileSync(other.kubeconfigPath, 'utf8')) as typeof right).clusters[0].cluster['certificate-authority-data'];
  assert.notEqual(wrongCa, right.clusters[0].cluster['certificate-authority-data']);
  const file = join(mkdtempSync(join(tmpdir(), 'wmap-kc-')), 'config');
  const wrong = structuredClone(right);
  wrong.clusters[0].cluster['certificate-authority-data'] = wrongCa;
  writeFileSync(file, stringify(wrong));
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig: file }), catalog });
  lives.push(live);
  live.start();
  live.watchConfig(() => loadClusterConfigs({ kubeconfig: file }), [file]);
  await until('unreachable', () => live.clusters()[0]?.state === 'unreachable');
  assert.match(live.clusters()[0].message ?? '', /certificate/i);
  writeFileSync(file, stringify(right));
  await until('the row after the reload', () => live.index.row('wmap-sim/default/Pod/solo'), 15_000);
  assert.equal(live.clusters()[0].state, 'connected');
});
