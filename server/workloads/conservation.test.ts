/** The conservation check: rows against the live pods' own specs, per GPU resource, with the pods not counted named. */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { jobSetObjects } from '../engine/test-support.ts';
import { conservation, podSpecDevices } from './conservation.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { WorkloadIndex } from './workload-index.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

const pod = (name: string, spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec, status: { phase: 'Running' }, ...extra });
const gpu = (n: unknown, where: 'limits' | 'requests' = 'limits') => ({ resources: { [where]: { 'nvidia.com/gpu': n } } });

test('a pod\'s devices by the scheduler\'s rule: app containers, init containers with the sidecars before them, overhead', () => {
  const p = pod('p', {
    initContainers: [{ name: 'sidecar', restartPolicy: 'Always', ...gpu(1) }, { name: 'warmup', ...gpu(4) }],
    containers: [{ name: 'a', ...gpu(2) }, { name: 'b', ...gpu('1', 'requests') }],
  });
  // app 3 + sidecar 1 = 4; init: 4 + 1 sidecar = 5 → 5.
  assert.deepEqual([...podSpecDevices(p)], [['nvidia.com/gpu', 5]]);
  const unreadable: string[] = [];
  podSpecDevices(pod('q', { containers: [{ name: 'c', ...gpu('1.5') }, { name: 'd', ...gpu('-4') }, { name: 'e', ...gpu('abc') }] }), unreadable);
  assert.equal(unreadable.length, 3);
  assert.match(unreadable[0], /default\/q: container c nvidia.com\/gpu "1.5"/);
});

test('the demo-like mix balances: every live pod with GPUs is in one row, sums equal per resource', () => {
  const i = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
  open.push(i);
  const tj: KubeObject = { apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', metadata: { name: 'tj', namespace: 'default', uid: 'uid-tj' } };
  i.upsertMany('c1', [
    ...jobSetObjects({ name: 'a', workers: 2, gpus: 8 }),
    tj,
    pod('tj-0', { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/mig-1g.10gb': 2 } } }] }, { metadata: { name: 'tj-0', namespace: 'default', uid: 'uid-tj-0', ownerReferences: [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name: 'tj', uid: 'uid-tj', controller: true }] } }),
    pod('done', { containers: [{ name: 'c', ...gpu(4) }] }, { status: { phase: 'Succeeded' } }),
    pod('bare', { containers: [{ name: 'c', ...gpu(1) }] }),
  ]);
  i.flush();
  const [c] = conservation(i);
  assert.equal(c.ok, true, JSON.stringify(c));
  assert.deepEqual(c.resources, [
    { resource: 'nvidia.com/gpu', rows: 25, pods: 25 },
    { resource: 'nvidia.com/mig-1g.10gb', rows: 2, pods: 2 },
  ]);
  assert.deepEqual(c.uncounted, []);
});

test('a pod no row counts is an error that names it', () => {
  let synced = false;
  const i = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9, isSynced: () => synced, isExpectedKind: (_c, gk) => gk === 'batch/Job' });
  open.push(i);
  // Still waiting for its Job (the lists are arriving): no row counts it yet.
  i.upsertMany('c1', [pod('waiting', { containers: [{ name: 'c', ...gpu(2) }] }, { metadata: { name: 'waiting', namespace: 'default', uid: 'uid-waiting', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'uid-j', controller: true }] } })]);
  i.flush();
  const [c] = conservation(i);
  assert.equal(c.ok, false);
  assert.deepEqual(c.uncounted, ['default/waiting']);
  assert.deepEqual(c.resources, [{ resource: 'nvidia.com/gpu', rows: 0, pods: 2 }]);
  synced = true;
  i.flush();
  assert.equal(conservation(i)[0].ok, true);
});
