/**
 * kubeconfig fidelity, end to end: the live index lists and watches a simulated cluster through a
 * cluster's `proxy-url` (an HTTP CONNECT proxy that counts its tunnels) and through a server URL
 * with a path prefix (a Rancher-style reverse proxy at `/k8s/clusters/c-test` that strips it), and
 * kubectl, given the same kubeconfig file, agrees.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type KubeObject, type SimHandle } from '../sim/index.ts';
import { loadClusterConfigs } from '../cluster/index.ts';
import { kubeconfigText, startForwardProxy, startPrefixProxy, type ForwardProxy, type PrefixProxy } from '../cluster/test-proxies.ts';
import { loadCatalog } from '../catalog/index.ts';
import { LiveWorkloads } from './live.ts';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const dir = mkdtempSync(join(tmpdir(), 'wmap-fidelity-'));

async function until<T>(what: string, fn: () => T | undefined | null | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env = { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: mkdtempSync(join(dir, 'cache-')), HOME: dir };
  return new Promise((resolve) => {
    execFile(KUBECTL, args, { env, timeout: 30_000 }, (e, out, err) => resolve({ code: e ? (typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1) : 0, out, err }));
  });
}

function node(name: string): KubeObject {
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': '8' };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } };
}

function jobSet(name: string, namespace: string): KubeObject {
  const tpl = (gpus: number) => ({ spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'x', resources: { limits: { 'nvidia.com/gpu': gpus } } }] } } } });
  return { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name, namespace }, spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: tpl(2) }, { name: 'worker', replicas: 2, template: tpl(2) }] } };
}

/** The live index on `kubeconfig`: synced, then a JobSet created afterwards arrives by the watch as a 6-GPU row. */
async function liveRowThrough(sim: SimHandle, kubeconfig: string, namespace: string): Promise<void> {
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig }), catalog, connection: { listWatch: { minBackoffMs: 50, maxBackoffMs: 200 } } });
  live.start();
  try {
    await until('initial sync', () => live.clusters().every((c) => c.synced && c.state === 'connected'));
    const info = live.clusters()[0];
    assert.deepEqual(info.forbiddenKinds, []);
    assert.deepEqual(info.failingKinds, []);
    sim.store.create(jobSet('train', namespace));
    const row = await until('the JobSet row, Running with 6 GPUs allocated', () => {
      const r = live.index.row(`test/${namespace}/JobSet.jobset.x-k8s.io/train`);
      return r && r.status === 'Running' && r.gpus.allocated === 6 ? r : undefined;
    });
    assert.equal(row.gpus.desired, 6);
    assert.deepEqual(row.pods, { ready: 3, total: 3 });
  } finally {
    live.stop();
  }
}

describe('the live index and kubectl through proxy-url and a prefixed server URL', { timeout: 120_000, skip: existsSync(KUBECTL) ? false : `kubectl not found at ${KUBECTL}` }, () => {
  let sim: SimHandle;
  let proxy: ForwardProxy;
  let prefix: PrefixProxy;

  before(async () => {
    sim = await startSim({ scenario: 'empty', controllers: true });
    // One 8-GPU node per test's 6-GPU JobSet.
    sim.store.create(node('gpu-a'));
    sim.store.create(node('gpu-b'));
    for (const ns of ['via-proxy', 'via-prefix']) sim.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Active' } });
    proxy = await startForwardProxy();
    prefix = await startPrefixProxy({ prefix: '/k8s/clusters/c-test', upstream: sim.url, upstreamCa: sim.caPem });
  });

  after(async () => {
    await proxy?.close();
    await prefix?.close();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('proxy-url: every list and watch goes through CONNECT tunnels to the API server; kubectl too', async () => {
    const kubeconfig = join(dir, 'proxied');
    writeFileSync(kubeconfig, kubeconfigText({ server: sim.url, token: sim.adminToken, caPem: sim.caPem, proxyUrl: proxy.url }), { mode: 0o600 });
    const watchesBefore = sim.openWatches();
    await liveRowThrough(sim, kubeconfig, 'via-proxy');
    const simAuthority = new URL(sim.url).host;
    assert.ok(proxy.tunnels >= 1);
    assert.ok(proxy.connects.every((c) => c === simAuthority), proxy.connects.join(', '));
    // One watch per kind was open: they all went through the proxy (the index has no other way in).
    assert.ok(sim.openWatches() >= watchesBefore);
    const tunnels = proxy.tunnels;
    const k = await kubectl(kubeconfig, ['get', 'jobsets.jobset.x-k8s.io', '-n', 'via-proxy', '-o', 'name']);
    assert.equal(k.code, 0, k.err);
    assert.equal(k.out.trim(), 'jobset.jobset.x-k8s.io/train');
    assert.ok(proxy.tunnels > tunnels, 'kubectl went through the proxy too');
  });

  it('a server URL with a path prefix: the index lists and watches under it; kubectl agrees', async () => {
    const kubeconfig = join(dir, 'prefixed');
    writeFileSync(kubeconfig, kubeconfigText({ server: prefix.url, token: sim.adminToken, caPem: prefix.caPem }), { mode: 0o600 });
    const before = prefix.paths.length;
    await liveRowThrough(sim, kubeconfig, 'via-prefix');
    const paths = prefix.paths.slice(before);
    assert.ok(paths.some((p) => p.startsWith('/k8s/clusters/c-test/api/v1/pods?') && p.includes('watch=')), 'the pod watch went through the prefix');
    assert.ok(paths.some((p) => p.startsWith('/k8s/clusters/c-test/apis/jobset.x-k8s.io/')), 'the JobSet list went through the prefix');
    assert.equal(prefix.unprefixed, 0, 'no request lost the prefix');
    const k = await kubectl(kubeconfig, ['get', 'jobsets.jobset.x-k8s.io', '-n', 'via-prefix', '-o', 'name']);
    assert.equal(k.code, 0, k.err);
    assert.equal(k.out.trim(), 'jobset.jobset.x-k8s.io/train');
    assert.equal(prefix.unprefixed, 0, 'kubectl kept the prefix too');
  });
});
