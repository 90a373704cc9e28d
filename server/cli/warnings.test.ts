import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { reportTreeProblems } from './render-tree.ts';
import { JOBSET_DEFINITION, jobSetObjects } from '../engine/test-support.ts';
import type { WorkloadTree } from '../engine/index.ts';
import { runWmap } from './run-for-tests.ts';

const run = runWmap;

const dir = mkdtempSync(join(tmpdir(), 'wmap-cli-warnings-'));
const objectsFile = join(dir, 'objects.yaml');
writeFileSync(objectsFile, jobSetObjects().map((o) => stringify(o)).join('---\n'));
// KAI's size for the root is 2 × (1 + 2) = 6 while the JobSet asks for 3 pods: a warning, not an error.
const scaledDef = join(dir, 'scaled.yaml');
writeFileSync(scaledDef, JOBSET_DEFINITION.replace('      suspendDefinition:', "      scaleDefinition:\n        replicasPath: '2'\n      suspendDefinition:"));
const WARNING = 'warning: PodGroup pg-uid-train would wait for 6 pods, but the workload asks for 3';

test('resolve: warnings only → exit 0, each warning on stderr, stdout unchanged', async () => {
  for (const output of ['tree', 'json', 'yaml']) {
    const r = await run(['resolve', '-d', scaledDef, objectsFile, '-o', output]);
    assert.equal(r.code, 0, `${output}: ${r.err}`);
    assert.equal(r.err, WARNING, output);
    assert.doesNotMatch(r.out, /^warning:/m, output);
  }
  const tree = JSON.parse((await run(['resolve', '-d', scaledDef, objectsFile, '-o', 'json'])).out) as WorkloadTree;
  assert.deepEqual(tree.errors, []);
  assert.deepEqual(tree.warnings.map((w) => w.code), ['gang.unsatisfiable']);
});

test('resolve: a tree without warnings prints nothing on stderr and carries warnings: []', async () => {
  const plain = join(dir, 'plain.yaml');
  writeFileSync(plain, JOBSET_DEFINITION);
  const r = await run(['resolve', '-d', plain, objectsFile, '-o', 'json']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '');
  assert.deepEqual((JSON.parse(r.out) as WorkloadTree).warnings, []);
});

test('resolve: errors still exit 1, with the warnings beside them', async () => {
  // A status expression that fails on the object is an error in the tree.
  const failing = join(dir, 'failing.yaml');
  writeFileSync(failing, JOBSET_DEFINITION.replace('      suspendDefinition:', "      scaleDefinition:\n        replicasPath: '2'\n      suspendDefinition:").replace("expression: '(.status.replicatedJobsStatus // []) | any(.active > 0) and all(.ready == 0)'", "expression: '.spec.suspend | keys'"));
  const r = await run(['resolve', '-d', failing, objectsFile, '-o', 'json']);
  const tree = JSON.parse(r.out) as WorkloadTree;
  assert.ok(tree.errors.length > 0, r.out);
  assert.equal(r.code, 1);
  assert.match(r.err, /^error: /m);
  assert.match(r.err, /^warning: PodGroup pg-uid-train would wait for 6 pods/m);
});

test('reportTreeProblems (resolve and tree): errors decide the exit code, warnings go to stderr', () => {
  const base = { errors: [], warnings: [] } as unknown as WorkloadTree;
  const w = { code: 'gang.inconsistent', message: 'members of PodGroup pg-x compute different sizes (1, 2)', path: 'p' };
  const e = { code: 'object.kind-mismatch', message: 'not a JobSet', path: 'apiVersion' };
  const lines: string[] = [];
  assert.equal(reportTreeProblems({ ...base, warnings: [w] }, 'tree', (l) => lines.push(l)), 0);
  assert.deepEqual(lines.splice(0), ['warning: members of PodGroup pg-x compute different sizes (1, 2)']);
  assert.equal(reportTreeProblems({ ...base, errors: [e], warnings: [w] }, 'json', (l) => lines.push(l)), 1);
  assert.deepEqual(lines.splice(0), ['error: not a JobSet', 'warning: members of PodGroup pg-x compute different sizes (1, 2)']);
  // `-o tree` shows errors in the tree itself: only the warnings go to stderr.
  assert.equal(reportTreeProblems({ ...base, errors: [e] }, 'tree', (l) => lines.push(l)), 1);
  assert.deepEqual(lines, []);
});
