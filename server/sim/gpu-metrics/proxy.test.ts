/**
 * The DCGM exporters as a client reaches them: the API server's pod and service proxies (authorization,
 * ports by number and name, 503s), external Service backends (GET and POST forwarded), the ground truth
 * endpoint, and the real kubectl's `get --raw` through the pod proxy.
 */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { startSim } from '../index.ts';
import type { GroundTruth, SimHandle } from '../index.ts';
import { Kubectl, cleanupTempDirs, eventually, kubectlSkip, raw } from '../api/test-support.ts';
import { nodeObject } from '../scenarios/node-pools.ts';
import type { KubeObject } from '../store/object-store.ts';
import { LOAD_LABEL } from './load-model.ts';

const NO_PROXY = 'no-proxy-token-for-tests';
const TEAM_ONLY = 'team-only-token-for-tests';

function gpuPod(name: string, gpus: number, load?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-a', ...(load ? { labels: { [LOAD_LABEL]: load } } : {}) },
    spec: { nodeSelector: { 'kubernetes.io/hostname': 'gpu-h100-00' }, containers: [{ name: 'trainer', image: 'nvcr.io/nvidia/pytorch:25.01-py3', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }] },
  };
}

/** `name{labels} value` lines of an exposition, labels parsed. */
function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of m[2].matchAll(/([A-Za-z_]+)="([^"]*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

describe('DCGM exporters through the API server proxies', () => {
  let sim: SimHandle;
  let exporter: string;
  let backend: Server;
  let backendUrl: string;
  const seen: Array<{ method: string; url: string; type?: string; body: string }> = [];

  before(async () => {
    sim = await startSim({
      scenario: 'empty',
      dcgmExporter: true,
      clockSpeed: 20,
      tokens: [
        { token: NO_PROXY, user: 'viewer', deny: [{ resources: ['pods/proxy', 'services/proxy'] }] },
        { token: TEAM_ONLY, user: 'alice', namespaces: ['team-a'] },
      ],
    });
    sim.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    sim.store.create(nodeObject('h100', 0, 0, { now: new Date(sim.now()).toISOString() }));
    sim.store.create(nodeObject('cpu', 0, 1, { now: new Date(sim.now()).toISOString() }));
    sim.store.create(gpuPod('trainer-0', 2, 'saturated'));
    sim.store.create(gpuPod('notebook-0', 1, 'idle'));
    await eventually(() => {
      const pods = sim.store.list('v1', 'Pod', { namespace: 'gpu-operator' });
      const ready = pods.filter((p) => (p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      const users = sim.store.list('v1', 'Pod', { namespace: 'team-a' }).filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running');
      if (ready.length === 1 && users.length === 2) exporter = ready[0].metadata.name!;
      return !!exporter;
    }, 20_000, 'a ready exporter pod and two running GPU pods');
    backend = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, type: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(req.url!.startsWith('/missing') ? 404 : 200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ status: 'success', method: req.method, url: req.url }));
      });
    });
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
    const addr = backend.address();
    backendUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });

  after(async () => {
    await sim?.stop();
    await new Promise<void>((r) => (backend ? backend.close(() => r()) : r()));
    cleanupTempDirs();
  });

  it('runs one exporter pod per GPU node only, as the GPU Operator does', () => {
    const pods = sim.store.list('v1', 'Pod', { namespace: 'gpu-operator' });
    assert.deepEqual(pods.map((p) => (p.spec as { nodeName?: string }).nodeName), ['gpu-h100-00']);
    assert.equal(pods[0].metadata.labels?.['app.kubernetes.io/name'], 'dcgm-exporter');
    const svc = sim.store.get('v1', 'Service', 'gpu-operator', 'nvidia-dcgm-exporter')!;
    assert.deepEqual((svc.spec as { ports: unknown[] }).ports, [{ name: 'gpu-metrics', port: 9400, targetPort: 9400, protocol: 'TCP' }]);
  });

  it('pod proxy: /metrics of the node, each GPU with its holder; the same figures as GET /__sim/usage', async () => {
    const r = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/metrics`);
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const util = samples(r.body).filter((s) => s.name === 'DCGM_FI_DEV_GPU_UTIL');
    assert.equal(util.length, 8);
    const held = util.filter((s) => s.labels.pod);
    assert.deepEqual(held.map((s) => `${s.labels.gpu}:${s.labels.pod}:${s.labels.container}:${s.labels.namespace}`).sort(), ['0:trainer-0:trainer:team-a', '1:trainer-0:trainer:team-a', '2:notebook-0:trainer:team-a']);
    assert.ok(held.filter((s) => s.labels.pod === 'trainer-0').every((s) => s.value >= 99));
    assert.equal(held.find((s) => s.labels.pod === 'notebook-0')!.value, 0);
    // Percent-encoded name:port (as client libraries send it) and the default port (the first container port).
    const encoded = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}%3A9400/proxy/metrics`);
    assert.equal(encoded.status, 200);
    const dflt = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}/proxy/metrics`);
    assert.equal(dflt.status, 200);
    const named = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:metrics/proxy/metrics`);
    assert.equal(named.status, 200);
    const gt = JSON.parse((await raw(sim, 'GET', '/__sim/usage')).body) as GroundTruth;
    const truth = gt.gpus.filter((g) => g.node === 'gpu-h100-00');
    assert.equal(truth.length, 8);
    // Same bucket (10 simulated seconds = 0.5 s here): ask both within one.
    for (let attempt = 0; ; attempt++) {
      const at = new Date(sim.now()).toISOString();
      const [m, g] = await Promise.all([raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/metrics`), raw(sim, 'GET', `/__sim/usage?at=${encodeURIComponent(at)}`)]);
      const fb = samples(m.body).filter((s) => s.name === 'DCGM_FI_DEV_FB_USED');
      const u = samples(m.body).filter((s) => s.name === 'DCGM_FI_DEV_GPU_UTIL');
      const gpus = (JSON.parse(g.body) as GroundTruth).gpus;
      const same = gpus.every((x) => u.find((s) => s.labels.gpu === String(x.gpu))?.value === x.utilization && fb.find((s) => s.labels.gpu === String(x.gpu))?.value === x.memoryUsedMiB);
      if (same) break;
      assert.ok(attempt < 5, 'exporter and ground truth agree within a bucket');
    }
    const notebook = truth.find((g) => g.pod === 'notebook-0')!;
    assert.equal(notebook.utilization, 0);
    assert.ok(notebook.memoryUsedMiB > 81559 * 0.09, 'idle but holding memory');
    assert.equal(notebook.container, 'trainer');
    assert.equal(notebook.mig, null);
  });

  it('pod proxy: 404 for other paths of the exporter, 503 for a pod not running or a port nothing listens on', async () => {
    assert.equal((await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/nope`)).status, 404);
    const health = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/health`);
    assert.deepEqual([health.status, health.body], [200, 'OK']);
    sim.store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pending-0', namespace: 'team-a' }, spec: { nodeSelector: { nowhere: 'true' }, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 9400 }] }] } });
    const pending = await raw(sim, 'GET', '/api/v1/namespaces/team-a/pods/pending-0:9400/proxy/metrics');
    assert.equal(pending.status, 503);
    const st = JSON.parse(pending.body) as { kind: string; reason: string; message: string };
    assert.deepEqual([st.kind, st.reason], ['Status', 'ServiceUnavailable']);
    assert.match(st.message, /^error trying to reach service: dial tcp/);
    const wrongPort = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9999/proxy/metrics`);
    assert.equal(wrongPort.status, 503);
    assert.match(wrongPort.body, /connection refused/);
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/team-a/pods/trainer-0:8080/proxy/')).status, 503, 'a workload pod: nothing listens in a simulated cluster');
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/gpu-operator/pods/ghost:9400/proxy/metrics')).status, 404);
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/gpu-operator/pods/a:b:c:d/proxy/metrics')).status, 400);
  });

  it('authorization: get on pods/proxy (services/proxy), per namespace, as RBAC decides it', async () => {
    const denied = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/metrics`, { token: NO_PROXY });
    assert.equal(denied.status, 403);
    assert.match(JSON.parse(denied.body).message, /cannot get resource "pods\/proxy" in API group "" in the namespace "gpu-operator"/);
    assert.equal((await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}`, { token: NO_PROXY })).status, 200, 'the pod itself is readable');
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/gpu-operator/services/nvidia-dcgm-exporter:9400/proxy/metrics', { token: NO_PROXY })).status, 403);
    assert.equal((await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/metrics`, { token: TEAM_ONLY })).status, 403);
    const post = await raw(sim, 'POST', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/metrics`, { token: NO_PROXY, body: '', contentType: 'text/plain' });
    assert.match(JSON.parse(post.body).message, /cannot create resource "pods\/proxy"/);
    assert.equal((await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/metrics`, { token: null })).status, 401);
  });

  it('service proxy: the port by number or name, a ready endpoint picked; unknown ports and no endpoints are 503', async () => {
    for (const id of ['nvidia-dcgm-exporter:9400', 'nvidia-dcgm-exporter:gpu-metrics', 'http:nvidia-dcgm-exporter:9400']) {
      const r = await raw(sim, 'GET', `/api/v1/namespaces/gpu-operator/services/${id}/proxy/metrics`);
      assert.equal(r.status, 200, id);
      assert.equal(samples(r.body).filter((s) => s.name === 'DCGM_FI_DEV_GPU_UTIL').length, 8);
    }
    const noPort = await raw(sim, 'GET', '/api/v1/namespaces/gpu-operator/services/nvidia-dcgm-exporter:9401/proxy/metrics');
    assert.equal(noPort.status, 503);
    assert.match(JSON.parse(noPort.body).message, /no service port 9401 found for service "nvidia-dcgm-exporter"/);
    // No port named "" on this Service (its only port is named): like the real server, nothing to pick.
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/gpu-operator/services/nvidia-dcgm-exporter/proxy/metrics')).status, 503);
    sim.store.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'empty', namespace: 'team-a' }, spec: { selector: { app: 'none' }, ports: [{ port: 80 }] } });
    const none = await raw(sim, 'GET', '/api/v1/namespaces/team-a/services/empty:80/proxy/');
    assert.equal(none.status, 503);
    assert.match(JSON.parse(none.body).message, /no endpoints available for service "empty"/);
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/team-a/services/ghost:80/proxy/')).status, 404);
  });

  it('service backends: the Service is created for discovery; GET with query and POST with a form body are forwarded, answers streamed back', async () => {
    sim.setServiceBackend('monitoring/prometheus-k8s:9090', backendUrl);
    const list = JSON.parse((await raw(sim, 'GET', `/api/v1/services?labelSelector=${encodeURIComponent('app.kubernetes.io/name=prometheus')}`)).body) as { items: KubeObject[] };
    assert.deepEqual(list.items.map((s) => `${s.metadata.namespace}/${s.metadata.name}`), ['monitoring/prometheus-k8s']);
    assert.deepEqual((list.items[0].spec as { ports: Array<{ name: string; port: number }> }).ports.map((p) => `${p.name}:${p.port}`), ['web:9090']);
    const get = await raw(sim, 'GET', '/api/v1/namespaces/monitoring/services/prometheus-k8s:web/proxy/api/v1/query?query=up%7Bjob%3D%22dcgm%22%7D&time=1');
    assert.equal(get.status, 200);
    assert.match(String(get.headers['content-type']), /application\/json/);
    assert.deepEqual(seen.at(-1), { method: 'GET', url: '/api/v1/query?query=up%7Bjob%3D%22dcgm%22%7D&time=1', type: undefined, body: '' });
    const post = await raw(sim, 'POST', '/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy/api/v1/query', { body: 'query=sum(DCGM_FI_DEV_GPU_UTIL)', contentType: 'application/x-www-form-urlencoded' });
    assert.equal(post.status, 200);
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/api/v1/query', type: 'application/x-www-form-urlencoded', body: 'query=sum(DCGM_FI_DEV_GPU_UTIL)' });
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy/missing')).status, 404, 'the backend status comes back');
    assert.equal(seen.some((s) => /authorization/i.test(JSON.stringify(s))), false);
    assert.equal((await raw(sim, 'GET', '/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy/api/v1/query', { token: NO_PROXY })).status, 403);
    // A backend that is down is a failed dial.
    sim.setServiceBackend('team-a/down:8080', 'http://127.0.0.1:1');
    const down = await raw(sim, 'GET', '/api/v1/namespaces/team-a/services/down:8080/proxy/');
    assert.equal(down.status, 503);
    assert.match(JSON.parse(down.body).message, /error trying to reach service: dial tcp 127\.0\.0\.1:1: connect: connection refused/);
    sim.setServiceBackend('monitoring/prometheus-k8s:9090', undefined);
    assert.equal(sim.store.get('v1', 'Service', 'monitoring', 'prometheus-k8s'), undefined, 'removed with its backend');
    assert.throws(() => sim.setServiceBackend('no-port', backendUrl), /namespace\/name:port/);
  });

  it('discovery lists pods/proxy and services/proxy', async () => {
    const list = JSON.parse((await raw(sim, 'GET', '/api/v1')).body) as { resources: Array<{ name: string; kind: string; verbs: string[] }> };
    const proxy = list.resources.find((r) => r.name === 'pods/proxy')!;
    assert.deepEqual([proxy.kind, proxy.verbs], ['PodProxyOptions', ['create', 'delete', 'get', 'patch', 'update']]);
    assert.ok(list.resources.some((r) => r.name === 'services/proxy'));
  });

  it('kubectl get --raw reads an exporter through the pod proxy', { skip: kubectlSkip }, async () => {
    const k = new Kubectl(sim.kubeconfigPath);
    const out = await k.ok(['get', '--raw', `/api/v1/namespaces/gpu-operator/pods/${exporter}:9400/proxy/metrics`]);
    assert.match(out, /^# HELP DCGM_FI_DEV_GPU_TEMP/);
    assert.equal(samples(out).filter((s) => s.name === 'DCGM_FI_DEV_GPU_UTIL' && s.labels.pod === 'trainer-0').length, 2);
    const svc = await k.ok(['get', '--raw', '/api/v1/namespaces/gpu-operator/services/nvidia-dcgm-exporter:gpu-metrics/proxy/metrics']);
    assert.match(svc, /DCGM_FI_DEV_FB_USED\{gpu="0"/);
  });
});

it('SimOptions.serviceBackends: the Service exists from the start and its port is forwarded', async () => {
  const backend = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`hello ${req.url}`);
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  const addr = backend.address();
  const sim = await startSim({ controllers: false, serviceBackends: { 'monitoring/prometheus-k8s:9090': `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` } });
  try {
    const svc = sim.store.get('v1', 'Service', 'monitoring', 'prometheus-k8s')!;
    assert.equal(svc.metadata.labels?.['app.kubernetes.io/name'], 'prometheus');
    const r = await raw(sim, 'GET', '/api/v1/namespaces/monitoring/services/prometheus-k8s:web/proxy/-/ready?x=1');
    assert.deepEqual([r.status, r.body], [200, 'hello /-/ready?x=1']);
    assert.equal(sim.store.list('v1', 'Pod', { namespace: 'gpu-operator' }).length, 0, 'no exporters on an empty cluster by default');
  } finally {
    await sim.stop();
    await new Promise<void>((r) => backend.close(() => r()));
  }
});
