/**
 * A NIMCache owns a batch Job (a kind the catalog also serves) that owns the download pods: the live
 * index makes the NIMCache the one row, with the Job's pods in its `job` role, and no row for the Job.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureObjects } from '../../catalog/testing.ts';
import { directIndex } from './test-support.ts';

for (const state of ['running', 'degraded']) {
  test(`NIMCache ${state}: one row, the caching Job's pods in its job role, no Job row`, () => {
    const objects = fixtureObjects('apps-nvidia-com-nimcache-v1alpha1', state);
    const i = directIndex(objects);
    const rows = i.allRows();
    assert.deepEqual(rows.map((r) => `${r.kind}/${r.name}`), ['NIMCache/llama-3-1-8b-cache']);
    assert.equal(rows[0].definition.source, 'catalog');
    const at = i.rootOfRow(rows[0].id)!;
    const tree = i.resolve(at.cluster, at.uid)!.tree;
    const jobPods = objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata?.name).sort();
    assert.ok(jobPods.length > 0);
    assert.deepEqual(tree.pods.map((p) => `${p.name}:${p.component}`).sort(), jobPods.map((n) => `${n}:job`));
    assert.deepEqual(tree.unmatchedPods, []);
  });
}
