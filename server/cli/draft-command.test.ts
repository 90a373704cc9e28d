/** `wmap draft` and `wmap verify --definition` against the simulated cluster. */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startSim, type SimHandle, type KubeObject } from '../sim/index.ts';
import { crd } from '../sim/crds/index.ts';
import { runWmap as run } from './run-for-tests.ts';

let sim: SimHandle;
const dir = mkdtempSync(join(tmpdir(), 'wmap-draft-'));

function node(name: string, gpus: number): KubeObject {
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': String(gpus) };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } };
}
const tpl = (gpus: number) => ({ spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'x', resources: { limits: { 'nvidia.com/gpu': gpus } } }] } } } });

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
}

before(async () => {
  sim = await startSim({ scenario: 'empty', controllers: true });
  sim.store.create(node('gpu-a', 8));
  sim.store.create(node('gpu-b', 8));
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: tpl(4) }, { name: 'worker', replicas: 2, template: tpl(4) }] } });
  // A kind no definition serves: its pods sit right under it, told apart by a label.
  sim.store.create(crd({ group: 'example.com', kind: 'TrainingRun', plural: 'trainingruns', versions: [{ name: 'v1' }] }));
  const container = (gpus: number) => [{ name: 'main', image: 'trainer:1', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }];
  const run = sim.store.create({
    apiVersion: 'example.com/v1', kind: 'TrainingRun', metadata: { name: 'run', namespace: 'default' },
    spec: { workers: { count: 2, template: { metadata: { labels: { 'example.com/role': 'worker' } }, spec: { containers: container(2) } } }, chief: { template: { metadata: { labels: { 'example.com/role': 'chief' } }, spec: { containers: container(0) } } } },
  });
  const owner = [{ apiVersion: 'example.com/v1', kind: 'TrainingRun', name: 'run', uid: run.metadata.uid!, controller: true }];
  for (const [name, role, gpus] of [['run-chief', 'chief', 0], ['run-worker-0', 'worker', 2], ['run-worker-1', 'worker', 2]] as const) {
    sim.store.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { 'example.com/role': role }, ownerReferences: owner }, spec: { containers: container(gpus) } });
  }
  await until(() => sim.store.list('v1', 'Pod', { namespace: 'default' }).filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running').length === 6);
});
after(async () => { await sim.stop(); });

const kc = () => ['--kubeconfig', sim.kubeconfigPath];

test('draft KIND/NAME: the proposed Karta as YAML with its guesses as comments, a summary on stderr', async () => {
  const r = await run(['draft', 'jobset/train', ...kc()]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^# Drafted by wmap from JobSet train/);
  assert.match(r.out, /# guess: /);
  const def = parse(r.out) as { kind: string; metadata: { name: string }; spec: { structureDefinition: { childComponents: Array<{ instanceIdPath: string }> } } };
  assert.equal(def.kind, 'Karta');
  assert.equal(def.metadata.name, 'jobset-x-k8s-io-jobset-v1alpha2');
  assert.equal(def.spec.structureDefinition.childComponents[0].instanceIdPath, '.spec.replicatedJobs[]? | .name');
  assert.match(r.err, /drafted from JobSet default\/train \(it is served by definition jobset-x-k8s-io-jobset-v1alpha2 \(catalog\)\); \d+ guesses to review/);
  const json = await run(['draft', 'jobset/train', '-o', 'json', ...kc()]);
  assert.equal(json.code, 0, json.err);
  assert.equal((JSON.parse(json.out) as { apiVersion: string }).apiVersion, 'run.ai/v1alpha1');
  assert.match(json.err, /^guess: spec\.structureDefinition\.childComponents\[0\]\.\S+: /m);
  assert.equal((await run(['draft', 'jobset/train', '-o', 'wide', ...kc()])).code, 1);
  assert.equal((await run(['draft', 'jobset/nope', ...kc()])).code, 1);
});

test('verify --definition FILE: the draft tried on the workload it came from has no difference', async () => {
  const drafted = await run(['draft', 'jobset/train', ...kc()]);
  const file = join(dir, 'jobset.yaml');
  writeFileSync(file, drafted.out);
  const r = await run(['verify', '--definition', file, 'jobset/train', ...kc()]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.err, /ok {3}JobSet default\/train with definition jobset-x-k8s-io-jobset-v1alpha2 from .*jobset\.yaml/);
  assert.match(r.err, /1 workload verified with .*, 0 differences/);
});

test('verify --definition FILE: every difference on stdout and exit 1; a broken file names its lines', async () => {
  const drafted = (await run(['draft', 'jobset/train', ...kc()])).out;
  const wrong = join(dir, 'wrong.yaml');
  writeFileSync(wrong, drafted.replace(/replicasPath: .*/, 'replicasPath: .spec.replicatedJobs[]? | 3'));
  const r = await run(['verify', '--definition', wrong, 'jobset/train', ...kc()]);
  assert.equal(r.code, 1);
  assert.match(r.out, /JobSet default\/train: role leader: the definition asks for 3 pods, 1 are live/);
  assert.match(r.out, /nvidia\.com\/gpu: the definition's templates × replicas give 24, the owned pods request 12/);
  const broken = join(dir, 'broken.yaml');
  const text = drafted.replace(/ownerRef: jobset/, 'ownerRef: nobody');
  writeFileSync(broken, text);
  const b = await run(['verify', '--definition', broken, 'jobset/train', ...kc()]);
  assert.equal(b.code, 1);
  const line = text.split('\n').findIndex((l) => l.includes('ownerRef: nobody')) + 1;
  assert.ok(b.out.includes(`${broken}:${line}: `), b.out);
  assert.match(b.err, /\(the definition is invalid\)/);
  assert.equal((await run(['verify', '--definition', join(dir, 'missing.yaml'), 'jobset/train', ...kc()])).code, 1);
  assert.equal((await run(['verify', '--definition', broken, '--all', ...kc()])).code, 1);
});

test('a kind no definition serves: drafted from its objects, and the draft verifies', async () => {
  const r = await run(['draft', 'trainingrun/run', ...kc()]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /no definition serves it yet/);
  const file = join(dir, 'run.yaml');
  writeFileSync(file, r.out);
  const def = parse(r.out) as { spec: { structureDefinition: { childComponents: Array<{ name: string; podSelector?: unknown }> } } };
  assert.deepEqual(def.spec.structureDefinition.childComponents.map((c) => c.name).sort(), ['chief', 'workers']);
  const v = await run(['verify', '--definition', file, 'trainingrun/run', ...kc()]);
  assert.equal(v.code, 0, v.out + v.err);
});
