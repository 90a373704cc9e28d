/**
 * A TrainJob owns a JobSet, itself a kind the catalog serves: the live index makes the topmost served
 * owner the row, so the TrainJob is one row with every pod (two levels down) and the JobSet is no row
 * of its own, and no pod is counted twice. Fed the catalog fixture (objects as the trainer creates them).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureObjects } from '../../catalog/testing.ts';
import { conservation } from './conservation.ts';
import { directIndex } from './test-support.ts';

const SLUG = 'trainer-kubeflow-org-trainjob-v1alpha1';

test('the TrainJob is the row; its JobSet, Jobs and pods are in it, once', () => {
  const objects = fixtureObjects(SLUG, 'running');
  const index = directIndex(objects);
  const rows = index.allRows();
  assert.deepEqual(rows.map((r) => `${r.kind}/${r.name}`), ['TrainJob/llama-sft']);
  const [row] = rows;
  assert.equal(row.definition.name, SLUG);
  // 2 initializer pods (done) and 2 trainer nodes with 2 GPUs each.
  assert.deepEqual(row.pods, { ready: 2, total: 4, done: 2 });
  assert.equal(row.gpus.requested, 4);
  assert.equal(row.gpus.desired, 4);
  const at = index.rootOfRow(row.id)!;
  const tree = index.resolve(at.cluster, at.uid)!.tree;
  assert.equal(tree.pods.length, 4);
  assert.deepEqual(tree.unmatchedPods, []);
  assert.deepEqual(tree.errors, []);
  const [c] = conservation(index);
  assert.equal(c.ok, true, JSON.stringify(c));
});

test('without the TrainJob (its owner gone) the JobSet is the row again, with the same pods', () => {
  const objects = fixtureObjects(SLUG, 'running').filter((o) => o.kind !== 'TrainJob');
  const rows = directIndex(objects).allRows();
  assert.deepEqual(rows.map((r) => `${r.kind}/${r.name}`), ['JobSet/llama-sft']);
  assert.equal(rows[0].gpus.requested, 4);
  assert.equal(rows[0].pods.total, 4);
});
