/**
 * The container image definition (deploy/image/Containerfile), without a container engine (so that
 * `npm test` needs neither podman nor the network; deploy/image/podman.check.ts builds and runs the
 * real image, outside `npm test`):
 * - its properties: two stages, the build one with every dependency and `next build`, the runtime
 *   one with `npm ci --omit=dev` only and the build's output; a numeric non-root USER equal to the
 *   Deployment's; EXPOSE, ENTRYPOINT and CMD matching the Deployment's port and args; the writable
 *   folders the Deployment mounts; the two ignore files alike;
 * - its runtime file set reproduced in a temporary folder (the runtime stage's COPY list, read from
 *   the Containerfile, and only the packages `npm ci --omit=dev` installs, read from the lockfile,
 *   hard-linked from this tree), the server started from there as the image's user with everything
 *   but the folders the Deployment makes writable read-only to it, and answering.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEPLOY, ROOT, freePort, kustomizationObjects, probe, until, type Manifest } from '../test-support.ts';

interface Instruction { op: string; args: string; stage: string }

/** The Containerfile's instructions (continuation lines joined, comments dropped), each with its stage. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = '';
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const l of lines) {
    const m = /^(\w+)\s+(.*)$/.exec(l);
    if (!m) continue;
    const op = m[1].toUpperCase();
    if (op === 'FROM') stage = /\sAS\s+(\S+)/i.exec(m[2])?.[1] ?? `stage${out.length}`;
    out.push({ op, args: m[2].replace(/\s+/g, ' '), stage });
  }
  return out;
}

const file = readFileSync(join(DEPLOY, 'image', 'Containerfile'), 'utf8');
const all = instructions(file);
const runtime = all.filter((i) => i.stage === 'runtime');
const build = all.filter((i) => i.stage === 'build');
interface Container { args?: string[]; ports?: Array<{ containerPort: number }>; volumeMounts?: Array<{ mountPath: string }> }
const deployment = kustomizationObjects(join(DEPLOY, 'base')).find((o) => o.kind === 'Deployment') as Manifest & { spec: { template: { spec: { securityContext?: { runAsUser?: number; runAsGroup?: number }; containers: Container[] } } } };
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const one = (op: string) => {
  const found = runtime.filter((i) => i.op === op);
  assert.equal(found.length, 1, `one ${op} in the runtime stage`);
  return found[0].args;
};

describe('the Containerfile', () => {
  it('has a build stage and a runtime stage, the runtime one last', () => {
    const froms = all.filter((i) => i.op === 'FROM');
    assert.deepEqual(froms.map((f) => f.stage), ['build', 'runtime']);
    assert.equal(all.at(-1)?.stage, 'runtime');
  });

  it('builds with every dependency; the runtime stage installs production dependencies only', () => {
    const buildRuns = build.filter((i) => i.op === 'RUN').map((i) => i.args);
    assert.ok(buildRuns.some((r) => /\bnpm ci\b/.test(r) && !/--omit=dev/.test(r)), 'npm ci in the build stage');
    assert.ok(buildRuns.some((r) => /next build/.test(r)), 'next build in the build stage');
    const runs = runtime.filter((i) => i.op === 'RUN').map((i) => i.args);
    const installs = runs.filter((r) => /\bnpm (ci|install|i)\b/.test(r));
    assert.equal(installs.length, 1, runs.join('\n'));
    assert.match(installs[0], /\bnpm ci --omit=dev\b/);
    // An install before the sources are copied cannot run the package's own `prepare` (the CLI build
    // needs scripts/): every npm ci skips scripts, and the build stage builds the CLI itself.
    for (const r of [...buildRuns, ...runs].filter((x) => /\bnpm ci\b/.test(x))) assert.match(r, /--ignore-scripts\b/, r);
    assert.ok(buildRuns.some((r) => /scripts\/build-cli\.mjs/.test(r)), 'the build stage builds the CLI');
    // Nothing from the build stage's node_modules (its dev dependencies) reaches the runtime stage.
    const copies = runtime.filter((i) => i.op === 'COPY').map((i) => i.args);
    assert.ok(copies.some((c) => c.startsWith('--from=build /app/.next ')), 'the .next build output is copied');
    assert.ok(!copies.some((c) => /node_modules/.test(c) || /--from=build \/app\/? /.test(c) || /--from=build \/app\/?\.?$/.test(c)), copies.join('\n'));
    assert.match(one('ENV'), /NODE_ENV=production/);
  });

  it('runs as a numeric non-root user, the Deployment\'s', () => {
    const user = one('USER');
    const [uid, gid] = user.split(':').map(Number);
    assert.ok(uid > 0 && gid > 0, user);
    assert.equal(uid, pod.securityContext?.runAsUser);
    assert.equal(gid, pod.securityContext?.runAsGroup);
    // USER comes before the entrypoint, after the last RUN (which needs root to prepare the folders).
    const idx = (op: string) => all.findIndex((i) => i.stage === 'runtime' && i.op === op);
    assert.ok(idx('USER') > all.map((i) => i.stage === 'runtime' && i.op === 'RUN').lastIndexOf(true));
    assert.ok(idx('USER') < idx('ENTRYPOINT'));
  });

  it('exposes the Deployment\'s port and runs `wmap serve` with the Deployment\'s args as CMD', () => {
    assert.equal(Number(one('EXPOSE')), container.ports?.[0]?.containerPort);
    assert.deepEqual(JSON.parse(one('ENTRYPOINT')), ['node', 'bin/wmap.cjs', 'serve']);
    assert.ok(existsSync(join(ROOT, 'bin', 'wmap.cjs')));
    assert.deepEqual(JSON.parse(one('CMD')), container.args);
  });

  it('prepares, for its user, exactly the writable folders the Deployment mounts', () => {
    const prepare = runtime.filter((i) => i.op === 'RUN').map((i) => i.args).join(' ');
    const mounts = (container.volumeMounts ?? []).map((m) => m.mountPath).sort();
    assert.deepEqual(mounts, ['/app/.next/cache', '/app/.wmap', '/tmp']);
    assert.match(prepare, /mkdir -p \.wmap \.next\/cache/);
    assert.match(prepare, /chown 10001:10001 \.wmap \.next\/cache/);
    assert.equal(one('WORKDIR'), '/app');
  });

  it('copies only paths the repository has (or the build stage makes), and ignores what the build must not see', () => {
    for (const c of runtime.filter((i) => i.op === 'COPY' && i.args.startsWith('--from=build'))) {
      const srcs = c.args.split(' ').slice(1, -1).map((s) => s.replace(/^\/app\//, ''));
      for (const s of srcs) if (s !== '.next' && s !== 'dist') assert.ok(existsSync(join(ROOT, s)), s);
    }
    const entries = (f: string) => readFileSync(join(DEPLOY, 'image', f), 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    assert.deepEqual(entries('containerignore'), entries('Containerfile.dockerignore'));
    for (const e of ['node_modules', '.next', '.git', '.wmap', 'dist']) assert.ok(entries('containerignore').includes(e), e);
  });
});

/** The packages `npm ci --omit=dev` installs: the lockfile's entries not marked dev (devOptional ones are kept as optional). */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { lockfileVersion: number; packages: Record<string, { dev?: boolean }> };
  assert.ok(lock.lockfileVersion >= 2);
  return Object.entries(lock.packages).filter(([k, v]) => k.startsWith('node_modules/') && !v.dev).map(([k]) => k);
}

describe('the runtime stage\'s files, reproduced here', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmap-image-files-'));
  const app = join(dir, 'app');
  let server: ChildProcess | null = null;
  let stderr = '';

  after(async () => {
    if (server && server.exitCode === null) {
      const gone = new Promise((ok) => server!.once('exit', ok));
      server.kill('SIGTERM');
      await Promise.race([gone, new Promise((ok) => setTimeout(ok, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('start the server as the image\'s user, with only production dependencies', { skip: existsSync(join(ROOT, '.next', 'BUILD_ID')) ? false : 'the app is not built (.next/BUILD_ID): deploy/in-cluster.test.ts builds it, or npm start' }, async (t) => {
    mkdirSync(app, { recursive: true });
    const link = (rel: string) => {
      const from = join(ROOT, rel);
      if (!existsSync(from)) return false;
      mkdirSync(dirname(join(app, rel)), { recursive: true });
      // Hard links: the same bytes without copying 600 MB (the tree and /tmp share a filesystem here;
      // cpSync falls back to copying where they do not).
      const r = spawnSync('cp', ['-al', from, join(app, rel)]);
      if (r.status !== 0) cpSync(from, join(app, rel), { recursive: true });
      return true;
    };
    for (const f of ['package.json', 'package-lock.json']) link(f);
    let packages = 0;
    for (const p of productionPackages()) if (link(p)) packages++;
    // The runtime stage's own COPY list, as the Containerfile says.
    for (const c of runtime.filter((i) => i.op === 'COPY' && i.args.startsWith('--from=build'))) {
      for (const s of c.args.split(' ').slice(1, -1)) link(s.replace(/^\/app\//, ''));
    }
    rmSync(join(app, '.next', 'cache'), { recursive: true, force: true });
    assert.ok(!existsSync(join(app, 'node_modules', 'typescript')) && !existsSync(join(app, 'node_modules', 'eslint')), 'no dev dependency');
    assert.ok(existsSync(join(app, 'node_modules', 'next')) && existsSync(join(app, 'node_modules', 'tsx')));
    t.diagnostic(`${packages} production packages`);

    // What the image prepares for its user; everything else stays root's, read-only to it.
    const writable = [join(app, '.wmap'), join(app, '.next', 'cache'), join(dir, 'tmp'), join(dir, 'home')];
    const asRoot = process.getuid?.() === 0;
    for (const w of writable) {
      mkdirSync(w, { recursive: true });
      if (asRoot) chownSync(w, 10001, 10001);
    }
    for (const d of [dir, app]) chmodSync(d, 0o755);
    const port = await freePort();
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(dir, 'home'), TMPDIR: join(dir, 'tmp'), NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', WMAP_DEMO_PROMETHEUS: 'off', WMAP_LOG_LEVEL: 'warn' };
    // No kubeconfig and no service account: the server starts its embedded demo cluster.
    const cmd = ['node', 'bin/wmap.cjs', 'serve', '--host', '127.0.0.1', '--port', String(port)];
    if (!asRoot) t.diagnostic('not root: the server runs as this user, so the tree is not read-only to it');
    const child = asRoot
      ? spawn('setpriv', ['--reuid=10001', '--regid=10001', '--clear-groups', process.execPath, ...cmd.slice(1)], { cwd: app, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(process.execPath, cmd.slice(1), { cwd: app, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    server = child;
    child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-20_000); });
    await until('the server from the runtime files to be ready', async () => {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${stderr}`);
      return (await probe(port, '/readyz', `127.0.0.1:${port}`)).status === 200;
    }, 150_000, 500);
    const rows = await until('demo rows', async () => {
      const r = await fetch(`http://127.0.0.1:${port}/api/workloads`, { signal: AbortSignal.timeout(10_000) });
      const body = (await r.json()) as { rows?: unknown[] };
      return r.status === 200 && (body.rows?.length ?? 0) > 0 ? body.rows : undefined;
    }, 30_000, 500);
    assert.ok(rows && rows.length > 0);
    // The page too: the .next build output is all the dashboard needs.
    const page = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(20_000) });
    assert.equal(page.status, 200);
  });
});
