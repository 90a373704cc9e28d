/**
 * The write commands against the simulated cluster: `wmap suspend|resume`, `label`, `annotate`, `set image|env|resources`
 * and `delete` — the diff first, client and server dry runs that persist nothing, the write read back from the
 * cluster, conflicts that write nothing, errors that name the alternatives, the audit log.
 */
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

/** A live index of the simulated cluster, once it holds the workload `name`. */
async function watching(name: string): Promise<{ live: LiveWorkloads; cluster: string; uid: string }> {
  const configs = loadClusterConfigs({ kubeconfig: sim.kubeconfigPath });
  const live = new LiveWorkloads({ clusters: configs, catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
  live.start();
  let uid = '';
  for (let i = 0; i < 200 && !uid; i++) {
    await new Promise((r) => setTimeout(r, 50));
    live.index.flush();
    uid = live.index.allRows().find((r) => r.name === name)?.uid ?? '';
  }
  return { live, cluster: configs[0].name, uid };
}

test('a workload that changed after it was looked at is a conflict: nothing is written', async () => {
  const { live, cluster, uid } = await watching('train');
  try {
    const plan = planAction(live.index, cluster, uid, { action: 'suspend' });
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

// --- labels, annotations, set image|env|resources, delete ---

const JS = ['jobset.x-k8s.io/v1alpha2', 'JobSet', 'default'] as const;
type Container = { name: string; image: string; env?: Array<Record<string, unknown>>; resources?: Record<string, Record<string, unknown>> };
type Template = { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: { containers: Container[] } };

/** A JobSet with a leader (1 Job) and workers (2 Jobs), one pod each; the workers run a trainer and a sidecar. */
function createJobSet(name: string): void {
  const job = (containers: Container[]) => ({ spec: { parallelism: 1, completions: 1, template: { metadata: { labels: { app: name } }, spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers } } } });
  const trainer = (): Container => ({ name: 'trainer', image: 'img:v1', env: [{ name: 'A', value: '1' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 't' } } }], resources: { limits: { 'nvidia.com/gpu': 1 } } });
  sim.store.create({
    apiVersion: JS[0],
    kind: JS[1],
    metadata: { name, namespace: 'default' },
    spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: job([trainer()]) }, { name: 'worker', replicas: 2, template: job([trainer(), { name: 'sidecar', image: 'side:v1' }]) }] },
  });
}

const jobSetNow = (name: string) => sim.store.get(...JS, name);
/** The pod template of replicated job `i` (0 leader, 1 worker) as the cluster holds it now. */
const templateNow = (name: string, i: number) => (jobSetNow(name)!.spec as { replicatedJobs: Array<{ template: { spec: { template: Template } } }> }).replicatedJobs[i].template.spec.template;
const kc = () => ['--kubeconfig', sim.kubeconfigPath];

test('wmap label: the diff first, then the write on the role\'s template; key- removes; --overwrite guards a changed value', async () => {
  createJobSet('lab');
  const r = await runWmap(['label', 'jobset/lab', '--role', 'worker', 'team=vision', ...kc()]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.match(lines[0], /^=+$|^Index|^--- jobset\/lab \(live\)$/);
  assert.match(r.out, /^\+\s+team: vision$/m);
  assert.match(r.out, /^set labels of role worker: team=vision \(1 pod template, for 2 pods\)$/m);
  assert.equal(lines.at(-1), 'jobset.jobset.x-k8s.io/lab labeled');
  assert.deepEqual(templateNow('lab', 1).metadata?.labels, { app: 'lab', team: 'vision' });
  assert.deepEqual(templateNow('lab', 0).metadata?.labels, { app: 'lab' }, 'the leader is untouched');

  const refused = await runWmap(['label', 'jobset/lab', 'app=other', ...kc()]);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /'app' already has a value \(lab\), and --overwrite is false/);
  assert.equal(templateNow('lab', 0).metadata?.labels?.app, 'lab');
  const over = await runWmap(['label', 'jobset/lab', 'app=other', '--overwrite', ...kc()]);
  assert.equal(over.code, 0, over.err);
  assert.equal(templateNow('lab', 0).metadata?.labels?.app, 'other');
  assert.equal(templateNow('lab', 1).metadata?.labels?.app, 'other', 'no --role: every role');

  const removed = await runWmap(['label', 'jobset/lab', '--role', 'worker', 'team-', ...kc()]);
  assert.equal(removed.code, 0, removed.err);
  assert.match(removed.out, /^-\s+team: vision$/m);
  assert.match(removed.out, /jobset\.jobset\.x-k8s\.io\/lab unlabeled$/);
  assert.deepEqual(templateNow('lab', 1).metadata?.labels, { app: 'other' });
  const again = await runWmap(['label', 'jobset/lab', '--role', 'worker', 'team-', ...kc()]);
  assert.equal(again.code, 0, again.err);
  assert.equal(again.out, 'jobset.jobset.x-k8s.io/lab not labeled');

  const bad = await runWmap(['label', 'jobset/lab', 'team', ...kc()]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /"team" is not a valid label change: use KEY=VALUE to set it or KEY- to remove it/);
  const invalid = await runWmap(['label', 'jobset/lab', 'team=has space', ...kc()]);
  assert.equal(invalid.code, 1);
  assert.match(invalid.err, /^error: invalid label team=has space: a label value must be 63 characters or less/m);
});

test('wmap annotate: client and server dry runs leave the object as it was, then the write', async () => {
  createJobSet('ann');
  // The JobSet controller writes its status meanwhile: the spec is what a dry run must leave alone.
  const spec = JSON.stringify(jobSetNow('ann')!.spec);
  const client = await runWmap(['annotate', 'jobset/ann', '--role', 'leader', 'example.com/note=hello world', '--dry-run=client', ...kc()]);
  assert.equal(client.code, 0, client.err);
  assert.match(client.out, /^\+\s+example\.com\/note: hello world$/m);
  assert.match(client.out, /jobset\.jobset\.x-k8s\.io\/ann annotated \(dry run\)$/);
  const server = await runWmap(['annotate', 'jobset/ann', '--role', 'leader', 'example.com/note=hello world', '--dry-run=server', ...kc()]);
  assert.equal(server.code, 0, server.err);
  assert.match(server.out, /jobset\.jobset\.x-k8s\.io\/ann annotated \(server dry run\)$/);
  assert.equal(JSON.stringify(jobSetNow('ann')!.spec), spec, 'nothing persisted');
  assert.equal(templateNow('ann', 0).metadata?.annotations, undefined);
  const w = await runWmap(['annotate', 'jobset/ann', '--role', 'leader', 'example.com/note=hello world', ...kc()]);
  assert.equal(w.code, 0, w.err);
  assert.match(w.out, /jobset\.jobset\.x-k8s\.io\/ann annotated$/);
  assert.deepEqual(templateNow('ann', 0).metadata?.annotations, { 'example.com/note': 'hello world' });
});

test('wmap set image: containers by name in one patch; unknown roles and containers name the alternatives', async () => {
  createJobSet('img');
  const r = await runWmap(['set', 'image', 'jobset/img', '--role', 'worker', 'trainer=img:v2', 'sidecar=side:v2', ...kc()]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^set image of role worker container trainer to img:v2, container sidecar to side:v2 \(1 pod template, for 2 pods\)$/m);
  assert.match(r.out, /jobset\.jobset\.x-k8s\.io\/img image updated$/);
  assert.deepEqual(templateNow('img', 1).spec.containers.map((c) => c.image), ['img:v2', 'side:v2']);
  assert.equal(templateNow('img', 0).spec.containers[0].image, 'img:v1');
  const star = await runWmap(['set', 'image', 'jobset/img', '--role', 'leader', '*=img:v3', '--dry-run=server', ...kc()]);
  assert.equal(star.code, 0, star.err);
  assert.match(star.out, /image updated \(server dry run\)$/);
  assert.equal(templateNow('img', 0).spec.containers[0].image, 'img:v1');

  const role = await runWmap(['set', 'image', 'jobset/img', '--role', 'chief', 'trainer=x:1', ...kc()]);
  assert.equal(role.code, 1);
  assert.match(role.err, /no role "chief" in JobSet img \(roles: leader, worker; or a component, for all its instances: replicatedjob\)/);
  const container = await runWmap(['set', 'image', 'jobset/img', '--role', 'worker', 'main=x:1', ...kc()]);
  assert.equal(container.code, 1);
  assert.match(container.err, /^error: role worker has no container "main" \(containers in its pod template: trainer, sidecar\)$/m);
  const noRole = await runWmap(['set', 'image', 'jobset/img', 'trainer=x:1', ...kc()]);
  assert.equal(noRole.code, 1);
  assert.match(noRole.err, /required option '-r, --role <role>' not specified/);
});

test('wmap set env: set and remove by name, valueFrom entries kept; -c is needed when the role has two containers', async () => {
  createJobSet('env');
  const r = await runWmap(['set', 'env', 'jobset/env', '--role', 'leader', 'B=2', 'A-', ...kc()]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /env updated$/);
  assert.deepEqual(templateNow('env', 0).spec.containers[0].env, [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 't' } } }, { name: 'B', value: '2' }]);
  const two = await runWmap(['set', 'env', 'jobset/env', '--role', 'worker', 'B=2', ...kc()]);
  assert.equal(two.code, 1);
  assert.match(two.err, /role worker has 2 containers \(trainer, sidecar\): name one with -c/);
  const side = await runWmap(['set', 'env', 'jobset/env', '--role', 'worker', '-c', 'sidecar', 'MODE=fast', ...kc()]);
  assert.equal(side.code, 0, side.err);
  assert.deepEqual(templateNow('env', 1).spec.containers[1].env, [{ name: 'MODE', value: 'fast' }]);
  assert.equal(templateNow('env', 1).spec.containers[0].env?.length, 2, 'the trainer is untouched');
});

test('wmap set resources: requests and limits merged key by key; an invalid quantity writes nothing', async () => {
  createJobSet('res');
  const r = await runWmap(['set', 'resources', 'jobset/res', '--role', 'leader', '--requests=cpu=1,memory=2Gi', '--limits=nvidia.com/gpu=2', ...kc()]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^set resources of role leader container trainer: requests cpu=1, memory=2Gi; limits nvidia\.com\/gpu=2 \(1 pod template, for 1 pod\)$/m);
  assert.match(r.out, /resource requirements updated$/);
  assert.deepEqual(templateNow('res', 0).spec.containers[0].resources, { limits: { 'nvidia.com/gpu': '2' }, requests: { cpu: '1', memory: '2Gi' } });
  const spec = JSON.stringify(jobSetNow('res')!.spec);
  const bad = await runWmap(['set', 'resources', 'jobset/res', '--role', 'leader', '--requests=cpu=lots', ...kc()]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /invalid quantity "lots" for requests\.cpu/);
  const over = await runWmap(['set', 'resources', 'jobset/res', '--role', 'leader', '--requests=nvidia.com/gpu=4', ...kc()]);
  assert.equal(over.code, 1);
  assert.match(over.err, /requests\.nvidia\.com\/gpu \(4\) would be more than limits\.nvidia\.com\/gpu \(2\)/);
  assert.equal(JSON.stringify(jobSetNow('res')!.spec), spec);
  const removed = await runWmap(['set', 'resources', 'jobset/res', '--role', 'leader', '--requests=memory-', ...kc()]);
  assert.equal(removed.code, 0, removed.err);
  assert.deepEqual(templateNow('res', 0).spec.containers[0].resources?.requests, { cpu: '1' });
});

/** Until the lead's fix of DELETE bodies lands, the delete tests report without failing the run. */

const podsOf = (name: string) => sim.store.list('v1', 'Pod').filter((p) => p.metadata.labels?.['jobset.sigs.k8s.io/jobset-name'] === name);

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); ) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('wmap delete: a dry run keeps it; the delete says what goes with it, and with Background the pods go too', async () => {
  createJobSet('del');
  await until('the pods of del', () => podsOf('del').length === 3);
  const dry = await runWmap(['delete', 'jobset/del', '--dry-run=server', ...kc()]);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /^\+\+\+ jobset\/del \(deleted\)$/m);
  assert.match(dry.out, /^delete JobSet default\/del and its 3 Jobs, 3 pods \(background: the garbage collector removes them after it\)$/m);
  assert.match(dry.out, /jobset\.jobset\.x-k8s\.io\/del deleted \(server dry run\)$/);
  assert.ok(jobSetNow('del'));
  const bad = await runWmap(['delete', 'jobset/del', '--cascade=later', ...kc()]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--cascade must be "background", "foreground" or "orphan"/);
  const r = await runWmap(['delete', 'jobset/del', '--cascade=background', ...kc()]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.split('\n').at(-1), 'jobset.jobset.x-k8s.io/del deleted');
  assert.equal(jobSetNow('del'), undefined);
  await until('the pods of del to go', () => podsOf('del').length === 0);
});

test('wmap delete --cascade=orphan leaves the pods; a delete of a workload changed meanwhile is a conflict and deletes nothing', async () => {
  createJobSet('orph');
  createJobSet('keep');
  await until('the pods', () => podsOf('orph').length === 3 && podsOf('keep').length === 3);
  const r = await runWmap(['delete', 'jobset/orph', '--cascade=orphan', ...kc()]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^delete JobSet default\/orph only, leaving its 3 Jobs, 3 pods behind \(orphaned\)$/m);
  await until('orph to go', () => jobSetNow('orph') === undefined);
  await new Promise((x) => setTimeout(x, 300));
  assert.equal(podsOf('orph').length, 3, 'orphaned, not deleted');

  const { live, cluster, uid } = await watching('keep');
  try {
    const plan = planAction(live.index, cluster, uid, { action: 'delete', propagation: 'Background' });
    assert.ok(!('error' in plan), JSON.stringify(plan));
    const js = jobSetNow('keep')!;
    sim.store.update({ ...js, metadata: { ...js.metadata, labels: { touched: 'yes' } } });
    const outcome = await runAction(plan, live.connection(cluster)!, 'none', 'test');
    assert.equal(outcome.result, 'conflict', outcome.message);
    assert.ok(jobSetNow('keep'), 'still there');
    assert.equal(podsOf('keep').length, 3);
  } finally {
    live.stop();
  }
});

test('a pod-template change planned before someone else changed the workload is a conflict: nothing is written', async () => {
  createJobSet('race');
  const { live, cluster, uid } = await watching('race');
  try {
    const plan = planAction(live.index, cluster, uid, { action: 'image', role: 'worker', container: 'trainer', image: 'img:v9' });
    assert.ok(!('error' in plan), JSON.stringify(plan));
    const js = jobSetNow('race')!;
    sim.store.update({ ...js, metadata: { ...js.metadata, labels: { touched: 'yes' } } });
    const outcome = await runAction(plan, live.connection(cluster)!, 'none', 'test');
    assert.equal(outcome.result, 'conflict');
    assert.equal(templateNow('race', 1).spec.containers[0].image, 'img:v1');
  } finally {
    live.stop();
  }
});
