import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startSim, type SimHandle, type KubeObject } from '../sim/index.ts';
import { runWmap } from './run-for-tests.ts';

let sim: SimHandle;

function node(name: string, gpus: number): KubeObject {
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': String(gpus) };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } };
}
const tpl = (gpus: number) => ({ spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'x', resources: { limits: { 'nvidia.com/gpu': gpus } } }] } } } });

const run = runWmap;

before(async () => {
  sim = await startSim({ scenario: 'empty', controllers: true });
  sim.store.create(node('gpu-a', 8));
  sim.store.create(node('gpu-b', 8));
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: tpl(4) }, { name: 'worker', replicas: 2, template: tpl(4) }] } });
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'other', namespace: 'team-b' }, spec: { replicatedJobs: [{ name: 'worker', replicas: 1, template: tpl(1) }] } });
  // Wait until the simulated kubelet runs the pods.
  for (let i = 0; i < 400; i++) {
    const pods = sim.store.list('v1', 'Pod', { namespace: 'default' });
    if (pods.length === 3 && pods.every((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running')) break;
    await new Promise((r) => setTimeout(r, 25));
  }
});
after(async () => { await sim.stop(); });

test('get workloads: one line per workload in the context namespace; -A and -o json', async () => {
  const r = await run(['get', 'workloads', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.match(lines[0], /^KIND\s+NAME\s+STATUS\s+GPUS/);
  assert.equal(lines.length, 2);
  assert.match(lines[1], /^JobSet\s+train\s+\S+\s+12\/12\/12\s+\d\/3\s+1 leader · 2 workers/);
  const all = await run(['get', 'workloads', '-A', '--kubeconfig', sim.kubeconfigPath, '-o', 'json']);
  const rows = JSON.parse(all.out) as Array<{ namespace: string; name: string; gpus: { desired: number } }>;
  assert.deepEqual(rows.map((x) => `${x.namespace}/${x.name}:${x.gpus.desired}`), ['default/train:12', 'team-b/other:1']);
});

test('tree KIND/NAME prints the live workload tree', async () => {
  const r = await run(['tree', 'jobset/train', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out.split('\n')[0], /^JobSet default\/train {2}\S+ {2}12 GPU/);
  // As kubectl names it: the plural with its group, the kind with its group, any case.
  for (const ref of ['jobsets.jobset.x-k8s.io/train', 'JobSet.jobset.x-k8s.io/train', 'JOBSETS/train']) {
    const byGroup = await run(['tree', ref, '--kubeconfig', sim.kubeconfigPath]);
    assert.equal(byGroup.code, 0, `${ref}: ${byGroup.err}`);
  }
  assert.equal((await run(['tree', 'jobsets.example.com/train', '--kubeconfig', sim.kubeconfigPath])).code, 1);
  const missing = await run(['tree', 'jobset/nope', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(missing.code, 1);
  // kubectl's words and exit code for an object that is not there.
  assert.equal(missing.err, 'Error from server (NotFound): jobsets.jobset.x-k8s.io "nope" not found');
});

test('verify: a healthy workload passes; a stray pod owned by it is a discrepancy', async () => {
  const ok = await run(['verify', 'jobset/train', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(ok.code, 0, ok.out + ok.err);
  const js = sim.store.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'default', 'train')!;
  sim.store.create({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'debug', namespace: 'default', ownerReferences: [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'train', uid: js.metadata.uid! }] },
    spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
  });
  const bad = await run(['verify', 'jobset/train', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(bad.code, 1);
  // The catalog JobSet has one pod-bearing component, which claims every owned pod; the stray one fits no instance.
  assert.match(bad.out, /pod debug (is owned by the workload but no component claims it|matches component replicatedjob but none of its instances)/);
  assert.match(bad.out, /nvidia.com\/gpu: the definition's templates × replicas give 12, the owned pods request 13/);
});

test('verify --all: per GPU resource the rows balance against the live pods, counted from their specs', async () => {
  const r = await run(['verify', '--all', '-A', '--kubeconfig', sim.kubeconfigPath]);
  const line = /ok {3}\S+: nvidia\.com\/gpu: rows count (\d+), live pods request (\d+)/.exec(r.err);
  assert.ok(line, r.err);
  assert.equal(line[1], line[2]);
  assert.ok(Number(line[1]) >= 13, r.err);
  assert.doesNotMatch(r.out, /no row counts it/);
});
