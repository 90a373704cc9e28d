#!/usr/bin/env node
// Runs every suite (typecheck, lint, unit/integration tests, browser tests) and ends with one line
// `N passed, N failed` that sums them all. Exit code is non-zero when anything failed.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2); // optional suite names: typecheck lint unit e2e
const want = (name) => only.length === 0 || only.includes(name);
// The compiled CLI the tests and the browser tests' server run, (re)built when older than its sources.
await (await import('./build-cli.mjs')).buildCliIfStale({ soft: true });
const SKIP_DIRS = new Set(['node_modules', '.next', '.git', 'e2e', 'test-results', 'playwright-report', 'bench']);

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) findTests(full, out);
    else if (/\.test\.tsx?$/.test(name)) out.push(relative(root, full));
  }
  return out.sort();
}

function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: opts.stdio ?? 'inherit', env: { ...process.env, ...opts.env } });
    child.on('close', (code) => resolve(code ?? 1));
    child.on('error', (e) => { console.error(`cannot start ${cmd}: ${e.message}`); resolve(1); });
  });
}

const results = [];
const bin = (name) => join(root, 'node_modules', '.bin', name);

if (want('typecheck')) {
  console.log('\n== typecheck (tsc --noEmit)');
  const code = await run(bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']);
  results.push({ suite: 'typecheck', passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1 });
}

if (want('lint')) {
  console.log('\n== lint (eslint)');
  const code = await run(bin('eslint'), ['--max-warnings', '0', '.']);
  results.push({ suite: 'lint', passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1 });
}

/**
 * The simulated cluster's Prometheus test runs Debian's `prometheus` (2.42) against the DCGM exporters;
 * a fresh machine may not have it, so install it (as root, from Debian's packages) instead of skipping.
 */
async function ensurePrometheus() {
  const onPath = (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'prometheus')));
  if (onPath || existsSync('/usr/bin/prometheus')) return;
  console.log('prometheus is missing: installing Debian\'s prometheus (apt-get)');
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  if ((await run('apt-get', ['update'], { env })) !== 0 || (await run('apt-get', ['install', '-y', '--no-install-recommends', 'prometheus'], { env })) !== 0) {
    console.error('could not install prometheus; the Prometheus test will be skipped and say so');
  }
}

/**
 * The app's production build (.next), once, before the tests that run it: the deploy tests start the
 * server from it (and would skip or build it themselves, racing each other), the browser tests serve it.
 */
if ((want('unit') || want('e2e')) && !existsSync(join(root, '.next', 'BUILD_ID'))) {
  console.log('\n== building the app (next build), for the deploy and browser tests');
  const code = await run(bin('next'), ['build'], { env: { NEXT_TELEMETRY_DISABLED: '1' } });
  if (code !== 0) results.push({ suite: 'build', passed: 0, failed: 1 });
}

if (want('unit')) {
  await ensurePrometheus();
  const files = findTests(root);
  console.log(`\n== unit and integration tests (${files.length} files)`);
  const tmp = mkdtempSync(join(tmpdir(), 'wmap-test-'));
  const tap = join(tmp, 'report.tap');
  // Servers and clusters started by tests log at info; a test run shows only what went wrong.
  const code = await run(process.execPath, [
    '--import', 'tsx', '--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    ...files,
  ], { env: { WMAP_LOG_LEVEL: process.env.WMAP_LOG_LEVEL ?? 'error' } });
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  const count = (label) => Number(text.match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  let passed = count('pass');
  let failed = count('fail') + count('cancelled');
  if (files.length === 0 || (passed === 0 && failed === 0)) failed += 1; // running no test is a failure
  if (code !== 0 && failed === 0) failed = 1;
  rmSync(tmp, { recursive: true, force: true });
  results.push({ suite: 'unit', passed, failed, failures: tapFailures(text) });
}

/**
 * The browser tests drive Debian's Chromium; a fresh machine does not have it, so install it (as
 * root, from Debian's packages) instead of failing. No download of a browser of Playwright's own.
 */
async function ensureChromium() {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(path)) return;
  console.log(`${path} is missing: installing Debian's chromium (apt-get)`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  if ((await run('apt-get', ['update'], { env })) !== 0 || (await run('apt-get', ['install', '-y', 'chromium'], { env })) !== 0) {
    console.error('could not install chromium; the browser tests will fail and say so');
  }
}

if (want('e2e') && existsSync(join(root, 'e2e')) && readdirSync(join(root, 'e2e')).some((f) => f.endsWith('.spec.ts'))) {
  console.log('\n== browser tests (playwright, Debian chromium)');
  await ensureChromium();
  // The observability specs scrape the app with a real Prometheus.
  await ensurePrometheus();
  const tmp = mkdtempSync(join(tmpdir(), 'wmap-pw-'));
  const json = join(tmp, 'pw.json');
  const code = await run(bin('playwright'), ['test', '--reporter=list,json'], { env: { PLAYWRIGHT_JSON_OUTPUT_NAME: json } });
  let passed = 0;
  let failed = 0;
  let failures = [];
  if (existsSync(json)) {
    const report = JSON.parse(readFileSync(json, 'utf8'));
    const s = report.stats ?? {};
    passed = (s.expected ?? 0) + (s.flaky ?? 0);
    failed = s.unexpected ?? 0;
    failures = playwrightFailures(report);
  }
  if (code !== 0 && failed === 0) failed = 1;
  rmSync(tmp, { recursive: true, force: true });
  results.push({ suite: 'e2e', passed, failed, failures });
}

/**
 * The failing leaf tests of a TAP report (a parent that failed only through its subtests is left
 * out), as "name (file:line): first line of the error", so a log's tail says what failed.
 */
function tapFailures(tap) {
  const out = [];
  const lines = tap.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^(\s*)not ok \d+ - (.*)$/);
    if (!m) continue;
    const diag = {};
    for (let j = i + 1; j < lines.length && lines[j].startsWith(`${m[1]}  `); j++) {
      const d = lines[j].trim().match(/^(location|failureType|error): (.*)$/);
      // A multi-line error is a YAML block (`error: |-`) whose text starts on the next line.
      if (d && !(d[1] in diag)) diag[d[1]] = /^[|>]/.test(d[2]) ? (lines[j + 1] ?? '').trim() : d[2].replace(/^'(.*)'$/, '$1');
    }
    if (diag.failureType === 'subtestsFailed') continue;
    const where = diag.location ? ` (${relative(root, diag.location.replace(/:\d+$/, ''))})` : '';
    out.push(`${m[2]}${where}: ${(diag.error ?? diag.failureType ?? '').split('\\n')[0].slice(0, 200)}`);
  }
  return out;
}

/** The tests Playwright reports as failed (unexpected), as "file:line › title". */
function playwrightFailures(report) {
  const out = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) if (t.status === 'unexpected') out.push(`${spec.file}:${spec.line} › ${spec.title}`);
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  return out;
}

console.log('\n== summary');
for (const r of results) {
  if (!r.failures?.length) continue;
  console.log(`failed in ${r.suite}:`);
  for (const f of r.failures.slice(0, 40)) console.log(`  ${f}`);
  if (r.failures.length > 40) console.log(`  … and ${r.failures.length - 40} more`);
}
for (const r of results) console.log(`${r.suite.padEnd(10)} ${r.passed} passed, ${r.failed} failed`);
const passed = results.reduce((a, r) => a + r.passed, 0);
const failed = results.reduce((a, r) => a + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length > 0 ? 0 : 1);
