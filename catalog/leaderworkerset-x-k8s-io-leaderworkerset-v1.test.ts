import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkloadTree } from '../server/engine/index.ts';
import { digest, resolveFixture } from './testing.ts';

const SLUG = 'leaderworkerset-x-k8s-io-leaderworkerset-v1';
const UID = '6e9b4294-dd70-4b6e-9ebe-e9bd0f304145';
const GPU8 = { 'nvidia.com/gpu': 8 };

/** Pods of one group: leader <lws>-<g>, workers <lws>-<g>-<w>. */
function groupPods(g: number, size: number): string[] {
  return [`llama-405b-${g}`, ...Array.from({ length: size - 1 }, (_, w) => `llama-405b-${g}-${w + 1}`)];
}

function placements(groups: number, size: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let g = 0; g < groups; g++) for (const [i, p] of groupPods(g, size).entries()) out[p] = i === 0 ? 'leader/' : 'worker/';
  return out;
}

function replicaKeys(tree: WorkloadTree): Record<string, string | null> {
  return Object.fromEntries(tree.pods.map((p) => [p.name, p.replica]));
}

function gangs(tree: WorkloadTree) {
  return tree.gang.map((g) => ({ name: g.name, minMember: g.minMember, subGroups: g.subGroups.length, pods: [...g.pods].sort(), source: g.source }));
}

test('pending: one group of 4, every pod unschedulable', () => {
  const tree = resolveFixture(SLUG, 'pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  assert.equal(tree.workload.uid, UID);
  assert.deepEqual(d.roles, {
    leader: { desired: 1, live: 1, ready: 0, gpusPerPod: GPU8 },
    worker: { desired: 3, live: 3, ready: 0, gpusPerPod: GPU8 },
  });
  assert.deepEqual(d.pods, placements(1, 4));
  assert.deepEqual(d.unmatched, []);
  // 4 pods x 8 GPUs asked for; none bound to a node.
  assert.deepEqual(d.gpus, { desired: 32, requested: 32, allocated: 0 });
  assert.deepEqual(gangs(tree), [{ name: `pg-${UID}-llama-405b-0`, minMember: 4, subGroups: 0, pods: groupPods(0, 4).sort(), source: 'podGroups' }]);
});

test('running: 2 groups x 4 pods, two gangs of 4 (not one of 32)', () => {
  const tree = resolveFixture(SLUG, 'running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, {
    leader: { desired: 2, live: 2, ready: 2, gpusPerPod: GPU8 },
    worker: { desired: 6, live: 6, ready: 6, gpusPerPod: GPU8 },
  });
  assert.deepEqual(d.pods, placements(2, 4));
  assert.deepEqual(d.unmatched, []);
  // (2 leaders + 6 workers) x 8
  assert.deepEqual(d.gpus, { desired: 64, requested: 64, allocated: 64 });
  const keys = replicaKeys(tree);
  for (const g of [0, 1]) for (const p of groupPods(g, 4)) assert.equal(keys[p], String(g), p);
  assert.deepEqual(gangs(tree), [
    { name: `pg-${UID}-llama-405b-0`, minMember: 4, subGroups: 0, pods: groupPods(0, 4).sort(), source: 'podGroups' },
    { name: `pg-${UID}-llama-405b-1`, minMember: 4, subGroups: 0, pods: groupPods(1, 4).sort(), source: 'podGroups' },
  ]);
  // The instance minimum is one group's worth, the replicas all groups'.
  const instances = Object.fromEntries(tree.components.map((c) => [c.name, c.instances.map((i) => [i.replicas, i.minReplicas])]));
  assert.deepEqual(instances, { leaderworkerset: [[null, null]], group: [[null, null]], leader: [[2, 1]], worker: [[6, 3]] });
});

test('degraded: group 1 recreated, its workers cannot be placed again', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Degraded']);
  assert.deepEqual(d.roles, {
    leader: { desired: 2, live: 2, ready: 1, gpusPerPod: GPU8 },
    worker: { desired: 6, live: 6, ready: 3, gpusPerPod: GPU8 },
  });
  assert.deepEqual(d.pods, placements(2, 4));
  assert.deepEqual(d.unmatched, []);
  // All 8 pods still ask for their GPUs; the 3 pending workers of group 1 hold none.
  assert.deepEqual(d.gpus, { desired: 64, requested: 64, allocated: 40 });
  assert.equal(tree.pods.find((p) => p.name === 'llama-405b-1')?.node, 'dgx-h100-05');
  assert.deepEqual(
    tree.pods.filter((p) => p.node === null).map((p) => p.name).sort(),
    ['llama-405b-1-1', 'llama-405b-1-2', 'llama-405b-1-3'],
  );
  assert.deepEqual(gangs(tree).map((g) => [g.name, g.minMember, g.pods.length]), [
    [`pg-${UID}-llama-405b-0`, 4, 4],
    [`pg-${UID}-llama-405b-1`, 4, 4],
  ]);
});
