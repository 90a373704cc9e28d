import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TreeRole } from '../engine/index.ts';
import { rolesSummary } from './row-of-tree.ts';

const role = (name: string, desiredPods: number, component = name): TreeRole => ({ name, component, instance: name, desiredPods, livePods: desiredPods, readyPods: desiredPods, gpusPerPod: {} });
const summary = (...roles: Array<[string, number]>) => rolesSummary(roles.map(([n, d]) => role(n, d)));

test('each role as the pods it asks for, named by its role', () => {
  assert.equal(summary(['leader', 1], ['worker', 2]), '1 leader · 2 workers');
  assert.equal(summary(['head', 1], ['submitter', 1]), '1 head · 1 submitter');
  assert.equal(summary(['VllmDecodeWorker', 2], ['Frontend', 1]), '2 VllmDecodeWorkers · 1 Frontend');
  assert.equal(summary(), '');
});

test('English plurals', () => {
  assert.equal(summary(['proxy', 2], ['mixcoord', 1], ['querynode', 2]), '2 proxies · 1 mixcoord · 2 querynodes');
  assert.equal(summary(['gateway', 2]), '2 gateways');
  assert.equal(summary(['index', 3], ['batch', 2], ['PROXY', 2]), '3 indexes · 2 batches · 2 PROXIES');
  // A name that is already plural (or ends in s) stays.
  assert.equal(summary(['gpu-workers', 2], ['redis', 3]), '2 gpu-workers · 3 redis');
  // Qualified names (the same instance name under two components) take the plural at the end.
  assert.equal(rolesSummary([role('a/worker', 2, 'a'), role('b/worker', 1, 'b')]), '2 a/workers · 1 b/worker');
});

test('roles named after their kind count pods, not objects', () => {
  assert.equal(summary(['statefulset', 3]), '3 pods');
  assert.equal(summary(['deployment', 1]), '1 pod');
  assert.equal(summary(['pod', 1]), '1 pod');
  assert.equal(summary(['revision', 0]), '0 pods');
  assert.equal(summary(['job', 2]), '2 pods');
  assert.equal(summary(['StatefulSet', 2]), '2 pods');
  // Several such roles count together, in the place of the first.
  assert.equal(summary(['deployment', 2], ['sidecar', 1], ['pod', 1]), '3 pods · 1 sidecar');
});

test('names that are no noun to count say pods', () => {
  assert.equal(summary(['head', 1], ['gpu-group', 2], ['mig-group', 1]), '1 head · 2 gpu-group pods · 1 mig-group pod');
  assert.equal(summary(['worker-0', 2]), '2 worker-0 pods');
  assert.equal(summary(['cpu-pool', 4]), '4 cpu-pool pods');
});
