/**
 * `wmap definitions` against two simulated clusters: one with our CRD and its own definitions (one
 * overriding the catalog's JobSet, one with a karta label that disagrees with its root kind, one
 * invalid), one without the Karta CRD. The table names the definition that serves each root kind,
 * the CRD state and the label mismatches; `-o wide` and `-o json` say the same.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadCatalog } from '../catalog/index.ts';
import { startSim, type KubeObject, type SimHandle } from '../sim/index.ts';
import type { ClusterRegistry } from '../workloads/karta-registry.ts';
import { runWmap } from './run-for-tests.ts';

let withCrd: SimHandle;
let bare: SimHandle;
let dir: string;
let kubeconfig: string;

interface Kubeconfig { clusters: Array<{ name: string }>; users: Array<{ name: string }>; contexts: Array<{ name: string; context: { cluster: string; user: string } }>; 'current-context': string }

/** One kubeconfig with a context per simulator (`alpha` current, `beta`). */
function merged(sims: Array<[string, SimHandle]>): string {
  const out: Kubeconfig = { clusters: [], users: [], contexts: [], 'current-context': sims[0][0] };
  for (const [name, sim] of sims) {
    const k = parse(readFileSync(sim.kubeconfigPath, 'utf8')) as Kubeconfig;
    out.clusters.push({ ...k.clusters[0], name });
    out.users.push({ ...k.users[0], name });
    out.contexts.push({ name, context: { ...k.contexts[0].context, cluster: name, user: name } });
  }
  const f = join(dir, 'kubeconfig');
  writeFileSync(f, stringify({ apiVersion: 'v1', kind: 'Config', preferences: {}, ...out }), { mode: 0o600 });
  return f;
}

const jobset = loadCatalog().find((e) => e.kind === 'JobSet')!;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wmap-defs-'));
  withCrd = await startSim({ scenario: 'empty', controllers: false });
  bare = await startSim({ scenario: 'empty', controllers: false, kartaCrd: 'none' });
  kubeconfig = merged([['alpha', withCrd], ['beta', bare]]);
  const mine = structuredClone(jobset.loaded.definition) as unknown as KubeObject;
  writeFileSync(join(dir, 'team.yaml'), stringify({ ...mine, metadata: { name: 'team-jobset' } }));
  const r = await runWmap(['apply', '-f', join(dir, 'team.yaml'), '--kubeconfig', kubeconfig]);
  assert.equal(r.code, 0, r.err);
  const thing = (name: string, labels: Record<string, string>, ownerRef = 'thing'): KubeObject => ({
    apiVersion: 'run.ai/v1alpha1', kind: 'Karta', metadata: { name, labels },
    spec: { structureDefinition: {
      rootComponent: { name: 'thing', kind: { group: 'example.com', version: 'v1', kind: 'Thing' }, statusDefinition: { statusMappings: { running: [{ byPhase: 'Running' }] } } },
      childComponents: [{ name: 'worker', kind: { group: '', version: 'v1', kind: 'Pod' }, ownerRef, podSelector: { componentTypeSelector: { keyPath: '.metadata.name' } } }],
    } },
  });
  // Registered by other means: a label that disagrees with the root kind, and a definition that does not load.
  withCrd.store.create(thing('hand-made', { 'run.ai/karta-group': 'example.com', 'run.ai/karta-version': 'v2', 'run.ai/karta-kind': 'Thing' }));
  withCrd.store.create(thing('broken', {}, 'nobody'));
});
after(async () => {
  await withCrd.stop();
  await bare.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the current context: the CRD state, the source that wins for each root kind, overrides, label mismatches', async () => {
  const r = await runWmap(['definitions', '--kubeconfig', kubeconfig]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.equal(lines[0], 'Cluster alpha');
  assert.match(lines[1], /^CRD kartas.run.ai: current \(serves v1alpha1\): kartas.run.ai v1alpha1 is installed, the schema Workload Map ships/);
  assert.match(lines[2], /^ROOT KIND\s+VERSION\s+DEFINITION\s+SOURCE\s+STATE$/);
  const row = (re: RegExp) => lines.find((l) => re.test(l));
  assert.ok(row(new RegExp(`^JobSet.jobset.x-k8s.io\\s+v1alpha2\\s+team-jobset\\s+cluster\\s+serves \\(overrides catalog ${jobset.name}\\)$`)), r.out);
  assert.ok(row(new RegExp(`^JobSet.jobset.x-k8s.io\\s+v1alpha2\\s+${jobset.name}\\s+catalog\\s+shadowed by cluster team-jobset$`)), r.out);
  assert.ok(row(/^Thing.example.com\s+v1\s+hand-made\s+cluster\s+serves$/), r.out);
  assert.ok(row(/^Thing.example.com\s+v1\s+broken\s+cluster\s+invalid$/), r.out);
  assert.ok(row(/^Deployment.apps\s+v1\s+apps-deployment-v1\s+catalog\s+serves$/), r.out);
  // The JobSet rows come winner first.
  assert.ok(lines.findIndex((l) => l.includes('team-jobset')) < lines.findIndex((l) => l.includes(`${jobset.name}  `) && l.includes('catalog')));
  assert.ok(lines.includes('Label mismatches (KAI Scheduler selects definitions by run.ai/karta-group, run.ai/karta-version and run.ai/karta-kind):'), r.out);
  assert.ok(row(/^ {2}karta\/hand-made: run.ai\/karta-version is "v2" but the root kind is Thing.example.com\/v1/), r.out);
  assert.ok(row(/^ {2}karta\/broken: no run.ai\/karta-\* labels: KAI Scheduler cannot select it for Thing.example.com\/v1 until they are set$/), r.out);
  assert.ok(!lines.some((l) => l.includes('karta/team-jobset')), 'apply stamped its labels');
});

test('-o wide adds the kind, components, labels and creation time, and the errors of invalid definitions', async () => {
  const r = await runWmap(['definitions', '-o', 'wide', '--kubeconfig', kubeconfig]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^ROOT KIND\s+VERSION\s+DEFINITION\s+SOURCE\s+KIND\s+COMPONENTS\s+LABELS\s+CREATED\s+STATE$/m);
  assert.match(r.out, /^Thing.example.com\s+v1\s+hand-made\s+cluster\s+Karta\s+2\s+mismatch\s+\d{4}-\d\d-\d\dT\S+\s+serves$/m);
  assert.match(r.out, /^JobSet.jobset.x-k8s.io\s+v1alpha2\s+team-jobset\s+cluster\s+Karta\s+2\s+ok\s+/m);
  assert.match(r.out, /^invalid cluster broken: .*ownerRef/m);
});

test('--all-contexts -o json: every cluster, the one without the CRD saying so', async () => {
  const r = await runWmap(['definitions', '--all-contexts', '-o', 'json', '--kubeconfig', kubeconfig]);
  assert.equal(r.code, 0, r.err);
  const all = JSON.parse(r.out) as ClusterRegistry[];
  assert.deepEqual(all.map((c) => [c.cluster, c.crd.state]), [['alpha', 'current'], ['beta', 'missing']]);
  assert.deepEqual(all[0].winners.find((w) => w.root === 'JobSet.jobset.x-k8s.io'), { root: 'JobSet.jobset.x-k8s.io', version: 'v1alpha2', name: 'team-jobset', source: 'cluster' });
  assert.deepEqual(all[0].labelMismatches.map((m) => m.name).sort(), ['broken', 'hand-made']);
  assert.ok(all[1].definitions.every((d) => d.source === 'catalog' && d.state !== 'shadowed'));
  const table = await runWmap(['definitions', '--context', 'beta', '--kubeconfig', kubeconfig]);
  assert.match(table.out, /^CRD kartas.run.ai: missing: the kartas.run.ai CRD is not installed \(wmap apply --install-crd installs it\);/m);
});
