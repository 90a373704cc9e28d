/**
 * Pods owned by a pod: Spark executors' controller is the driver pod, whose controller is the
 * SparkApplication. The live index walks pod → pod → SparkApplication and gives every executor to the
 * application's row (never a row of the driver pod), whichever reference the executors carry and in
 * whatever order the objects arrive.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureObjects } from '../../catalog/testing.ts';
import type { KubeObject } from '../engine/index.ts';
import { directIndex } from './test-support.ts';
import type { WorkloadIndex } from './workload-index.ts';

const SLUG = 'sparkoperator-k8s-io-sparkapplication-v1beta2';
const isExecutor = (o: KubeObject) => o.kind === 'Pod' && o.metadata?.labels?.['spark-role'] === 'executor';
/** Executors as operators before v2.4 created them: the driver pod is their only owner. */
const driverOwnedOnly = (objects: KubeObject[]) =>
  objects.map((o) => (isExecutor(o) ? { ...o, metadata: { ...o.metadata, ownerReferences: o.metadata!.ownerReferences!.filter((r) => r.kind === 'Pod') } } : o));

function sparkRow(i: WorkloadIndex) {
  const rows = i.allRows();
  assert.deepEqual(rows.map((r) => r.kind), ['SparkApplication'], JSON.stringify(rows.map((r) => r.id)));
  return rows[0];
}

for (const [name, objects] of [['driver pod + app references (v2.4+)', fixtureObjects(SLUG, 'running')], ['driver pod reference only', driverOwnedOnly(fixtureObjects(SLUG, 'running'))]] as const) {
  test(`executors through the driver pod (${name}): one SparkApplication row with every pod and GPU`, () => {
    const i = directIndex(objects);
    const r = sparkRow(i);
    assert.equal(r.name, 'rapids-etl');
    assert.deepEqual(r.pods, { ready: 4, total: 4 });
    assert.equal(r.gpus.requested, 3);
    assert.equal(r.gpus.allocated, 3);
    assert.equal(r.status, 'Running');
    const at = i.rootOfRow(r.id)!;
    const tree = i.resolve(at.cluster, at.uid)!.tree;
    assert.deepEqual(tree.unmatchedPods, []);
    assert.deepEqual(tree.pods.map((p) => p.component).sort(), ['driver', 'executor', 'executor', 'executor']);
  });
}

test('executors that arrive before their driver pod join the row when it does; an executor failing updates it', () => {
  const objects = driverOwnedOnly(fixtureObjects(SLUG, 'running'));
  const driver = objects.find((o) => o.kind === 'Pod' && o.metadata?.labels?.['spark-role'] === 'driver')!;
  const i = directIndex(objects.filter((o) => o !== driver));
  i.upsert('c1', driver);
  i.flush();
  const r = sparkRow(i);
  assert.deepEqual(r.pods, { ready: 4, total: 4 });
  assert.equal(r.gpus.requested, 3);

  const exec = objects.find(isExecutor)!;
  i.upsert('c1', { ...exec, status: { ...(exec.status as object), phase: 'Failed', conditions: [{ type: 'Ready', status: 'False' }] } });
  i.flush();
  const after = sparkRow(i);
  assert.equal(after.gpus.requested, 2, 'a failed executor holds no GPU');
  assert.deepEqual(after.pods, { ready: 3, total: 4 });
});
