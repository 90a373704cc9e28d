/**
 * GPU quantities read as the API server reads them (issue "every GPU accounted for"): whole devices
 * in any valid quantity form count; a value the API server would reject is an error naming the pod
 * and the container, never a silent 0, a fraction or null; replica counts it would refuse are errors,
 * never negative totals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deviceCount } from '../../lib/quantity/index.ts';
import { compileOne, jobSetObjects, JOBSET_DEFINITION } from './test-support.ts';
import { containerGpus } from './gpu.ts';
import { resolveWorkload } from './resolve/resolve.ts';
import type { KubeObject } from './k8s.ts';

test('device counts: valid quantity forms of whole numbers count; the rest say why', () => {
  const ok = (v: unknown) => { const d = deviceCount(v); return d.ok ? d.value : `err: ${d.message}`; };
  assert.equal(ok('4'), 4);
  assert.equal(ok(8), 8);
  assert.equal(ok('2e0'), 2);
  assert.equal(ok('1k'), 1000);
  assert.equal(ok('4000m'), 4);
  assert.equal(ok('+3'), 3);
  assert.match(String(ok('1.5')), /must be an integer/);
  assert.match(String(ok('500m')), /must be an integer/);
  assert.match(String(ok(1.5)), /must be an integer/);
  assert.match(String(ok('-4')), /greater than or equal to 0/);
  assert.match(String(ok(-4)), /greater than or equal to 0/);
  assert.match(String(ok('abc')), /quantities must match the regular expression/);
  assert.match(String(ok('0x10')), /quantities must match|suffix/);
  assert.match(String(ok('1e400')), /more devices than can be counted/);
  assert.match(String(ok(null)), /null/);
  assert.match(String(ok({})), /not a quantity/);
});

test('a container\'s bad GPU value is reported with its container and field, and not counted', () => {
  const problems: string[] = [];
  const g = containerGpus({ name: 'trainer', resources: { limits: { 'nvidia.com/gpu': '1.5', 'amd.com/gpu': '2' } } }, undefined, (m) => problems.push(m));
  assert.deepEqual(g, { 'amd.com/gpu': 2 });
  assert.deepEqual(problems, ['container trainer: resources.limits["nvidia.com/gpu"] "1.5" must be an integer (extended resources are whole devices); not counted']);
});

test('in a workload: each rejected quantity is an error on the tree naming the pod; the good pods count exactly', () => {
  const objects = jobSetObjects({ name: 'q', workers: 3, gpus: 4 });
  const pods = objects.filter((o) => o.kind === 'Pod');
  const bad = ['-4', 'abc', '1e400'];
  bad.forEach((v, i) => ((pods[i + 1].spec as { containers: Array<{ resources: { limits: Record<string, unknown> } }> }).containers[0].resources.limits['nvidia.com/gpu'] = v));
  const tree = resolveWorkload(compileOne(JOBSET_DEFINITION), objects[0], objects);
  // The leader pod alone counts: 4 GPUs; the others are errors, not 0s that look like data.
  assert.equal(tree.gpus.requested.total, 4);
  const msgs = tree.errors.filter((e) => e.code === 'object.quantity').map((e) => e.message);
  assert.equal(msgs.length, 3, JSON.stringify(tree.errors));
  for (const [i, v] of bad.entries()) assert.ok(msgs.some((m) => m.includes(String((pods[i + 1].metadata as { name: string }).name)) && m.includes('container trainer') && m.includes(JSON.stringify(v))), `${v}: ${msgs.join('\n')}`);
});

test('negative or absurd replica counts are errors with desired unknown, never negative totals', () => {
  for (const replicas of [-3, 2 ** 40]) {
    const objects = jobSetObjects({ name: 'r', workers: 1, gpus: 2 });
    const root = objects[0] as KubeObject & { spec: { replicatedJobs: Array<{ replicas: number }> } };
    root.spec.replicatedJobs[1].replicas = replicas;
    const tree = resolveWorkload(compileOne(JOBSET_DEFINITION), root, objects);
    assert.ok(tree.gpus.desired.total >= 0);
    assert.equal(tree.gpus.desired.total, 2, 'the leader only');
    const e = tree.errors.find((x) => x.code === 'object.replicas');
    assert.ok(e, JSON.stringify(tree.errors));
    assert.match(e.message, new RegExp(`asks for ${replicas} replicas`));
  }
});
