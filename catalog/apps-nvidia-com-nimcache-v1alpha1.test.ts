import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, resolveFixture } from './testing.ts';

const SLUG = 'apps-nvidia-com-nimcache-v1alpha1';
const NO_GPUS = { desired: 0, requested: 0, allocated: 0 };
const CPU_ONLY = {};

test('pending: PVC created, the model-manifest probe pod starting, no Job yet', () => {
  const tree = resolveFixture(SLUG, 'pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  assert.equal(tree.status.phase, 'PVC-Created');
  assert.deepEqual(d.roles, {
    manifest: { desired: 1, live: 1, ready: 0, gpusPerPod: CPU_ONLY },
    job: { desired: 1, live: 0, ready: 0, gpusPerPod: CPU_ONLY },
  });
  assert.deepEqual(d.pods, { 'llama-3-1-8b-cache-pod': 'manifest/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, NO_GPUS);
  assert.deepEqual(tree.gang, []);
});

test('running: the caching Job downloads; the probe pod is gone', () => {
  const tree = resolveFixture(SLUG, 'running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, {
    manifest: { desired: 0, live: 0, ready: 0, gpusPerPod: CPU_ONLY },
    job: { desired: 1, live: 1, ready: 1, gpusPerPod: CPU_ONLY },
  });
  assert.deepEqual(d.pods, { 'llama-3-1-8b-cache-job-srwgt': 'job/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, NO_GPUS);
  assert.deepEqual(tree.gang, []);
});

test('degraded: a failed attempt left NIM_CACHE_JOB_COMPLETED False while the Job retries', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Degraded']);
  assert.equal(tree.status.phase, 'InProgress');
  assert.deepEqual(d.roles.job, { desired: 1, live: 1, ready: 1, gpusPerPod: CPU_ONLY });
  assert.deepEqual(d.pods, { 'llama-3-1-8b-cache-job-2rdlf': 'job/', 'llama-3-1-8b-cache-job-jvfjf': 'job/' });
  assert.deepEqual(Object.fromEntries(tree.pods.map((p) => [p.name, p.phase])), { 'llama-3-1-8b-cache-job-2rdlf': 'Running', 'llama-3-1-8b-cache-job-jvfjf': 'Failed' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, NO_GPUS);
});

test('failed: six failed attempts (backoffLimit 5), no live pod', () => {
  const tree = resolveFixture(SLUG, 'failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.deepEqual(d.roles.job, { desired: 1, live: 0, ready: 0, gpusPerPod: CPU_ONLY });
  assert.equal(tree.pods.length, 6);
  assert.ok(tree.pods.every((p) => p.component === 'job' && p.phase === 'Failed'));
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, NO_GPUS);
});

test('succeeded: Ready is Completed; the finished pod is still shown and nothing more is wanted', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Completed']);
  assert.deepEqual(d.roles, {
    manifest: { desired: 0, live: 0, ready: 0, gpusPerPod: CPU_ONLY },
    job: { desired: 0, live: 0, ready: 0, gpusPerPod: CPU_ONLY },
  });
  assert.deepEqual(d.pods, { 'llama-3-1-8b-cache-job-j6xxq': 'job/' });
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, NO_GPUS);
});

test('reconcile failed: NotReady with NIM_CACHE_RECONCILE_FAILED True is Failed, not Initializing', () => {
  const tree = resolveFixture(SLUG, 'reconcile-failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.equal(tree.status.phase, 'NotReady');
  assert.deepEqual(tree.pods, []);
  assert.deepEqual(d.gpus, NO_GPUS);
});
