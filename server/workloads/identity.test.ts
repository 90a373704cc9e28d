/** Row identity carries the API group: one name under two groups' kinds is two rows (issue "every GPU accounted for"). */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { loadCatalog } from '../catalog/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { findRow } from './views.ts';
import { WorkloadIndex } from './workload-index.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

function job(apiVersion: string, uid: string, gpus: number): KubeObject[] {
  const j: KubeObject = { apiVersion, kind: 'Job', metadata: { name: 'x', namespace: 'default', uid }, spec: { template: { spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': gpus } } }] } } } };
  const p: KubeObject = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `x-${uid}`, namespace: 'default', uid: `pod-${uid}`, ownerReferences: [{ apiVersion, kind: 'Job', name: 'x', uid, controller: true }] },
    spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': gpus } } }] },
    status: { phase: 'Running' },
  };
  return [j, p];
}

test('batch/Job x and batch.volcano.sh/Job x in one namespace are two rows; deleting one leaves the other', () => {
  const i = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
  open.push(i);
  const batch = job('batch/v1', 'uid-batch', 2);
  const volcano = job('batch.volcano.sh/v1alpha1', 'uid-volcano', 8);
  i.upsertMany('c1', [...batch, ...volcano]);
  i.flush();
  const ids = i.allRows().map((r) => r.id).sort();
  assert.deepEqual(ids, ['c1/default/Job.batch.volcano.sh/x', 'c1/default/Job.batch/x']);
  assert.equal(i.row('c1/default/Job.batch/x')!.gpus.requested, 2);
  assert.equal(i.row('c1/default/Job.batch.volcano.sh/x')!.gpus.requested, 8);
  // A bare kind names neither when both exist; each is found by its group.
  assert.equal(findRow(i, 'c1', 'default', 'Job', 'x'), null);
  assert.equal(findRow(i, 'c1', 'default', 'Job.batch', 'x')?.gpus.requested, 2);
  i.remove('c1', volcano[0]);
  i.flush();
  assert.deepEqual(i.allRows().map((r) => r.id).sort(), ['c1/default/Job.batch/x', 'c1/default/Pod/x-uid-volcano']);
  assert.equal(i.row('c1/default/Job.batch/x')!.gpus.requested, 2);
  // With one left, an old link with the bare kind still finds it.
  assert.equal(findRow(i, 'c1', 'default', 'job', 'x')?.id, 'c1/default/Job.batch/x');
});
