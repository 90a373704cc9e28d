/** `wmap verify`'s per-workload check: GPUs from the raw pod specs by its own code, and finished workloads. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileOne, jobSetObjects, JOBSET_DEFINITION } from '../engine/test-support.ts';
import { resolveWorkload, type KubeObject } from '../engine/index.ts';
import { verifyTree } from './live-commands.ts';

const def = compileOne(JOBSET_DEFINITION);
const podsOf = (objects: KubeObject[]) => objects.filter((o) => o.kind === 'Pod');

test('a healthy workload has no discrepancy', () => {
  const objects = jobSetObjects({ name: 'ok', workers: 2, gpus: 4 });
  assert.deepEqual(verifyTree(resolveWorkload(def, objects[0], objects), podsOf(objects)), []);
});

test('the engine\'s count is checked against the pod specs, read by other code', () => {
  const objects = jobSetObjects({ name: 'x', workers: 1, gpus: 4 });
  const tree = resolveWorkload(def, objects[0], objects);
  // A tree that undercounts (as a bug in the engine would): verify notices from the raw specs.
  tree.gpus.requested.byResource['nvidia.com/gpu'] = 4;
  const d = verifyTree(tree, podsOf(objects)).map((x) => x.message);
  assert.ok(d.includes('nvidia.com/gpu: the engine counts 4 requested, the pod specs ask for 8'), d.join('\n'));
});

test('a finished workload whose pods still ask for GPUs is a discrepancy', () => {
  const objects = jobSetObjects({ name: 'done', workers: 1, gpus: 2, state: 'completed' });
  const pods = podsOf(objects);
  (pods[1].status as { phase: string }).phase = 'Running';
  const d = verifyTree(resolveWorkload(def, objects[0], objects), pods).map((x) => x.message);
  assert.ok(d.some((m) => /the workload is Completed, but pod done-worker-0-\S+ still asks for 2 nvidia\.com\/gpu/.test(m)), d.join('\n'));
});
