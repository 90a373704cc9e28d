/**
 * `wmap apply -f` against the simulated cluster: validation errors at their lines (nothing sent),
 * a cluster without the Karta CRD (the message, `--install-crd`, dry runs that install nothing),
 * kubectl's words for created / configured / unchanged and the dry runs, a field the cluster's CRD
 * does not know, and what `kubectl get kartas` prints afterwards (the CRD's printer columns).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSim, type SimHandle } from '../sim/index.ts';
import { fieldLine } from './apply-command.ts';
import { runWmap } from './run-for-tests.ts';
import { thingKarta } from '../workloads/test-karta.ts';

const run = promisify(execFile);
const kubectl = '/usr/bin/kubectl';

const thing = thingKarta;

let dir: string;
const file = (name: string, text: string): string => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
before(() => { dir = mkdtempSync(join(tmpdir(), 'wmap-apply-')); });
after(() => rmSync(dir, { recursive: true, force: true }));

test('fieldLine: the line of a field in the document the parser named, or of its nearest parent', () => {
  const text = `${thing('a')}---\n${thing('b')}`;
  assert.equal(fieldLine(text, 'f.yaml#1 (line 1)', 'spec.structureDefinition.childComponents[0].ownerRef'), 17);
  assert.equal(fieldLine(text, 'f.yaml#2 (line 23)', 'spec.structureDefinition.childComponents[0].ownerRef'), 22 + 17);
  assert.equal(fieldLine(text, 'f.yaml#2 (line 23)', 'spec.structureDefinition.rootComponent.missing'), 22 + 7);
  const list = `apiVersion: v1\nkind: List\nitems:\n  - apiVersion: run.ai/v1alpha1\n    kind: Karta\n    metadata: {name: x}\n`;
  assert.equal(fieldLine(list, 'l.yaml items[0]', 'metadata.name'), 6);
  const json = '[\n {"kind": "Karta"},\n {"kind": "Karta",\n  "metadata": {"name": "x"}}\n]\n';
  assert.equal(fieldLine(json, 'a.json[1]', 'metadata.name'), 4);
});

describe('wmap apply', () => {
  let sim: SimHandle;
  let kc: string[];
  before(async () => {
    sim = await startSim({ scenario: 'empty', controllers: false, kartaCrd: 'none' });
    kc = ['--kubeconfig', sim.kubeconfigPath];
  });
  after(async () => { await sim.stop(); });
  const kartas = () => sim.store.list('run.ai/v1alpha1', 'Karta').map((k) => k.metadata.name);

  test('validation comes first: every error at its file, line and field path, and nothing is sent', async () => {
    const broken = thing('broken').replace('ownerRef: thing', 'ownerRef: nobody');
    const f = file('two.yaml', `${thing('fine')}---\n${broken}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n`);
    const r = await runWmap(['apply', '-f', f, ...kc]);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    const lines = r.err.split('\n');
    assert.ok(lines.includes(`error: ${f}:39: definition "broken": spec.structureDefinition.childComponents[0].ownerRef: child component "worker" has owner ref to non-existing component "nobody"`), r.err);
    assert.match(r.err, /two.yaml#3 \(line 45\): expected a run.ai\/v1alpha1 Karta or optimization.nvidia.com\/v1alpha1 ResourceInterface, got ConfigMap/);
    assert.match(r.err, /error: 2 errors: nothing was sent/);
    const syntax = await runWmap(['apply', '-f', file('syntax.yaml', 'apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x\n'), ...kc]);
    assert.equal(syntax.code, 1);
    assert.match(syntax.err, /syntax.yaml: line \d+, column \d+/);
    assert.deepEqual(kartas(), []);
  });

  test('without the CRD: says so and how to install it; --install-crd dry runs install nothing; --install-crd installs it, then registers', async () => {
    const f = file('thing.yaml', thing('thing'));
    const no = await runWmap(['apply', '-f', f, ...kc]);
    assert.equal(no.code, 1);
    assert.equal(no.err, 'error: the kartas.run.ai CRD is not installed in cluster wmap-sim: rerun with --install-crd to install the one Workload Map ships (you may create customresourcedefinitions)');
    const client = await runWmap(['apply', '-f', f, '--install-crd', '--dry-run=client', ...kc]);
    assert.equal(client.code, 0, client.err);
    assert.equal(client.out, 'customresourcedefinition.apiextensions.k8s.io/kartas.run.ai created (dry run)\nkarta.run.ai/thing created (dry run)');
    const server = await runWmap(['apply', '-f', f, '--install-crd', '--dry-run=server', ...kc]);
    assert.equal(server.code, 0, server.err);
    assert.equal(server.out, 'customresourcedefinition.apiextensions.k8s.io/kartas.run.ai created (server dry run)\nkarta.run.ai/thing created (dry run)');
    assert.match(server.err, /Warning: the server could not check Karta thing: the kartas.run.ai CRD is not installed yet/);
    assert.equal(sim.store.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, 'kartas.run.ai'), undefined);
    const done = await runWmap(['apply', '-f', f, '--install-crd', ...kc]);
    assert.equal(done.code, 0, done.err);
    assert.equal(done.out, 'customresourcedefinition.apiextensions.k8s.io/kartas.run.ai created\nkarta.run.ai/thing created');
    assert.deepEqual(kartas(), ['thing']);
  });

  test('created, configured, unchanged — and the dry runs of a change leave the Karta as it was', async () => {
    const v1 = file('cycle.yaml', `${thing('cycle-a')}---\n${thing('cycle-b')}`);
    const created = await runWmap(['apply', '-f', v1, ...kc]);
    assert.equal(created.code, 0, created.err);
    assert.equal(created.out, 'karta.run.ai/cycle-a created\nkarta.run.ai/cycle-b created');
    const v2 = file('cycle2.yaml', `${thing('cycle-a', '.spec.workers')}---\n${thing('cycle-b')}`);
    const rv = sim.store.get('run.ai/v1alpha1', 'Karta', undefined, 'cycle-a')!.metadata.resourceVersion;
    const client = await runWmap(['apply', '-f', v2, '--dry-run=client', '--diff', ...kc]);
    assert.equal(client.code, 0, client.err);
    assert.match(client.out, /^\+\s+replicasPath: \.spec\.workers$/m);
    assert.match(client.out, /^karta.run.ai\/cycle-a configured \(dry run\)$/m);
    assert.match(client.out, /^karta.run.ai\/cycle-b unchanged$/m);
    const server = await runWmap(['apply', '-f', v2, '--dry-run=server', ...kc]);
    assert.equal(server.out, 'karta.run.ai/cycle-a configured (server dry run)\nkarta.run.ai/cycle-b unchanged');
    assert.equal(sim.store.get('run.ai/v1alpha1', 'Karta', undefined, 'cycle-a')!.metadata.resourceVersion, rv);
    const configured = await runWmap(['apply', '-f', v2, ...kc]);
    assert.equal(configured.out, 'karta.run.ai/cycle-a configured\nkarta.run.ai/cycle-b unchanged');
    const again = await runWmap(['apply', '-f', v2, ...kc]);
    assert.equal(again.out, 'karta.run.ai/cycle-a unchanged\nkarta.run.ai/cycle-b unchanged');
    assert.equal(again.code, 0);
  });

  test('a field the cluster\'s CRD does not know is refused at its line; a wrong karta label is corrected with a warning', async () => {
    // Our validator accepts CEL status rules; upstream's CRD has no `language`, so the server would drop it.
    const cel = file('cel.yaml', thing('cel').replace('running: [{byConditions: [{type: Ready, status: "True"}]}]', "running: [{byExpression: {expression: 'true', expectedResult: 'true', language: cel}}]"));
    const r = await runWmap(['apply', '-f', cel, ...kc]);
    assert.equal(r.code, 1);
    assert.equal(r.err, `error: ${cel}:13: spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.language: the cluster's kartas.run.ai CRD has no such field, so the API server would drop it`);
    assert.ok(!kartas().includes('cel'));
    const labelled = file('labelled.yaml', thing('labelled').replace('  name: labelled\n', '  name: labelled\n  labels: {run.ai/karta-kind: Other}\n'));
    const l = await runWmap(['apply', '-f', labelled, ...kc]);
    assert.equal(l.code, 0, l.err);
    assert.match(l.err, /Warning: .*label run.ai\/karta-kind is "Other" but the root kind says "Thing": registered with "Thing"/);
    assert.equal(sim.store.get('run.ai/v1alpha1', 'Karta', undefined, 'labelled')!.metadata.labels?.['run.ai/karta-kind'], 'Thing');
  });

  test('kubectl get kartas shows the CRD\'s printer columns for what apply registered', { skip: existsSync(kubectl) ? false : 'kubectl is not installed at /usr/bin/kubectl' }, async () => {
    const { stdout } = await run(kubectl, ['--kubeconfig', sim.kubeconfigPath, 'get', 'krt'], { encoding: 'utf8' });
    const [head, ...rows] = stdout.trimEnd().split('\n');
    assert.match(head, /^NAME\s+FRAMEWORK\s+ROOT COMPONENT\s+AGE$/);
    assert.ok(rows.some((r) => /^cycle-a\s+Thing\s+thing\s+\d+s$/.test(r)), stdout);
    const wide = await run(kubectl, ['--kubeconfig', sim.kubeconfigPath, 'get', 'kartas.run.ai', 'thing', '-o', 'jsonpath={.metadata.labels}'], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(wide.stdout), { 'run.ai/karta-group': 'example.com', 'run.ai/karta-kind': 'Thing', 'run.ai/karta-version': 'v1' });
  });
});

test('kubectl apply -f deploy/crds/kartas.run.ai.yaml installs the CRD wmap then calls current', { skip: existsSync(kubectl) ? false : 'kubectl is not installed at /usr/bin/kubectl' }, async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false, kartaCrd: 'none' });
  try {
    const manifest = new URL('../../deploy/crds/kartas.run.ai.yaml', import.meta.url).pathname;
    const first = await run(kubectl, ['--kubeconfig', sim.kubeconfigPath, 'apply', '-f', manifest], { encoding: 'utf8' });
    assert.equal(first.stdout.trim(), 'customresourcedefinition.apiextensions.k8s.io/kartas.run.ai created');
    const r = await runWmap(['definitions', '-o', 'json', '--kubeconfig', sim.kubeconfigPath]);
    assert.equal((JSON.parse(r.out) as Array<{ crd: { state: string } }>)[0].crd.state, 'current');
    const f = file('after-kubectl.yaml', thing('after-kubectl'));
    assert.equal((await runWmap(['apply', '-f', f, '--kubeconfig', sim.kubeconfigPath])).out, 'karta.run.ai/after-kubectl created');
  } finally {
    await sim.stop();
  }
});
