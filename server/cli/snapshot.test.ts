import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSim, type SimHandle } from '../sim/index.ts';
import type { WorkloadRow } from '../workloads/index.ts';
import type { LiveWorkloads } from '../workloads/live.ts';
import { connectOnce } from './live-commands.ts';
import { readSnapshot } from './snapshot.ts';
import { selectWorkloads } from './tree-command.ts';
import { runWmap } from './run-for-tests.ts';

// The demo scenario run for a while, then frozen (no controllers) so that two reads see the same cluster.
const dir = mkdtempSync(join(tmpdir(), 'wmap-snapshot-'));
process.env.WMAP_CACHE_DIR = join(dir, 'cache');
let sim: SimHandle;
let live: LiveWorkloads;
let reference: WorkloadRow[];

before(async () => {
  const stateFile = join(dir, 'state.json');
  const running = await startSim({ scenario: 'demo', seed: 7, stateFile });
  await new Promise((r) => setTimeout(r, 4000));
  await running.stop();
  sim = await startSim({ scenario: 'empty', controllers: false, stateFile, identities: true });
  ({ live } = await connectOnce({ kubeconfig: sim.kubeconfigPath }));
  reference = live.index.allRows().sort((a, b) => (a.id < b.id ? -1 : 1));
  assert.ok(reference.length > 20, `the demo has workloads (${reference.length})`);
});

after(async () => {
  live?.stop();
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const byId = (rows: WorkloadRow[]) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));

test('every row as the live index has it, reading every namespace with plain lists', async () => {
  const snap = await readSnapshot({ kubeconfig: sim.kubeconfigPath, allNamespaces: true }, { all: true });
  try {
    assert.deepEqual(byId(snap.index.allRows()), reference);
    assert.deepEqual([...snap.failures.keys()], []);
  } finally {
    snap.stop();
  }
});

test('one namespace: the rows of that namespace only, and no list of any other', async () => {
  const snap = await readSnapshot({ kubeconfig: sim.kubeconfigPath, namespace: 'team-llm' }, { all: true });
  try {
    assert.deepEqual(byId(snap.index.allRows().filter((r) => r.namespace === 'team-llm')), reference.filter((r) => r.namespace === 'team-llm'));
    assert.ok(snap.index.allRows().every((r) => r.namespace === 'team-llm' || r.namespace === ''), 'nothing of other namespaces');
    for (const l of snap.listed) assert.ok(l.namespaces === null ? !l.resource.namespaced : l.namespaces.join() === 'team-llm', `${l.gk} listed in ${String(l.namespaces)}`);
  } finally {
    snap.stop();
  }
});

test("one workload: its tree as the live index resolves it, from its definition's kinds only, for every workload of the demo", async () => {
  for (const row of reference) {
    const at = live.index.rootOfRow(row.id)!;
    const want = live.index.resolve(at.cluster, at.uid)!.tree;
    const scope = { kind: `${row.kind.toLowerCase()}${row.apiVersion.includes('/') ? `.${row.apiVersion.split('/')[0]}` : ''}`, name: row.name };
    const snap = await readSnapshot({ kubeconfig: sim.kubeconfigPath, namespace: row.namespace || 'default' }, scope);
    try {
      const got = selectWorkloads(snap, scope, {});
      assert.equal(got.length, 1, row.id);
      assert.deepEqual(got[0].tree, want, row.id);
      // Only what it needs: no list of every node, and the catalog compiled for its own kinds.
      assert.ok(!snap.listed.some((l) => l.gk === '/Node'), `${row.id}: nodes read by name only`);
    } finally {
      snap.stop();
    }
  }
});

test('a workload owned by another one says whose it is; an object of no served kind is an error', async () => {
  // A Job of the demo's JobSet belongs to the JobSet's row.
  const job = sim.store.list('batch/v1', 'Job', {}).find((j) => j.metadata.ownerReferences?.some((r) => r.kind === 'JobSet'));
  assert.ok(job, 'the demo has a JobSet with Jobs');
  const r = await runWmap(['tree', `job/${job.metadata.name}`, '-n', job.metadata.namespace!, '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^wmap: job\.batch\/\S+ is part of the workload jobset\.jobset\.x-k8s\.io\/\S+ in namespace \S+: wmap tree jobset\.jobset\.x-k8s\.io\/\S+$/);
  const unknown = await runWmap(['tree', 'frobnicator/x', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.err, 'wmap: the server doesn\'t have a resource type "frobnicator"');
});

test('RBAC: a user who may read one namespace gets its workloads with -n, and with -A the namespaces a cluster-wide list refuses are read one by one', async () => {
  const bob = sim.identityKubeconfigs.bob!;
  const mine = reference.filter((r) => r.namespace === 'team-vision').map((r) => r.name);
  assert.ok(mine.length > 0, 'the demo has workloads in team-vision');
  const inNs = await runWmap(['get', 'workloads', '-n', 'team-vision', '-o', 'name', '--kubeconfig', bob]);
  assert.equal(inNs.code, 0, inNs.err);
  assert.deepEqual(inNs.out.split('\n').map((l) => l.slice(l.indexOf('/') + 1)).sort(), [...mine].sort());
  // Cluster-wide reads are refused; bob may not list namespaces either, so the context's (and -n's) is read.
  const all = await runWmap(['get', 'workloads', '-A', '-n', 'team-vision', '-o', 'name', '--kubeconfig', bob]);
  assert.equal(all.code, 0, all.err);
  assert.deepEqual(all.out.split('\n').map((l) => l.slice(l.indexOf('/') + 1)).sort(), [...mine].sort());
  assert.match(all.err, /pods: cannot list in every namespace \(forbidden\); listed in team-vision/);
  // What bob may not see is not shown as empty: the command says which kinds it could not read.
  const other = await runWmap(['get', 'workloads', '-n', 'team-llm', '--kubeconfig', bob]);
  assert.equal(other.code, 0);
  assert.match(other.err, /warning: pods cannot be read: .*forbidden/i);
  // carol may read everything (view cluster-wide): the same rows as the admin.
  const carol = await runWmap(['get', 'workloads', '-A', '-o', 'name', '--kubeconfig', sim.identityKubeconfigs.carol!]);
  assert.equal(carol.code, 0, carol.err);
  assert.equal(carol.out.split('\n').length, reference.length);
});
