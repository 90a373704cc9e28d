/**
 * The registry against the simulated cluster: a cluster without the Karta CRD, one with an older
 * CRD, and one with ours; registering through the write path (create → configured → unchanged), dry
 * runs that leave nothing, conflicts that write nothing, a user who may not install CRDs, every
 * attempt audited; what each cluster has (label mismatches included).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { ClusterConnection, loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { captureLogs } from '../log/test-support.ts';
import { startSim, type KubeObject, type SimHandle } from '../sim/index.ts';
import { LiveWorkloads } from './live.ts';
import {
  clusterRegistry, planRegistration, readClusterDefinitions, readKartaCrd, registerDefinition, runRegistration, type KartaClient,
} from './karta-registry.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const NO_SINK = { onEvent() {}, onList() {}, onChange() {} };

function clientOf(kubeconfig: string): { client: KartaClient; stop: () => void } {
  const [config] = loadClusterConfigs({ kubeconfig });
  const conn = new ClusterConnection(config.name, config.server, config.kc, NO_SINK);
  return { client: conn.as(null), stop: () => conn.stop() };
}

const DEF = (name: string, replicas = '.spec.replicas', selector: Record<string, unknown> = { keyPath: '.metadata.labels["role"]', value: 'worker' }) => ({
  apiVersion: 'run.ai/v1alpha1',
  kind: 'Karta',
  metadata: { name },
  spec: {
    structureDefinition: {
      rootComponent: {
        name: 'thing',
        kind: { group: 'example.com', version: 'v1', kind: 'Thing' },
        statusDefinition: { conditionsDefinition: { path: '.status.conditions' }, statusMappings: { running: [{ byConditions: [{ type: 'Ready', status: 'True' }] }] } },
      },
      childComponents: [{
        name: 'worker', kind: { group: '', version: 'v1', kind: 'Pod' }, ownerRef: 'thing',
        specDefinition: { podTemplateSpecPath: '.spec.template' }, scaleDefinition: { replicasPath: replicas }, podSelector: { componentTypeSelector: selector },
      }],
    },
  },
});

const karta = (sim: SimHandle, name: string) => sim.store.get('run.ai/v1alpha1', 'Karta', undefined, name);
const kartaCrd = (sim: SimHandle) => sim.store.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, 'kartas.run.ai');
const options = (dryRun: 'client' | 'server' | 'none', extra: Record<string, unknown> = {}) => ({ cluster: 'sim', dryRun, who: { user: 'tester', via: 'test' }, ...extra });

describe('a cluster without the Karta CRD', () => {
  let sim: SimHandle;
  let admin: ReturnType<typeof clientOf>;
  let carol: ReturnType<typeof clientOf>;
  before(async () => {
    sim = await startSim({ scenario: 'empty', controllers: false, kartaCrd: 'none', identities: true });
    admin = clientOf(sim.kubeconfigPath);
    carol = clientOf(sim.identityKubeconfigs.carol!);
  });
  after(async () => {
    admin.stop();
    carol.stop();
    await sim.stop();
  });

  test('is reported as missing, with nothing registered', async () => {
    const read = await readClusterDefinitions('sim', admin.client);
    assert.deepEqual([read.crd.state, read.kartas, read.problems], ['missing', [], []]);
    const listing = clusterRegistry(read, catalog);
    assert.ok(listing.definitions.every((d) => d.source === 'catalog'));
    // carol may not read CRDs: discovery says run.ai is not served, which is just as missing.
    const seen = await readKartaCrd(carol.client);
    assert.equal(seen.report.state, 'missing');
    assert.match(seen.report.summary, /cannot be read/);
  });

  test('registering says so; installing needs the right and the flag; dry runs install nothing', async () => {
    const no = await registerDefinition(admin.client, DEF('thing'), options('none'));
    assert.equal(no.outcome.result, 'refused');
    assert.match(no.outcome.message, /the kartas.run.ai CRD is not installed in cluster sim: install it first/);
    const refused = await registerDefinition(carol.client, DEF('thing'), options('none', { installCrd: true }));
    assert.equal(refused.outcome.result, 'refused');
    assert.match(refused.outcome.message, /installing it is not allowed: may not create customresourcedefinitions.apiextensions.k8s.io/);
    for (const mode of ['client', 'server'] as const) {
      const dry = await registerDefinition(admin.client, DEF('thing'), options(mode, { installCrd: true }));
      assert.equal(dry.crdInstall?.outcome.result, mode === 'client' ? 'planned' : 'dry-run', dry.crdInstall?.outcome.message);
      assert.equal(dry.outcome.result, 'planned', 'the Karta itself cannot be checked by the server before its CRD exists');
      assert.equal(dry.outcome.message, 'karta.run.ai/thing created (dry run)');
      assert.equal(kartaCrd(sim), undefined);
    }
  });

  test('--install-crd installs ours, then registers; the cluster then has the current CRD', async () => {
    const logs = captureLogs('error');
    try {
      const r = await registerDefinition(admin.client, DEF('thing'), options('none', { installCrd: true }));
      assert.equal(r.crdInstall?.outcome.message, 'customresourcedefinition.apiextensions.k8s.io/kartas.run.ai created');
      assert.equal(r.outcome.message, 'karta.run.ai/thing created');
      assert.ok(kartaCrd(sim));
      assert.deepEqual(karta(sim, 'thing')?.metadata.labels, { 'run.ai/karta-group': 'example.com', 'run.ai/karta-version': 'v1', 'run.ai/karta-kind': 'Thing' });
      assert.equal((await readKartaCrd(admin.client)).report.state, 'current');
      const audit = logs.records().filter((x) => x.component === 'audit');
      assert.deepEqual(audit.map((x) => [x.action, x.result, x.who, x.object]), [['install-crd', 'applied', 'tester', 'CustomResourceDefinition kartas.run.ai'], ['register', 'applied', 'tester', 'Karta thing']]);
      // The CRD is named in the audit log by file and digest, not copied.
      assert.deepEqual(Object.keys((audit[0].patch as Array<{ value: object }>)[0].value), ['file', 'sha256']);
    } finally {
      logs.restore();
    }
  });
});

describe('a cluster with an older Karta CRD (v0.1.x: no matchLabels, no podGroup)', () => {
  let sim: SimHandle;
  let admin: ReturnType<typeof clientOf>;
  before(async () => {
    sim = await startSim({ scenario: 'empty', controllers: false, kartaCrd: 'older' });
    admin = clientOf(sim.kubeconfigPath);
  });
  after(async () => {
    admin.stop();
    await sim.stop();
  });

  test('is reported as older, naming the fields it lacks', async () => {
    const { report } = await readKartaCrd(admin.client);
    assert.equal(report.state, 'older');
    assert.ok(report.missingFields.includes('spec.optimizationInstructions.gangScheduling.podGroup'));
  });

  test('a definition using a field the old CRD lacks is refused before sending; one that fits is registered; upgrading the CRD lets the other in', async () => {
    const labels = DEF('by-labels', '.spec.replicas', { matchLabels: { role: 'worker' } });
    const refused = await registerDefinition(admin.client, labels, options('none'));
    assert.equal(refused.outcome.result, 'invalid');
    assert.match(refused.outcome.message, /spec.structureDefinition.childComponents\[0\].podSelector.componentTypeSelector.matchLabels: the cluster's kartas.run.ai CRD has no such field/);
    assert.match(refused.notes.join(), /older schema/);
    assert.equal(karta(sim, 'by-labels'), undefined);
    const fits = await registerDefinition(admin.client, DEF('plain'), options('none'));
    assert.equal(fits.outcome.message, 'karta.run.ai/plain created');
    const upgraded = await registerDefinition(admin.client, labels, options('none', { installCrd: true }));
    assert.equal(upgraded.crdInstall?.outcome.message, 'customresourcedefinition.apiextensions.k8s.io/kartas.run.ai configured');
    assert.equal(upgraded.outcome.message, 'karta.run.ai/by-labels created');
    assert.equal((await readKartaCrd(admin.client)).report.state, 'current');
    assert.ok(karta(sim, 'plain'), 'Kartas registered under the old CRD are still there');
  });
});

describe('a cluster with our Karta CRD', () => {
  let sim: SimHandle;
  let admin: ReturnType<typeof clientOf>;
  before(async () => {
    sim = await startSim({ scenario: 'empty', controllers: false });
    admin = clientOf(sim.kubeconfigPath);
  });
  after(async () => {
    admin.stop();
    await sim.stop();
  });

  test('create, then configured, then unchanged; dry runs leave nothing', async () => {
    assert.equal((await readKartaCrd(admin.client)).report.state, 'current');
    for (const mode of ['client', 'server'] as const) {
      const dry = await registerDefinition(admin.client, DEF('cycle'), options(mode));
      assert.equal(dry.outcome.message, `karta.run.ai/cycle created (${mode === 'client' ? 'dry run' : 'server dry run'})`);
      assert.equal(karta(sim, 'cycle'), undefined);
    }
    const created = await registerDefinition(admin.client, DEF('cycle'), options('none'));
    assert.equal(created.outcome.message, 'karta.run.ai/cycle created');
    const rv = karta(sim, 'cycle')!.metadata.resourceVersion;
    for (const mode of ['client', 'server'] as const) {
      const dry = await registerDefinition(admin.client, DEF('cycle', '.spec.workers'), options(mode));
      assert.equal(dry.outcome.message, `karta.run.ai/cycle configured (${mode === 'client' ? 'dry run' : 'server dry run'})`);
      assert.match(dry.plan!.diff, /^\+\s+replicasPath: \.spec\.workers$/m);
      assert.equal(karta(sim, 'cycle')!.metadata.resourceVersion, rv);
    }
    const configured = await registerDefinition(admin.client, DEF('cycle', '.spec.workers'), options('none'));
    assert.equal(configured.outcome.message, 'karta.run.ai/cycle configured');
    const stored = karta(sim, 'cycle')!;
    assert.equal((stored.spec as { structureDefinition: { childComponents: Array<{ scaleDefinition: { replicasPath: string } }> } }).structureDefinition.childComponents[0].scaleDefinition.replicasPath, '.spec.workers');
    assert.equal(stored.metadata.generation, 2);
    const same = await registerDefinition(admin.client, DEF('cycle', '.spec.workers'), options('none'));
    assert.equal(same.outcome.message, 'karta.run.ai/cycle unchanged');
    assert.equal(karta(sim, 'cycle')!.metadata.resourceVersion, stored.metadata.resourceVersion);
  });

  test('the labels and annotations others put on the Karta are kept by an update', async () => {
    await registerDefinition(admin.client, DEF('kept'), options('none'));
    const cur = karta(sim, 'kept')!;
    sim.store.update({ ...cur, metadata: { ...cur.metadata, annotations: { 'operator.example/seen': 'yes' }, labels: { ...cur.metadata.labels, team: 'infra' } } });
    const r = await registerDefinition(admin.client, DEF('kept', '.spec.n'), options('none'));
    assert.equal(r.outcome.result, 'applied', r.outcome.message);
    const after = karta(sim, 'kept')!;
    assert.equal(after.metadata.annotations?.['operator.example/seen'], 'yes');
    assert.equal(after.metadata.labels?.team, 'infra');
  });

  test('a Karta that changed between the plan and the write is a conflict, and nothing is written', async () => {
    await registerDefinition(admin.client, DEF('raced'), options('none'));
    const live = karta(sim, 'raced')!;
    const plan = planRegistration(live as KubeObject, DEF('raced', '.spec.mine'), { cluster: 'sim' });
    // Someone else changes it meanwhile.
    const theirs = structuredClone(live);
    (theirs.spec as { structureDefinition: { childComponents: Array<{ scaleDefinition: { replicasPath: string } }> } }).structureDefinition.childComponents[0].scaleDefinition.replicasPath = '.spec.theirs';
    sim.store.update(theirs);
    const logs = captureLogs('error');
    try {
      const out = await runRegistration(plan, admin.client, 'none', 'kubeconfig context sim');
      assert.equal(out.result, 'conflict');
      assert.match(out.message, /Karta raced changed since you looked \(resourceVersion \d+\)/);
      assert.match(JSON.stringify(karta(sim, 'raced')!.spec), /\.spec\.theirs/);
      assert.deepEqual(logs.records().filter((x) => x.component === 'audit').map((x) => [x.action, x.result, x.dryRun]), [['register', 'conflict', 'none']]);
    } finally {
      logs.restore();
    }
    // The dashboard's way: the preview's resourceVersion, checked before sending.
    const preview = await registerDefinition(admin.client, DEF('raced', '.spec.mine'), options('server'));
    const seen = preview.plan!.resourceVersion;
    const again = structuredClone(karta(sim, 'raced')!);
    again.metadata.annotations = { touched: 'yes' };
    sim.store.update(again);
    const stale = await registerDefinition(admin.client, DEF('raced', '.spec.mine'), options('none', { seenResourceVersion: seen }));
    assert.equal(stale.outcome.result, 'conflict');
    assert.match(stale.outcome.message, new RegExp(`you saw resourceVersion ${seen}, it is now resourceVersion \\d+`));
    // A create the preview saw as new, whose name is taken meanwhile, is a conflict too.
    const taken = await registerDefinition(admin.client, DEF('raced'), options('none', { seenResourceVersion: '' }));
    assert.equal(taken.outcome.result, 'conflict');
  });

  test('invalid definitions and non-Karta documents are refused with their field paths, nothing sent', async () => {
    const bad = DEF('bad');
    bad.spec.structureDefinition.childComponents[0].ownerRef = 'nobody';
    const r = await registerDefinition(admin.client, bad, options('none'));
    assert.equal(r.outcome.result, 'invalid');
    assert.deepEqual(r.plan!.errors.map((e) => e.path), ['spec.structureDefinition.childComponents[0].ownerRef']);
    assert.equal(karta(sim, 'bad'), undefined);
    const ri = await registerDefinition(admin.client, { ...DEF('ri'), apiVersion: 'optimization.nvidia.com/v1alpha1', kind: 'ResourceInterface' }, options('none'));
    assert.equal(ri.outcome.result, 'invalid');
  });

  test('what the cluster has: registered Kartas, the one that overrides the catalog, label mismatches', async () => {
    const jobset = catalog.find((e) => e.compiled?.rootKind.kind === 'JobSet')!;
    const mine = { ...(structuredClone(jobset.document) as KubeObject), metadata: { name: 'team-jobset' } };
    assert.equal((await registerDefinition(admin.client, mine, options('none'))).outcome.result, 'applied');
    // Registered by hand with a label that disagrees with the root kind.
    sim.store.create({ ...(parse(JSON.stringify(DEF('hand-made'))) as KubeObject), metadata: { name: 'hand-made', labels: { 'run.ai/karta-group': 'example.com', 'run.ai/karta-version': 'v1', 'run.ai/karta-kind': 'Thingy' } } });
    const read = await readClusterDefinitions('sim', admin.client);
    assert.equal(read.crd.state, 'current');
    assert.ok(read.kartas!.some((k) => k.metadata?.name === 'team-jobset'));
    const r = clusterRegistry(read, catalog);
    const team = r.definitions.find((d) => d.name === 'team-jobset')!;
    assert.deepEqual([team.source, team.state, team.overrides, team.labels?.state], ['cluster', 'serves', [jobset.name], 'ok']);
    assert.deepEqual(r.winners.find((w) => w.root === 'JobSet.jobset.x-k8s.io')?.name, 'team-jobset');
    assert.deepEqual(r.labelMismatches.map((m) => m.name), ['hand-made']);
    assert.match(r.labelMismatches[0].check.message, /run.ai\/karta-kind is "Thingy" but the root kind is Thing.example.com\/v1/);
  });
});

test('the live index switches a workload to a definition registered with the CRD installed on the way', async () => {
  const sim = await startSim({ scenario: 'empty', controllers: false, kartaCrd: 'none' });
  const admin = clientOf(sim.kubeconfigPath);
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig: sim.kubeconfigPath }), catalog, connection: { rediscoverMs: 60_000, listWatch: { minBackoffMs: 50, maxBackoffMs: 200, forbiddenRetryMs: 500 } } });
  try {
    const tpl = { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'x' }] } } } };
    sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'worker', replicas: 1, template: tpl }] } });
    live.start();
    const id = 'wmap-sim/default/JobSet.jobset.x-k8s.io/train';
    const until = async (what: string, ok: () => boolean) => {
      for (const end = Date.now() + 15_000; !ok(); await new Promise((r) => setTimeout(r, 25))) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    };
    await until('the JobSet row', () => live.index.row(id)?.definition.source === 'catalog');
    const jobset = catalog.find((e) => e.compiled?.rootKind.kind === 'JobSet')!;
    const mine = { ...(structuredClone(jobset.document) as KubeObject), metadata: { name: 'team-jobset' } };
    const r = await registerDefinition(admin.client, mine, options('none', { installCrd: true }));
    assert.equal(r.outcome.result, 'applied', r.outcome.message);
    await until('the row served by the registered definition', () => live.index.row(id)?.definition.name === 'team-jobset');
    assert.equal(live.index.row(id)!.definition.source, 'cluster');
  } finally {
    live.stop();
    admin.stop();
    await sim.stop();
  }
});
