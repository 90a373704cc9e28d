import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { main } from './main.ts';
import { JOBSET_DEFINITION, jobSetObjects } from '../engine/test-support.ts';

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const dir = mkdtempSync(join(tmpdir(), 'wmap-cli-'));
const defFile = join(dir, 'jobset.yaml');
writeFileSync(defFile, JOBSET_DEFINITION);
const objectsFile = join(dir, 'objects.yaml');
writeFileSync(objectsFile, jobSetObjects().map((o) => stringify(o)).join('---\n'));

test('validate: exit 0 for valid definitions, 1 with one error per line naming the field path', async () => {
  assert.equal((await run(['validate', defFile])).code, 0);
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, JOBSET_DEFINITION.replace('ownerRef: jobset', 'ownerRef: nothing').replace('podTemplateSpecPath', 'podTemplatePath'));
  const r = await run(['validate', bad]);
  assert.equal(r.code, 1);
  const lines = r.out.split('\n');
  assert.ok(lines.some((l) => l.includes('spec.structureDefinition.childComponents[0].specDefinition.podTemplatePath: unknown field')), r.out);
  const missing = await run(['validate', join(dir, 'nope.yaml')]);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no such file/);
});

test('resolve -o tree: header line with status and GPU total, then roles and pods', async () => {
  const r = await run(['resolve', '--definition', defFile, objectsFile, '-o', 'tree']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.equal(lines[0], 'JobSet default/train  Running  12 GPU');
  assert.ok(lines.some((l) => /leader \(replicatedjob\)\s+1\/1 pods/.test(l)));
  assert.ok(lines.some((l) => /worker \(replicatedjob\)\s+2\/2 pods.*per pod {2}8 GPU$/.test(l)));
  assert.equal(lines.filter((l) => l.includes('train-worker-')).length, 2);
});

test('resolve -o tree: each role shows the GPUs the tree gives it, live figures when they differ', async () => {
  const pending = join(dir, 'pending.yaml');
  writeFileSync(pending, jobSetObjects({ state: 'pending' }).map((o) => stringify(o)).join('---\n'));
  const lines = (await run(['resolve', '-d', defFile, pending])).out.split('\n');
  assert.equal(lines[0], 'JobSet default/train  Initializing  12 GPU (0 allocated, 12 requested)');
  assert.ok(lines.some((l) => /^└─ worker \(replicatedjob\).* 8 GPU \(0 allocated, 8 requested\)$/.test(l)), lines.join('\n'));
});

test('resolve -o json is the workload-tree contract', async () => {
  const r = await run(['resolve', '-d', defFile, objectsFile, '-o', 'json']);
  const tree = JSON.parse(r.out);
  for (const k of ['workload', 'definition', 'status', 'components', 'pods', 'unmatchedPods', 'gpus', 'gang', 'errors']) assert.ok(k in tree, k);
  assert.equal(tree.gpus.desired.total, 12);
  assert.deepEqual(tree.status.matched, ['Running']);
});

test('bad input: malformed objects file and unknown output give a message and exit 1, never a stack trace', async () => {
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'kind: JobSet\n  spec: [\n');
  const r = await run(['resolve', '-d', defFile, broken]);
  assert.equal(r.code, 1);
  assert.match(r.err, /line \d+/);
  assert.doesNotMatch(r.err, /at .*\.ts:\d+/);
  const fmt = await run(['resolve', '-d', defFile, objectsFile, '-o', 'xml']);
  assert.equal(fmt.code, 1);
  assert.match(fmt.err, /unknown output format "xml"/);
  const unknownCmd = await run(['frobnicate']);
  assert.equal(unknownCmd.code, 1);
});

test('validate over the catalog folder: every definition valid, fixtures and notes skipped', async () => {
  const { catalogDir } = await import('../catalog/index.ts');
  const { readdirSync } = await import('node:fs');
  const entries = readdirSync(catalogDir()).map((f) => join(catalogDir(), f));
  const r = await run(['validate', ...entries]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.err, /^\d+ valid, 0 with errors/m);
});
