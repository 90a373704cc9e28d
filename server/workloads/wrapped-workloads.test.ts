/**
 * A workload wrapped in another served workload is counted once, by the outermost: an AppWrapper
 * around a PyTorchJob (AppWrapper → PyTorchJob → pods) or a batch Job (AppWrapper → Job → pods) is one
 * row, the AppWrapper's, holding every pod and GPU; the wrapped PyTorchJob and Job, which the catalog
 * also serves on their own, are no rows. And a Volcano Job (batch.volcano.sh) is served by its own
 * definition, never by batch/v1 Job's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureObjects } from '../../catalog/testing.ts';
import { directIndex } from './test-support.ts';

test('an AppWrapper around a PyTorchJob is the only row: every pod and GPU, the PyTorchJob no row of its own', () => {
  const objects = fixtureObjects('workload-codeflare-dev-appwrapper-v1beta2', 'running');
  assert.ok(objects.some((o) => o.kind === 'PyTorchJob'), 'the fixture holds the wrapped PyTorchJob');
  const i = directIndex(objects);
  const rows = i.allRows();
  assert.deepEqual(rows.map((r) => `${r.kind}/${r.name}`), ['AppWrapper/mnist-ddp'], JSON.stringify(rows.map((r) => r.id)));
  const [row] = rows;
  assert.equal(row.definition.name, 'workload-codeflare-dev-appwrapper-v1beta2');
  assert.equal(row.gpus.requested, 3);
  assert.equal(row.gpus.allocated, 3);
  assert.deepEqual(row.pods, { ready: 3, total: 3 });
  const tree = i.resolve('c1', row.uid)!.tree;
  assert.deepEqual(tree.unmatchedPods, []);
  assert.deepEqual(tree.errors, []);
});

test('an AppWrapper around a batch Job (three levels: AppWrapper → Job → pods) is one row too', () => {
  const i = directIndex(fixtureObjects('workload-codeflare-dev-appwrapper-v1beta2', 'job'));
  const rows = i.allRows();
  assert.deepEqual(rows.map((r) => `${r.kind}/${r.name}`), ['AppWrapper/shard-embed']);
  assert.equal(rows[0].gpus.requested, 2);
});

test('without its AppWrapper, the same PyTorchJob is a row of its own (the catalog serves it)', () => {
  const objects = fixtureObjects('workload-codeflare-dev-appwrapper-v1beta2', 'running').filter((o) => o.kind !== 'AppWrapper');
  for (const o of objects) if (o.kind === 'PyTorchJob') o.metadata!.ownerReferences = [];
  const rows = directIndex(objects).allRows();
  assert.deepEqual(rows.map((r) => `${r.kind}/${r.name}`), ['PyTorchJob/mnist-ddp']);
  assert.equal(rows[0].gpus.requested, 3);
});

test('a Volcano Job is served by the batch.volcano.sh definition, not by batch/v1 Job\'s', () => {
  const rows = directIndex(fixtureObjects('batch-volcano-sh-job-v1alpha1', 'running')).allRows();
  assert.deepEqual(rows.map((r) => [r.apiVersion, r.kind, r.name, r.definition.name]), [['batch.volcano.sh/v1alpha1', 'Job', 'mpi-hello', 'batch-volcano-sh-job-v1alpha1']]);
  assert.equal(rows[0].gpus.requested, 2);
});
