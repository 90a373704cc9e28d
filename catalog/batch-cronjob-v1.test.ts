// CronJob (batch/v1): pods two levels down (CronJob -> Job -> Pod); only active runs want GPUs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, resolveFixture } from './testing.ts';

const SLUG = 'batch-cronjob-v1';
// 1 GPU as a limit only
const GPU1 = { 'nvidia.com/gpu': 1 };

test("pending: today's run is active with its pod unschedulable; yesterday's finished pod is kept", () => {
  const tree = resolveFixture(SLUG, 'pending');
  assert.deepEqual(digest(tree), {
    // the CronJob has an active run; that the run waits for a GPU shows in the role and GPUs
    status: ['Running'],
    roles: { job: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'nightly-eval-29821080-rjnv8': 'job/', 'nightly-eval-29822520-dk4gf': 'job/' },
    unmatched: [],
    gpus: { desired: 1, requested: 1, allocated: 0 },
    errors: [],
  });
  assert.deepEqual(tree.gang, []);
});

test('running: one active run plus two runs in the history, pods of three Jobs', () => {
  const tree = resolveFixture(SLUG, 'running');
  assert.deepEqual(digest(tree), {
    status: ['Running'],
    roles: { job: { desired: 1, live: 1, ready: 1, gpusPerPod: GPU1 } },
    pods: { 'nightly-eval-29819640-6t746': 'job/', 'nightly-eval-29821080-zwhrl': 'job/', 'nightly-eval-29822520-qgptn': 'job/' },
    unmatched: [],
    gpus: { desired: 1, requested: 1, allocated: 1 },
    errors: [],
  });
});

test('succeeded: idle, the last run succeeded after the last schedule: Completed, no GPUs wanted', () => {
  const tree = resolveFixture(SLUG, 'succeeded');
  assert.deepEqual(digest(tree), {
    status: ['Completed'],
    roles: { job: { desired: 0, live: 0, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'nightly-eval-29821080-2tgsn': 'job/', 'nightly-eval-29822520-27gzq': 'job/' },
    unmatched: [],
    gpus: { desired: 0, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('failed: idle, the last success is older than the last schedule: Failed', () => {
  const tree = resolveFixture(SLUG, 'failed');
  assert.deepEqual(digest(tree), {
    status: ['Failed'],
    roles: { job: { desired: 0, live: 0, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'nightly-eval-29821080-lx7wc': 'job/', 'nightly-eval-29822520-l79cm': 'job/' },
    unmatched: [],
    gpus: { desired: 0, requested: 0, allocated: 0 },
    errors: [],
  });
});

test('suspended: spec.suspend, nothing active', () => {
  const tree = resolveFixture(SLUG, 'suspended');
  assert.deepEqual(digest(tree), {
    status: ['Suspended'],
    roles: { job: { desired: 0, live: 0, ready: 0, gpusPerPod: GPU1 } },
    pods: { 'nightly-eval-29821080-z9l47': 'job/' },
    unmatched: [],
    gpus: { desired: 0, requested: 0, allocated: 0 },
    errors: [],
  });
});
