/**
 * NOT PART OF `npm test` (it needs podman, root, Debian's mirror and the npm registry, and takes
 * minutes): builds the image (deploy/image/build-image.sh: a debootstrap base plus this machine's
 * Node 20, then the Containerfile) and runs it as the pod would, against the simulated cluster:
 *
 *   node --import tsx --test deploy/image/podman.check.ts
 *
 * Installs podman, runc and debootstrap with apt-get when they are missing (and says so). Reuses an
 * existing localhost/workload-map:0.1.0 unless WMAP_IMAGE_REBUILD=1.
 *
 * The container: the image's own entrypoint and user (10001), `--read-only` root with tmpfs where
 * the Deployment has emptyDirs, the service account token and CA mounted at the real
 * /var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST/PORT, the Deployment's env,
 * no kubeconfig. Host networking (the simulated cluster is on this machine's loopback), so it binds
 * 127.0.0.1 on a free port instead of 0.0.0.0:3000 — and is given no --shared: finding the service
 * account must turn shared mode on by itself. runc with cgroupfs and explicit ulimits, because crun
 * cannot run on this machine's hybrid cgroups.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterInfo, WorkloadPage } from '../../contract/index.ts';
import { startSim, type KubeObject, type SimHandle } from '../../server/sim/index.ts';
import { DEPLOY, Kubectl, ROOT, freePort, groundTruth, kustomizationObjects, probe, sumRows, until, type Manifest } from '../test-support.ts';

const IMAGE = process.env.WMAP_IMAGE ?? 'localhost/workload-map:0.1.0';
const USER_TOKEN = `erin-${Math.random().toString(36).slice(2)}`;
const NAME = `wmap-check-${process.pid}`;

function sh(cmd: string, args: string[], timeoutMs = 60_000): Promise<{ code: number; out: string; err: string }> {
  return new Promise((ok) => {
    execFile(cmd, args, { cwd: ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (e, out, err) => ok({ code: e ? (typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1) : 0, out, err }));
  });
}

function ensurePackages(): void {
  const missing = [['podman', '/usr/bin/podman'], ['runc', '/usr/sbin/runc'], ['debootstrap', '/usr/sbin/debootstrap']].filter(([, p]) => !existsSync(p)).map(([n]) => n);
  if (missing.length === 0) return;
  console.warn(`installing ${missing.join(', ')} with apt-get (needed to build and run the image)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  assert.equal(spawnSync('apt-get', ['update'], { stdio: 'inherit', env }).status, 0, 'apt-get update');
  assert.equal(spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing, 'uidmap', 'fuse-overlayfs'], { stdio: 'inherit', env }).status, 0, `apt-get install ${missing.join(' ')}`);
}

const podman = (args: string[], timeoutMs?: number) => sh('podman', ['--runtime', 'runc', '--cgroup-manager=cgroupfs', ...args], timeoutMs);

interface Container { args?: string[]; env?: Array<{ name: string; value?: string }> }
const deployment = kustomizationObjects(join(DEPLOY, 'base')).find((o) => o.kind === 'Deployment') as Manifest & { spec: { template: { spec: { containers: Container[] } } } };

describe(`the image ${IMAGE}, run as the pod`, { timeout: 900_000 }, () => {
  let sim: SimHandle;
  let base = '';
  const dir = mkdtempSync(join(tmpdir(), 'wmap-podman-'));
  const saDir = join(dir, 'serviceaccount');
  const get = async <T>(path: string, token: string | null = USER_TOKEN) => {
    const res = await fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(20_000) });
    const text = await res.text();
    return { status: res.status, body: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as T };
  };

  before(async () => {
    ensurePackages();
    if (process.env.WMAP_IMAGE_REBUILD === '1' || (await podman(['image', 'exists', IMAGE])).code !== 0) {
      console.warn(`building ${IMAGE} (deploy/image/build-image.sh; minutes)`);
      assert.equal(spawnSync(join(DEPLOY, 'image', 'build-image.sh'), [IMAGE], { cwd: ROOT, stdio: 'inherit' }).status, 0, 'the image build failed');
    }
    sim = await startSim({ scenario: 'demo', identities: false, seed: 7, staticTokens: [{ token: USER_TOKEN, user: 'erin', uid: 'erin', groups: ['sre'] }] });
    sim.store.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'read-everything' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }] } as KubeObject);
    sim.store.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'erin-reads' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'read-everything' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'erin' }] } as KubeObject);
    const k = new Kubectl(sim.kubeconfigPath);
    await k.ok(['apply', '-k', 'deploy/']);
    const token = (await k.ok(['create', 'token', 'workload-map', '-n', 'workload-map'])).trim();
    mkdirSync(saDir, { recursive: true });
    writeFileSync(join(saDir, 'token'), token);
    writeFileSync(join(saDir, 'ca.crt'), sim.caPem ?? '');
    writeFileSync(join(saDir, 'namespace'), 'workload-map');
    // The container's user (10001) reads them, as the kubelet's projected volume lets it.
    for (const p of [dir, saDir]) chmodSync(p, 0o755);

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const simUrl = new URL(sim.url);
    const c = deployment.spec.template.spec.containers[0];
    const env = (c.env ?? []).filter((e) => e.value !== undefined).flatMap((e) => ['--env', `${e.name}=${e.value}`]);
    const args = [...(c.args ?? [])];
    args[args.indexOf('--host') + 1] = '127.0.0.1';
    args[args.indexOf('--port') + 1] = String(port);
    const run = await podman([
      'run', '-d', '--name', NAME, '--network=host', '--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096',
      '--read-only', '--tmpfs', '/tmp', '--tmpfs', '/app/.wmap:mode=1777', '--tmpfs', '/app/.next/cache:mode=1777',
      '--volume', `${saDir}:/var/run/secrets/kubernetes.io/serviceaccount:ro`,
      '--env', `KUBERNETES_SERVICE_HOST=${simUrl.hostname}`, '--env', `KUBERNETES_SERVICE_PORT=${simUrl.port}`, ...env, '--env', 'WMAP_LOG_LEVEL=warn',
      IMAGE, ...args,
    ]);
    assert.equal(run.code, 0, `podman run: ${run.err}`);
    await until('the container to answer', async () => {
      const s = await podman(['inspect', '--format', '{{.State.Running}}', NAME]);
      if (s.out.trim() !== 'true') throw new Error(`the container stopped: ${(await podman(['logs', NAME])).err}`);
      return (await get('/api/clusters')).status === 200;
    }, 180_000, 1000);
  });

  after(async () => {
    const logs = await podman(['logs', NAME]);
    if (logs.err.trim()) console.warn(`container log (stderr, last lines):\n${logs.err.split('\n').slice(-20).join('\n')}`);
    await podman(['rm', '-f', '-t', '5', NAME], 60_000);
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs as the image\'s non-root user on a read-only root filesystem', async () => {
    assert.equal((await podman(['exec', NAME, 'id', '-u'])).out.trim(), '10001');
    const w = await podman(['exec', NAME, 'sh', '-c', 'touch /app/x 2>&1; echo $?']);
    assert.notEqual(w.out.trim().split('\n').at(-1), '0', 'the root filesystem is read-only');
  });

  it('answers the Deployment\'s probes as the kubelet sends them', async () => {
    const port = Number(new URL(base).port);
    assert.equal((await probe(port, '/healthz')).status, 200);
    await until('/readyz 200', async () => ((await probe(port, '/readyz')).status === 200 ? true : undefined), 60_000);
  });

  it('finds the service account on its own, so it is in shared mode (no credentials: 401)', async () => {
    assert.equal((await get('/api/workloads', null)).status, 401);
  });

  it('serves the cluster\'s rows with its GPU totals, as the service account (nothing forbidden)', async () => {
    const info = await until('synced', async () => {
      const c = (await get<ClusterInfo[]>('/api/clusters')).body;
      return c[0]?.synced ? c[0] : undefined;
    }, 60_000);
    assert.equal(info.name, 'in-cluster');
    assert.deepEqual(info.forbiddenKinds, []);
    const truth = await until('rows adding up to the pods\' GPUs', async () => {
      const p = (await get<WorkloadPage>('/api/workloads?limit=5000')).body;
      const t = groundTruth(sim);
      return p.rows.length > 0 && sumRows(p.rows, 'allocated') === t.allocated && sumRows(p.rows, 'requested') === t.requested ? t : undefined;
    }, 60_000, 500);
    assert.ok(truth.allocated > 0);
  });
});
