/** The drill-down routes (pod detail, workload events, pod logs) against the simulated cluster over HTTPS. */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startSim, type SimHandle, type KubeObject } from '@/server/sim/index.ts';
import { loadClusterConfigs } from '@/server/cluster/index.ts';
import { loadCatalog } from '@/server/catalog/index.ts';
import { LiveWorkloads } from '@/server/workloads/index.ts';
import { setRuntime } from '@/server/workloads/runtime.ts';
import { MAX_LOG_STREAMS, openLogStreams } from '@/server/workloads/pod-log.ts';
import type { EventList, PodDetail, WorkloadRow } from '@/contract/index.ts';
import { GET as getPod } from './pods/[cluster]/[namespace]/[name]/route.ts';
import { GET as getLog } from './pods/[cluster]/[namespace]/[name]/log/route.ts';
import { GET as getEvents } from './workloads/[cluster]/[namespace]/[kind]/[name]/events/route.ts';

let sim: SimHandle;
let live: LiveWorkloads;
let cluster: string;

const node = (name: string, gpus: number): KubeObject => {
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': String(gpus) };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } };
};
const tpl = (gpus: number) => ({ spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'pytorch', resources: { limits: { 'nvidia.com/gpu': gpus } } }] } } } });
const url = (path: string) => `http://127.0.0.1${path}`;
const podsNamed = (prefix: string) => live.index.allRows().length >= 0 && [...live.index.pods(cluster)].filter((p) => p.metadata?.name?.startsWith(prefix));

async function until<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    live.index.flush();
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  sim = await startSim({ scenario: 'empty', controllers: true });
  sim.store.create(node('gpu-a', 8));
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: tpl(4) }, { name: 'worker', replicas: 2, template: tpl(4) }] } });
  const configs = loadClusterConfigs({ kubeconfig: sim.kubeconfigPath });
  cluster = configs[0].name;
  live = new LiveWorkloads({ clusters: configs, catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
  live.start();
  setRuntime({ live, startedAt: new Date().toISOString(), demo: null, testHooks: null });
  await until('two running pods and one pending', () => {
    const pods = podsNamed('train-') || [];
    const phases = pods.map((p) => (p.status as { phase?: string } | undefined)?.phase);
    return pods.length === 3 && phases.filter((x) => x === 'Running').length === 2;
  });
});
after(async () => {
  setRuntime(null);
  live.stop();
  await sim.stop();
});

const pending = () => (podsNamed('train-') || []).find((p) => !(p.spec as { nodeName?: string }).nodeName)!;
const running = () => (podsNamed('train-leader') || [])[0]!;

test('the row says why its pods are pending, in the scheduler\'s words', async () => {
  const row = await until('the row\'s why', () => live.index.allRows().find((r: WorkloadRow) => r.name === 'train' && r.why));
  assert.equal(row.why!.kind, 'unschedulable');
  assert.equal(row.why!.pods, 1);
  assert.match(row.why!.message, /^0\/1 nodes are available: 1 Insufficient nvidia\.com\/gpu\./);
});

test('GET /api/pods/…: a pending pod\'s why, conditions and FailedScheduling event', async () => {
  const p = pending();
  const res = await getPod(new Request(url(`/api/pods/x?uid=${p.metadata!.uid}`)), { params: Promise.resolve({ cluster, namespace: 'default', name: p.metadata!.name! }) });
  assert.equal(res.status, 200);
  const d = (await res.json()) as PodDetail;
  assert.equal(d.why?.kind, 'unschedulable');
  assert.equal(d.workload?.name, 'train');
  assert.ok(d.conditions.some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable'));
  assert.deepEqual(d.containers.map((c) => [c.name, c.gpus]), [['trainer', { 'nvidia.com/gpu': 4 }]]);
  const failed = d.events.events.find((e) => e.reason === 'FailedScheduling');
  assert.ok(failed, JSON.stringify(d.events));
  assert.equal(failed.type, 'Warning');
  assert.equal(failed.source, 'default-scheduler');
  assert.ok(d.events.events.every((e) => e.object.uid === p.metadata!.uid), 'only this pod\'s events');
  assert.equal((d.object as { metadata: { managedFields?: unknown } }).metadata.managedFields, undefined);
});

test('GET /api/pods/…: an unknown pod is a 404 that names it', async () => {
  const res = await getPod(new Request(url('/x')), { params: Promise.resolve({ cluster, namespace: 'default', name: 'nope' }) });
  assert.equal(res.status, 404);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /no pod default\/nope/);
});

test('GET …/events: the root and everything it owns, newest first', async () => {
  const res = await getEvents(new Request(url('/x')), { params: Promise.resolve({ cluster, namespace: 'default', kind: 'JobSet.jobset.x-k8s.io', name: 'train' }) });
  assert.equal(res.status, 200);
  const list = (await res.json()) as EventList;
  assert.equal(list.error, null);
  // Every pod's events (Scheduled, FailedScheduling, the kubelet's), from several objects it owns.
  const pods = new Set(list.events.filter((e) => e.object.kind === 'Pod').map((e) => e.object.name));
  assert.equal(pods.size, 3, [...pods].join(','));
  assert.ok(list.events.every((e) => e.object.name.startsWith('train')), 'only its own objects');
  const times = list.events.map((e) => Date.parse(e.last ?? ''));
  assert.deepEqual(times, [...times].sort((a, b) => b - a));
  assert.ok(list.events.some((e) => e.reason === 'Scheduled' && /Successfully assigned default\/train-/.test(e.message)));
});

test('GET …/log: the tail of a running container as text; a bad parameter is a 400', async () => {
  const p = running();
  // A container that has just started has written fewer than three lines: wait until it has run long enough.
  const log = () => getLog(new Request(url('/x?tailLines=3&container=trainer')), { params: Promise.resolve({ cluster, namespace: 'default', name: p.metadata!.name! }) });
  await until('three log lines', async () => (await (await log()).text()).split('\n').filter(Boolean).length >= 3);
  const res = await log();
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const lines = (await res.text()).split('\n').filter(Boolean);
  assert.equal(lines.length, 3);
  const bad = await getLog(new Request(url('/x?tailLines=-3')), { params: Promise.resolve({ cluster, namespace: 'default', name: p.metadata!.name! }) });
  assert.equal(bad.status, 400);
  const prev = await getLog(new Request(url('/x?previous=true')), { params: Promise.resolve({ cluster, namespace: 'default', name: p.metadata!.name! }) });
  assert.equal(prev.status, 400);
  assert.match(((await prev.json()) as { error: { message: string } }).error.message, /previous terminated container "trainer" in pod .* not found/);
});

test('GET …/log?follow=true streams new lines and ends when the client goes away', async () => {
  const p = running();
  const ac = new AbortController();
  const res = await getLog(new Request(url('/x?follow=true&tailLines=0'), { signal: ac.signal }), { params: Promise.resolve({ cluster, namespace: 'default', name: p.metadata!.name! }) });
  assert.equal(res.status, 200);
  assert.equal(openLogStreams(), 1);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const deadline = Date.now() + 15_000;
  while (text.split('\n').filter(Boolean).length < 2 && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  assert.ok(text.split('\n').filter(Boolean).length >= 2, `followed: ${JSON.stringify(text)}`);
  ac.abort();
  await reader.cancel().catch(() => {});
  await until('the stream to be released', () => openLogStreams() === 0);
  assert.ok(MAX_LOG_STREAMS > 1);
});
