/**
 * The server as it runs in the pod deploy/ describes, against the simulated cluster:
 * `kubectl apply -k deploy/`, then `wmap serve` with the Deployment's own arguments and environment,
 * no kubeconfig at all, the service account's token (from TokenRequest, `kubectl create token`)
 * and the cluster CA in a directory standing in for /var/run/secrets/kubernetes.io/serviceaccount,
 * and KUBERNETES_SERVICE_HOST/PORT pointing at the cluster. What authorizes the server is the
 * ClusterRole just applied (the simulator's demo identities, which bring their own workload-map
 * account and roles, are off). A user signs in with their own token (shared mode) and gets rows
 * whose GPU totals are the pods' own, the cluster's utilization through the service proxy to its
 * Prometheus (when the binary is there), and a kind the ClusterRole does not grant is reported as
 * forbidden (so what depends on it is unknown, never 0).
 *
 * Differences from the pod, on purpose: the server binds 127.0.0.1 on a free port (not 0.0.0.0:3000)
 * and so is given --shared (in a pod, binding beyond loopback makes it shared); the service account
 * directory is WMAP_SERVICE_ACCOUNT_DIR (a test cannot write to /var/run/secrets).
 * Needs the app built (.next/BUILD_ID); when it is missing the test builds it first, as `npm start` does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterInfo, WorkloadPage } from '../contract/index.ts';
import { startPrometheus, startSim, type KubeObject, type PrometheusHandle, type SimHandle } from '../server/sim/index.ts';
import { thingKarta } from '../server/workloads/test-karta.ts';
import { DEPLOY, GPU, Kubectl, ROOT, freePort, groundTruth, kubectlSkip, kustomizationObjects, probe, sumRows, until, type Manifest } from './test-support.ts';

const USER_TOKEN = `dana-${Math.random().toString(36).slice(2)}-token`;

interface Container { args?: string[]; env?: Array<{ name: string; value?: string }> }
const deployment = kustomizationObjects(join(DEPLOY, 'base')).find((o) => o.kind === 'Deployment') as Manifest & { spec: { template: { spec: { containers: Container[] } } } };

/** The Deployment's arguments with the bind address and port replaced. */
function podArgs(host: string, port: number): string[] {
  const args = [...(deployment.spec.template.spec.containers[0].args ?? [])];
  const at = (flag: string) => {
    const i = args.indexOf(flag);
    assert.ok(i >= 0, `the Deployment passes ${flag}`);
    return i + 1;
  };
  args[at('--host')] = host;
  args[at('--port')] = String(port);
  return args;
}

function podEnv(): Record<string, string> {
  return Object.fromEntries((deployment.spec.template.spec.containers[0].env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]));
}

describe('the server in the pod deploy/ describes', { skip: kubectlSkip, timeout: 600_000 }, () => {
  let sim: SimHandle;
  let prometheus: PrometheusHandle | null = null;
  let k: Kubectl;
  let server: ChildProcess | null = null;
  let base = '';
  let stderr = '';
  const dir = mkdtempSync(join(tmpdir(), 'wmap-in-cluster-'));
  const saDir = join(dir, 'serviceaccount');
  const home = join(dir, 'home');

  const get = async <T>(path: string, token: string | null = USER_TOKEN): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(20_000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body: body as T };
  };

  before(async () => {
    if (!existsSync(join(ROOT, '.next', 'BUILD_ID'))) {
      // As `npm start` does on a first start: the server needs the built app.
      const b = spawnSync(join(ROOT, 'node_modules', '.bin', 'next'), ['build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
      assert.equal(b.status, 0, 'next build failed');
    }
    sim = await startSim({ scenario: 'demo', identities: false, seed: 7, staticTokens: [{ token: USER_TOKEN, user: 'dana', uid: 'dana', groups: ['sre'] }] });
    // dana may read everything (what the rows she is shown depend on is her access, not the server's).
    sim.store.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'read-everything' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }] } as KubeObject);
    sim.store.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'dana-reads' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'read-everything' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dana' }] } as KubeObject);
    if (existsSync('/usr/bin/prometheus') || (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'prometheus')))) {
      // A real Prometheus scraping the DCGM exporters, found by the server as Service monitoring/prometheus-k8s.
      prometheus = await startPrometheus({ sim, scrapeIntervalSeconds: 2 });
    }
    k = new Kubectl(sim.kubeconfigPath);
    await k.ok(['apply', '-k', 'deploy/']);

    // What the kubelet mounts: a token of the pod's service account, the cluster CA, the namespace.
    const token = (await k.ok(['create', 'token', 'workload-map', '-n', 'workload-map', '--duration=1h'])).trim();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(saDir, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(saDir, 'token'), token);
    writeFileSync(join(saDir, 'ca.crt'), sim.caPem ?? '');
    writeFileSync(join(saDir, 'namespace'), 'workload-map');

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    for (const [key, v] of Object.entries(process.env)) if (v !== undefined && key !== 'KUBECONFIG' && !key.startsWith('WMAP_')) env[key] = v;
    const simUrl = new URL(sim.url);
    Object.assign(env, podEnv(), {
      HOME: home,
      KUBERNETES_SERVICE_HOST: simUrl.hostname,
      KUBERNETES_SERVICE_PORT: simUrl.port,
      WMAP_SERVICE_ACCOUNT_DIR: saDir,
      WMAP_LOG_LEVEL: 'warn',
      // Utilization refreshed often, so the test need not wait for the default interval.
      WMAP_USAGE_INTERVAL: '2s',
    });
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'wmap.cjs'), 'serve', ...podArgs('127.0.0.1', port), '--shared'], { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    server = child;
    child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-20_000); });
    await until('the server to answer', async () => {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${stderr}`);
      return (await get<ClusterInfo[]>('/api/clusters')).status === 200;
    }, 180_000, 500);
  });

  after(async () => {
    if (server && server.exitCode === null) {
      const gone = new Promise((ok) => server!.once('exit', ok));
      server.kill('SIGTERM');
      await Promise.race([gone, new Promise((ok) => setTimeout(ok, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    await prometheus?.stop();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the Deployment\'s probes as the kubelet sends them (pod IP as Host, no credentials)', async () => {
    const port = Number(new URL(base).port);
    assert.equal((await probe(port, '/healthz')).status, 200);
    const ready = await until('/readyz 200', async () => ((await probe(port, '/readyz')).status === 200 ? true : undefined), 60_000);
    assert.ok(ready);
  });

  it('is in shared mode: no credentials, no rows', async () => {
    assert.equal((await get('/api/workloads', null)).status, 401);
    assert.equal((await get('/api/workloads', 'not-a-token')).status, 401);
  });

  it('connects as the in-cluster service account: every watched kind listed, none forbidden', async () => {
    const clusters = await until('the cluster synced', async () => {
      const c = (await get<ClusterInfo[]>('/api/clusters')).body;
      return c.length === 1 && c[0].synced && c[0].state === 'connected' ? c : undefined;
    }, 60_000);
    const c = clusters[0];
    assert.equal(c.name, 'in-cluster');
    assert.equal(c.server, sim.url);
    assert.deepEqual(c.forbiddenKinds, [], `the ClusterRole lacks: ${c.forbiddenKinds.join(', ')}`);
    assert.deepEqual(c.failingKinds, []);
    for (const kind of ['pods', 'nodes', 'jobsets.jobset.x-k8s.io', 'daemonsets.apps', 'kartas.run.ai']) assert.ok(c.watchedKinds.includes(kind), `${kind} in ${c.watchedKinds.join(', ')}`);
  });

  it('serves rows whose GPU totals are the cluster\'s own', async () => {
    const { page, truth } = await until('rows that add up to the pods\' GPUs', async () => {
      const p = (await get<WorkloadPage>('/api/workloads?limit=5000')).body;
      const t = groundTruth(sim);
      return p.rows.length > 0 && sumRows(p.rows, 'allocated') === t.allocated && sumRows(p.rows, 'requested') === t.requested ? { page: p, truth: t } : undefined;
    }, 60_000, 500);
    assert.ok(truth.allocated > 0, 'the demo has GPUs allocated');
    assert.equal(page.total, page.rows.length);
    const llama = page.rows.find((r) => r.id === 'in-cluster/team-llm/JobSet.jobset.x-k8s.io/llama-finetune');
    assert.ok(llama, 'the demo JobSet is a row of the in-cluster cluster');
    assert.ok(llama.gpus.allocated > 0);
    assert.ok(page.rows.every((r) => r.stale === null && !r.pods.unknown), 'no row is stale or has unknown pods');
  });

  it('reads utilization through the API server (the service proxy to Prometheus when there is one)', async () => {
    const usage = await until('utilization readings', async () => {
      const u = (await get<ClusterInfo[]>('/api/clusters')).body[0]?.usage;
      return u && u.at && !u.error && (u.coverage.withMetrics ?? 0) > 0 && (!prometheus || u.source === 'prometheus') ? u : undefined;
    }, 90_000, 1000);
    if (prometheus) {
      assert.equal(usage.source, 'prometheus');
      assert.match(usage.detail, /service monitoring\/prometheus-k8s:web \(API server proxy\)/);
    } else {
      // Without the prometheus binary: the DCGM exporter pods through the pod proxy.
      assert.equal(usage.source, 'exporters');
    }
  });

  it('a kind a cluster definition names that the ClusterRole does not grant is forbidden; its pods still count', async () => {
    // A definition registered in the cluster for a kind of another API group (README: add it to the role).
    await k.ok(['apply', '-f', writeTemp(dir, 'thing-crd.yaml', thingCrd())]);
    await k.ok(['apply', '-f', writeTemp(dir, 'thing-karta.yaml', thingKarta('thing'))]);
    const c = await until('the Thing kind reported forbidden', async () => {
      const info = (await get<ClusterInfo[]>('/api/clusters')).body[0];
      return info.forbiddenKinds.includes('things.example.com') ? info : undefined;
    }, 60_000, 500);
    assert.deepEqual(c.forbiddenKinds, ['things.example.com']);
    const thing = sim.store.create({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'th', namespace: 'default' }, spec: { replicas: 1 } } as KubeObject);
    sim.store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'th-0', namespace: 'default', labels: { role: 'worker' }, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Thing', name: 'th', uid: thing.metadata.uid!, controller: true }] }, spec: { containers: [{ name: 'm', image: 'x', resources: { limits: { [GPU]: '1' } } }] } } as KubeObject);
    // Every live pod belongs to exactly one row, readable owner or not: the GPU is counted, once.
    await until('the Thing\'s pod counted', async () => {
      const p = (await get<WorkloadPage>('/api/workloads?limit=5000')).body;
      const t = groundTruth(sim);
      return p.rows.some((r) => r.name === 'th-0' && r.gpus.allocated === 1) && sumRows(p.rows, 'allocated') === t.allocated ? p : undefined;
    }, 30_000, 500);
  });

  it('the row of a pod whose owner kind is forbidden says its owner cannot be read (not that it is absent)', async () => {
    const p = (await get<WorkloadPage>('/api/workloads?limit=5000')).body;
    const row = p.rows.find((r) => r.name === 'th-0');
    assert.ok(row);
    assert.match(row.ownership.broken ?? '', /^its owner Thing th \(example\.com\/v1\) cannot be read \(things\.example\.com: .*forbidden/, JSON.stringify(row.ownership));
    assert.equal(row.gpus.allocated, 1, 'its GPU is still counted');
  });
});

function writeTemp(dir: string, name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

function thingCrd(): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {} } }],
    },
  });
}
