// Job (batch/v1): parallelism pods at a time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, resolveFixture } from './testing.ts';

const SLUG = 'batch-job-v1';
// 2 GPUs per pod as a limit only
const GPU2 = { 'nvidia.com/gpu': 2 };

test('pending: both pods unschedulable, none ready: Initializing', () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    status: ['Initializing'],
    roles: { job: { desired: 2, live: 2, ready: 0, gpusPerPod: GPU2 } },
    pods: { 'eval-run-9fhmq': 'job/', 'eval-run-d5xfm': 'job/' },
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(tree.gang, []);
});

test('running: 2 active, 2 ready', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: { job: { desired: 2, live: 2, ready: 2, gpusPerPod: GPU2 } },
    pods: { 'eval-run-2bx85': 'job/', 'eval-run-78sx2': 'job/' },
    unmatched: [],
    gpus: { desired: 4, requested: 4, allocated: 4 },
    errors: [],
  });
});

test('succeeded: SuccessCriteriaMet and Complete map to Completed only', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: { job: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU2 } },
    pods: { 'eval-run-4jp8z': 'job/', 'eval-run-btv8x': 'job/' },
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('failed: one pod OOMKilled, the other terminated: FailureTarget and Failed map to Failed only', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: { job: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU2 } },
    pods: { 'eval-run-f6z2x': 'job/', 'eval-run-xpfls': 'job/' },
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended: spec.suspend, no pods', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: { job: { desired: 2, live: 0, ready: 0, gpusPerPod: GPU2 } },
    pods: {},
    unmatched: [],
    gpus: { desired: 4, requested: 0, allocated: 0 },
    errors: [],
  });
});
