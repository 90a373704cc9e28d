/**
 * A NIMCache owns a batch Job (a kind the catalog also serves) that owns the download pods: the live
 * index makes the NIMCache the one row, with the Job's pods in its `job` role, and no row for the Job.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '../catalog/index.ts';
import { parseDocuments, type KubeObject } from '../engine/index.ts';
import { DefinitionSet } from './definitions.ts';
import { LiveWorkloads } from './live.ts';
import { WorkloadIndex } from './workload-index.ts';

const catalog = LiveWorkloads.catalogEntries(loadCatalog());
const open: WorkloadIndex[] = [];
afterEach(() => {
  for (const i of open.splice(0)) i.close();
});

function fixture(state: string): KubeObject[] {
  const file = fileURLToPath(new URL(`../../catalog/fixtures/apps-nvidia-com-nimcache-v1alpha1/${state}.yaml`, import.meta.url));
  return parseDocuments(readFileSync(file, 'utf8'), file).documents.map((d) => d.value as KubeObject);
}

for (const state of ['running', 'degraded']) {
  test(`NIMCache ${state}: one row, the caching Job's pods in its job role, no Job row`, () => {
    const i = new WorkloadIndex(new DefinitionSet(catalog), { coalesceMs: 1e9 });
    open.push(i);
    const objects = fixture(state);
    i.upsertMany('c1', objects);
    i.flush();
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
