/** `wmap suspend|resume` against the simulated cluster: diff, client and server dry runs, the write, a conflict, the audit log. */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startSim, type SimHandle, type KubeObject } from '../sim/index.ts';
import { loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { LiveWorkloads } from '../workloads/index.ts';
import { planAction, runAction } from '../workloads/actions.ts';
import { captureLogs } from '../log/test-support.ts';
import { runWmap } from './run-for-tests.ts';

let sim: SimHandle;

const tpl = { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'x', resources: { limits: { 'nvidia.com/gpu': 1 } } }] } } } };
const suspended = () => (sim.store.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'default', 'train')?.spec as { suspend?: boolean }).suspend === true;

before(async () => {
  sim = await startSim({ scenario: 'empty', controllers: true });
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': '8' };
  sim.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'gpu-a' }, spec: {}, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } } as KubeObject);
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'worker', replicas: 2, template: tpl }] } });
});
after(async () => { await sim.stop(); });

test('--dry-run=client prints the diff and sends nothing; --dry-run=server asks the server and persists nothing', async () => {
  const client = await runWmap(['suspend', 'jobset/train', '--dry-run=client', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(client.code, 0, client.err);
  assert.match(client.out, /^--- jobset\/train \(live\)$/m);
  assert.match(client.out, /^\+\s+suspend: true$/m);
  assert.match(client.out, /client dry run: not sent/);
  assert.equal(suspended(), false);
  const server = await runWmap(['suspend', 'jobset/train', '--dry-run=server', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(server.code, 0, server.err);
  assert.match(server.out, /JobSet default\/train suspended \(server dry run\)/);
  assert.equal(suspended(), false);
});

test('suspend writes; again is unchanged; resume undoes it; each attempt is audited', async () => {
  const logs = captureLogs('error');
  try {
    const r = await runWmap(['suspend', 'jobset/train', '--kubeconfig', sim.kubeconfigPath]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^JobSet default\/train suspended$/m);
    assert.equal(suspended(), true);
    const again = await runWmap(['suspend', 'jobset/train', '--kubeconfig', sim.kubeconfigPath]);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /already suspended/);
    const back = await runWmap(['resume', 'jobset/train', '--kubeconfig', sim.kubeconfigPath]);
    assert.equal(back.code, 0, back.err);
    assert.equal(suspended(), false);
    const audit = logs.records().filter((x) => x.component === 'audit');
    assert.deepEqual(audit.map((x) => [x.action, x.result]), [['suspend', 'applied'], ['suspend', 'unchanged'], ['resume', 'applied']]);
    assert.equal(audit[0].object, 'JobSet default/train');
    assert.ok(Array.isArray(audit[0].patch) && (audit[0].patch as Array<{ op: string }>)[0].op === 'test', 'the patch starts with its precondition');
  } finally {
    logs.restore();
  }
});

test('a workload that changed after it was looked at is a conflict: nothing is written', async () => {
  const configs = loadClusterConfigs({ kubeconfig: sim.kubeconfigPath });
  const live = new LiveWorkloads({ clusters: configs, catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
  live.start();
  try {
    const cluster = configs[0].name;
    let uid = '';
    for (let i = 0; i < 200 && !uid; i++) {
      await new Promise((r) => setTimeout(r, 50));
      live.index.flush();
      uid = live.index.allRows().find((r) => r.name === 'train')?.uid ?? '';
    }
    const plan = planAction(live.index, cluster, uid, 'suspend');
    assert.ok(!('error' in plan), JSON.stringify(plan));
    // Someone else changes it in between.
    const js = sim.store.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'default', 'train')!;
    sim.store.update({ ...js, metadata: { ...js.metadata, labels: { touched: 'yes' } } });
    const outcome = await runAction(plan, live.connection(cluster)!, 'none', 'test');
    assert.equal(outcome.result, 'conflict');
    assert.match(outcome.message, /changed since you looked/);
    assert.equal(suspended(), false);
  } finally {
    live.stop();
  }
});

test('a bad --dry-run value is a usage error', async () => {
  const r = await runWmap(['suspend', 'jobset/train', '--dry-run=maybe', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(r.code, 1);
  assert.match(r.err, /--dry-run must be "none", "server" or "client"/);
});
