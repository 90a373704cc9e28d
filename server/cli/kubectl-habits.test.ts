/**
 * The CLI's kubectl habits against the demo scenario, frozen so that every read sees the same cluster:
 * `get KIND` in kubectl's forms, output formats, selectors, sorting, paging, shell completion through a
 * real bash, and a reader that closes the pipe early.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { startSim, type SimHandle } from '../sim/index.ts';
import type { WorkloadRow } from '../workloads/index.ts';
import type { LiveWorkloads } from '../workloads/live.ts';
import { connectOnce } from './live-commands.ts';
import { runWmap } from './run-for-tests.ts';

const WMAP = fileURLToPath(new URL('../../bin/wmap.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wmap-habits-'));
process.env.WMAP_CACHE_DIR = join(dir, 'cache');
let sim: SimHandle;
let live: LiveWorkloads;
let reference: WorkloadRow[];
let kc: string[];

before(async () => {
  const stateFile = join(dir, 'state.json');
  const running = await startSim({ scenario: 'demo', seed: 7, stateFile });
  await new Promise((r) => setTimeout(r, 4000));
  await running.stop();
  sim = await startSim({ scenario: 'empty', controllers: false, stateFile });
  kc = ['--kubeconfig', sim.kubeconfigPath];
  ({ live } = await connectOnce({ kubeconfig: sim.kubeconfigPath }));
  reference = live.index.allRows();
  assert.ok(reference.length > 20, `the demo has workloads (${reference.length})`);
});

after(async () => {
  live?.stop();
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const names = (out: string) => out.split('\n').filter(Boolean).sort();
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
const named = (rows: WorkloadRow[]) => rows.map((r) => `${r.kind.toLowerCase()}${groupOf(r.apiVersion) ? `.${groupOf(r.apiVersion)}` : ''}/${r.name}`).sort();

test('get KIND: the workloads of one kind, named as kubectl names resources (plural, singular, kind.group, KIND/NAME, KIND NAME…)', async () => {
  const jobsets = reference.filter((r) => r.kind === 'JobSet');
  assert.ok(jobsets.length >= 2);
  for (const kind of ['jobsets', 'jobset', 'JobSet', 'jobsets.jobset.x-k8s.io']) {
    const r = await runWmap(['get', kind, '-A', '-o', 'name', ...kc]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(names(r.out), named(jobsets), kind);
  }
  const [a, b] = jobsets.filter((r) => r.namespace === jobsets[0].namespace).length >= 2 ? jobsets.filter((r) => r.namespace === jobsets[0].namespace) : [jobsets[0], jobsets[0]];
  const slashed = await runWmap(['get', `jobset/${a.name}`, `jobset/${b.name}`, '-n', a.namespace, '-o', 'name', ...kc]);
  assert.equal(slashed.code, 0, slashed.err);
  assert.deepEqual(names(slashed.out), [...new Set(named([a, b]))]);
  // The ones found are printed; each missing one is kubectl's NotFound with the resource's name, exit 1.
  const spaced = await runWmap(['get', 'jobsets', a.name, 'nope', '-n', a.namespace, '-o', 'name', ...kc]);
  assert.equal(spaced.code, 1);
  assert.deepEqual(names(spaced.out), named([a]));
  assert.equal(spaced.err, 'Error from server (NotFound): jobsets.jobset.x-k8s.io "nope" not found');
  const unknown = await runWmap(['get', 'nosuchkinds', ...kc]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /the server doesn't have a resource type "nosuchkinds"/);
  const mixed = await runWmap(['get', `jobset/${a.name}`, 'pytorchjob/x', ...kc]);
  assert.equal(mixed.code, 1);
  assert.match(mixed.err, /one kind at a time/);
  const none = await runWmap(['get', ...kc]);
  assert.equal(none.code, 1);
  assert.match(none.err, /you must specify the type of resource to get/);
});

test('get KIND lists workloads of that kind only: a Job that is part of a JobSet or a RayJob is not one', async () => {
  const jobs = reference.filter((r) => r.kind === 'Job' && r.apiVersion === 'batch/v1');
  const r = await runWmap(['get', 'jobs', '-A', '-o', 'name', ...kc]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(names(r.out), named(jobs));
  // The demo's JobSets and RayJobs own Jobs: those are not listed as workloads of their own.
  const owned = live.index.allRows().filter((x) => x.kind === 'JobSet' || x.kind === 'RayJob');
  assert.ok(owned.length > 0);
  for (const line of names(r.out)) assert.ok(!owned.some((o) => line.startsWith(`job.batch/${o.name}-`) && !jobs.some((j) => line === `job.batch/${j.name}`)), line);
});

test('output formats, selectors, sorting and paging agree with the live index', async () => {
  const all = reference.filter(() => true);
  const jsonpath = await runWmap(['get', 'workloads', '-A', '-o', 'jsonpath={.items[*].name}', ...kc]);
  assert.equal(jsonpath.code, 0, jsonpath.err);
  assert.deepEqual(jsonpath.out.split(' ').sort(), all.map((r) => r.name).sort());
  const columns = await runWmap(['get', 'workloads', '-A', '-o', 'custom-columns=NS:.namespace,NAME:.name,ALLOC:.gpus.allocated', '--no-headers', ...kc]);
  assert.equal(columns.code, 0, columns.err);
  assert.deepEqual(columns.out.split('\n').map((l) => l.trim().split(/\s+/).join(' ')).sort(), all.map((r) => `${r.namespace} ${r.name} ${r.gpus.allocated}`).sort());
  // --sort-by a JSONPath: ascending, as kubectl sorts.
  const sorted = await runWmap(['get', 'workloads', '-A', '--sort-by', '.gpus.allocated', '-o', 'custom-columns=ALLOC:.gpus.allocated', '--no-headers', ...kc]);
  const allocs = sorted.out.split('\n').map((l) => Number(l.trim()));
  assert.deepEqual(allocs, [...allocs].sort((x, y) => x - y));
  assert.equal(allocs.length, all.length);
  // Selectors: on the namespace field and on the root's labels.
  const ns = all[0].namespace;
  const fields = await runWmap(['get', 'workloads', '-A', '--field-selector', `metadata.namespace=${ns}`, '-o', 'name', ...kc]);
  assert.deepEqual(names(fields.out), named(all.filter((r) => r.namespace === ns)));
  const notNs = await runWmap(['get', 'workloads', '-A', '--field-selector', `metadata.namespace!=${ns}`, '-o', 'name', ...kc]);
  assert.deepEqual(names(notNs.out), named(all.filter((r) => r.namespace !== ns)));
  const status = await runWmap(['get', 'workloads', '-A', '--status', 'Running', '-o', 'name', ...kc]);
  assert.deepEqual(names(status.out), named(all.filter((r) => r.status === 'Running')));
  // Pages of one object (continue tokens throughout) read the same cluster as one page.
  const paged = await runWmap(['get', 'workloads', '-A', '--chunk-size', '1', '-o', 'name', ...kc]);
  const whole = await runWmap(['get', 'workloads', '-A', '--chunk-size', '0', '-o', 'name', ...kc]);
  assert.equal(paged.code, 0, paged.err);
  assert.deepEqual(names(paged.out), named(all));
  assert.deepEqual(names(whole.out), named(all));
  const bad = await runWmap(['get', 'workloads', '--chunk-size', '-3', ...kc]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--chunk-size must be a whole number/);
});

/** Runs a command without blocking this process, which serves the simulated cluster the command reads. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** Completion as bash asks for it: the script `wmap completion bash` prints, sourced in a real bash. */
async function bashComplete(line: string[]): Promise<string[]> {
  const script = (await run(process.execPath, [WMAP, 'completion', 'bash'])).out;
  const words = [WMAP, ...line].map((w) => `'${w}'`).join(' ');
  const r = await run('bash', ['-c', `${script}\nCOMP_WORDS=(${words}); COMP_CWORD=${line.length}; __wmap_complete; printf '%s\\n' "\${COMPREPLY[@]}"`], { ...process.env, KUBECONFIG: sim.kubeconfigPath });
  assert.equal(r.code, 0, r.err);
  return r.out.split('\n').filter(Boolean);
}

test('shell completion in bash: commands, get\'s kinds and names, tree\'s KIND/NAME, -o formats, namespaces', async () => {
  assert.ok((await bashComplete(['ge'])).includes('get'));
  const kinds = await bashComplete(['get', '']);
  assert.ok(kinds.includes('workloads') && kinds.includes('jobset') && kinds.includes('pytorchjob'), kinds.join(' '));
  const js = reference.find((r) => r.kind === 'JobSet')!;
  const jsNames = await bashComplete(['get', 'jobset', '-n', js.namespace, '']);
  assert.ok(jsNames.includes(js.name), `${js.name} not in ${jsNames.join(' ')}`);
  assert.ok((await bashComplete(['get', '-n', js.namespace, 'jobset/'])).includes(`jobset/${js.name}`));
  assert.ok((await bashComplete(['tree', '-n', js.namespace, 'jobset/'])).includes(`jobset/${js.name}`));
  assert.deepEqual((await bashComplete(['get', 'workloads', '-o', 'j'])).sort(), ['json', 'jsonpath=']);
  assert.ok((await bashComplete(['get', 'workloads', '-n', ''])).includes(js.namespace));
});

test('a reader that closes the pipe early ends the command quietly, as kubectl does', async () => {
  // `--version` alone answers from its own small file (bin/cli-run.cjs), so it is checked apart.
  for (const args of [['get', 'workloads', '-A', '-o', 'json', ...kc], ['--version']]) {
    const child = spawn(process.execPath, [WMAP, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // A reader gone before the first line (`| true`): every write meets a closed pipe, whatever its size.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(code, 0, `${args[0]}: ${err}`);
    assert.doesNotMatch(err, /EPIPE|Error|at /, args[0]);
  }
});

test('as a kubectl plugin: kubectl finds kubectl-wmap on the PATH, runs it with its own kubeconfig flags, and completes through kubectl_complete-wmap', async () => {
  const bin = join(dir, 'plugin-bin');
  mkdirSync(bin);
  symlinkSync(fileURLToPath(new URL('../../bin/kubectl-wmap.cjs', import.meta.url)), join(bin, 'kubectl-wmap'));
  symlinkSync(fileURLToPath(new URL('../../bin/kubectl_complete-wmap.cjs', import.meta.url)), join(bin, 'kubectl_complete-wmap'));
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, KUBECONFIG: sim.kubeconfigPath };
  const listed = await run('kubectl', ['plugin', 'list'], env);
  assert.match(listed.out, /kubectl-wmap/);
  const got = await run('kubectl', ['wmap', 'get', 'workloads', '-A', '-o', 'name'], env);
  assert.equal(got.code, 0, got.err);
  assert.deepEqual(names(got.out), named(reference));
  const missing = await run('kubectl', ['wmap', 'get', 'jobsets', 'nope'], env);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /Error from server \(NotFound\): jobsets.jobset.x-k8s.io "nope" not found/);
  const completed = await run('kubectl', ['__complete', 'wmap', 'get', ''], env);
  assert.equal(completed.code, 0, completed.err);
  assert.ok(completed.out.split('\n').some((l) => l.startsWith('workloads')), completed.out);
});

/** The build the next tests are about (scripts/build-cli.mjs defers modules in it), made current first. */
async function buildCompiled(): Promise<void> {
  const built = await run(process.execPath, [fileURLToPath(new URL('../../scripts/build-cli.mjs', import.meta.url))]);
  assert.equal(built.code, 0, built.err);
}

test('the compiled CLI leaves out of a quiet read the built-in modules it does not use: no child_process, no worker threads (pino), no zlib, no assert', async () => {
  await buildCompiled();
  // Node's own record of the built-in modules the process loaded.
  const probe = join(dir, 'loaded-probe.cjs');
  writeFileSync(probe, "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n");
  const r = await run(process.execPath, ['--require', probe, WMAP, 'get', 'workloads', '-A', ...kc], { ...process.env, WMAP_CLI: 'compiled', WMAP_LOG_LEVEL: 'warn' });
  assert.equal(r.code, 0, r.err);
  assert.ok(r.out.split('\n').length > 20, r.out);
  const line = r.err.split('\n').find((l) => l.startsWith('LOADED '));
  assert.ok(line, r.err);
  const loaded = new Set((JSON.parse(line.slice('LOADED '.length)) as string[]).filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)));
  for (const m of ['child_process', 'worker_threads', 'zlib', 'assert']) assert.ok(!loaded.has(m), `${m} loaded by a quiet get`);
  // The same read with a log line written (utilization is read for -o name): pino loads then.
  const loud = await run(process.execPath, ['--require', probe, WMAP, 'get', 'workloads', '-A', '-o', 'name', ...kc], { ...process.env, WMAP_CLI: 'compiled', WMAP_LOG_LEVEL: 'debug', WMAP_LOG_FORMAT: 'json' });
  assert.equal(loud.code, 0, loud.err);
  const loudLine = loud.err.split('\n').find((l) => l.startsWith('LOADED '))!;
  assert.ok(JSON.parse(loudLine.slice('LOADED '.length)).includes('NativeModule worker_threads'), 'pino (thread-stream) loads for a log line');
});

test('the compiled CLI loads what it defers once a command uses it: CEL and RE2 for a query, pino for a log line, child_process for an exec credential plugin', async () => {
  await buildCompiled();
  // The sim's kubeconfig with its token from an exec plugin, which leaves a mark that it ran.
  const config = parse(readFileSync(sim.kubeconfigPath, 'utf8')) as { users: Array<{ user: Record<string, unknown> }> };
  const token = config.users[0].user.token as string;
  const mark = join(dir, 'exec-ran');
  const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token } });
  config.users[0].user = {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      command: process.execPath,
      args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(mark)}, 'ran'); process.stdout.write(${JSON.stringify(credential)})`],
      interactiveMode: 'Never',
    },
  };
  const kubeconfig = join(dir, 'exec-kubeconfig');
  writeFileSync(kubeconfig, stringify(config));
  const js = reference.find((r) => r.kind === 'JobSet')!;
  const env = { ...process.env, WMAP_CLI: 'compiled', WMAP_LOG_LEVEL: 'debug', WMAP_LOG_FORMAT: 'json', KUBECONFIG: kubeconfig };
  const r = await run(process.execPath, [WMAP, 'get', 'workloads', '-A', '--query', `cel=name.matches("^${js.name}$") && kind == "JobSet"`, '-o', 'name'], env);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(names(r.out), named(reference.filter((w) => w.kind === 'JobSet' && w.name === js.name)));
  assert.ok(existsSync(mark), 'the exec plugin ran');
  // pino's JSON lines, each with its component.
  const lines = r.err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { component?: string; level?: number });
  assert.ok(lines.length > 0 && lines.every((l) => typeof l.component === 'string' && typeof l.level === 'number'), r.err);
  // A CEL error still names itself through the deferred cel-js.
  const bad = await run(process.execPath, [WMAP, 'get', 'workloads', '-A', '--no-usage', '--query', 'cel=name.nope(', '-o', 'name'], env);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--query: cel: /);
});
