import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { main } from './main.ts';
import { JOBSET_DEFINITION, jobSetObjects } from '../engine/test-support.ts';
import { runWmap } from './run-for-tests.ts';

const run = runWmap;

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

test('validate: schema errors do not hide the others; every error once, each with its field path', async () => {
  const file = join(dir, 'four.yaml');
  writeFileSync(
    file,
    JOBSET_DEFINITION.replace('ownerRef: jobset', 'ownerRef: ghost')
      .replace(/componentInstanceSelector: \{idPath: .*\}/, 'componentInstanceSelector: {}')
      .replace("replicasPath: '.spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)'", "replicasPath: '[range(3)] | length'")
      .replace('conditionsDefinition: {path: .status.conditions,', "conditionsDefinition: {path: '.status.conditions |',"),
  );
  const r = await run(['validate', file]);
  assert.equal(r.code, 1);
  const c = 'spec.structureDefinition.childComponents[0]';
  const lines = r.out.split('\n');
  assert.deepEqual(lines.map((l) => l.split(': ').slice(0, 3).join(': ')), [
    `${file}: definition "test-jobset": ${c}.podSelector.componentInstanceSelector.idPath`,
    `${file}: definition "test-jobset": ${c}.ownerRef`,
    `${file}: definition "test-jobset": spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path`,
    `${file}: definition "test-jobset": ${c}.scaleDefinition.replicasPath`,
  ], r.out);
  assert.match(lines[0], /required field is missing/);
  assert.match(lines[1], /non-existing component "ghost"/);
  assert.match(lines[2], /failed to parse/);
  assert.match(lines[3], /'range' may produce excessive output/);
  assert.match(r.err, /^0 valid, 1 with errors/m);
});

test('validate: a YAML typo is one error at its line and column, the file named once', async () => {
  const lines = JOBSET_DEFINITION.split('\n');
  assert.equal(lines[12], '        statusMappings:');
  lines[12] = '        statusMappings';
  const file = join(dir, 'typo.yaml');
  writeFileSync(file, lines.join('\n'));
  const r = await run(['validate', file]);
  assert.equal(r.code, 1);
  assert.deepEqual(r.out.split('\n'), [`${file}: line 13, column 9: Implicit keys need to be on a single line`]);
  // in the second document of three, the line is the file's
  const multi = join(dir, 'multi.yaml');
  const second = JOBSET_DEFINITION.replace('test-jobset', 'second').split('\n');
  second[12] = '        statusMappings';
  const text = [JOBSET_DEFINITION, second.join('\n'), JOBSET_DEFINITION.replace('test-jobset', 'third')].join('---\n');
  writeFileSync(multi, text);
  const m = await run(['validate', multi]);
  assert.equal(m.code, 1);
  const at = text.split('\n').indexOf('        statusMappings') + 1;
  assert.ok(at > 50, 'in the second document');
  assert.deepEqual(m.out.split('\n'), [`${multi}#2: line ${at}, column 9: Implicit keys need to be on a single line`]);
  assert.match(m.err, /^2 valid, 1 with errors/m);
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

test('--gpu-resources chooses what counts as a GPU; a malformed list is a usage error naming the entry', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmap-gpures-'));
  const file = join(dir, 'pod.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata: {name: npu, namespace: default, uid: u1}\nspec:\n  nodeName: n1\n  containers: [{name: c, resources: {limits: {example.com/npu: "2", nvidia.com/gpu: "1"}}}]\nstatus: {phase: Running}\n');
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s) };
  assert.equal(await main(['--gpu-resources', 'example.com/npu', 'resolve', file, '-o', 'json'], io), 0, err.join('\n'));
  const tree = JSON.parse(out.join('\n'));
  assert.deepEqual(tree.gpus.allocated.byResource, { 'example.com/npu': 2 });
  out.length = 0;
  assert.equal(await main(['resolve', file, '-o', 'json'], io), 0);
  assert.deepEqual(JSON.parse(out.join('\n')).gpus.allocated.byResource, { 'nvidia.com/gpu': 1 });
  err.length = 0;
  assert.equal(await main(['--gpu-resources', 'npu', 'resolve', file], io), 1);
  assert.match(err.join('\n'), /--gpu-resources: entry 1 \("npu"\) is not a resource name/);
});
