import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadCatalogFile } from '../server/catalog/index.ts';
import { resolveWorkload } from '../server/engine/index.ts';
import { digest, fixtureObjects, gangsInTreeOrder, resolveFixture } from './testing.ts';

// DynamoGraphDeployment v1alpha1: spec.services map (GPUs as resources.limits.gpu); the same graph on the Grove pathway and on the component pathway.
const SLUG = 'nvidia-com-dynamographdeployment-v1alpha1';
const UID = '6b2efa0b-8d26-4c2a-91f5-abd5061cd483';
const GPU1 = { 'nvidia.com/gpu': 1 };
const GPU8 = { 'nvidia.com/gpu': 8 };

// Grove pathway pods: <dgd>-0-<svc> (standalone cliques), <dgd>-0-<svc>-<j>-<svc>-ldr|wkr (scaling group).
const G_FRONTEND = 'vllm-disagg-0-frontend-d85wg';
const G_DECODE = ['vllm-disagg-0-vllmdecodeworker-rrqhp', 'vllm-disagg-0-vllmdecodeworker-cb6kp'];
const G_PREFILL = ['vllm-disagg-0-vllmprefillworker-0-vllmprefillworker-ldr-7s2kx', 'vllm-disagg-0-vllmprefillworker-0-vllmprefillworker-wkr-sbg59'];
// Component pathway pods: Deployment <dgd>-<svc>, LeaderWorkerSet <dgd>-<svc> (leader <lws>-0, worker <lws>-0-1).
const C_FRONTEND = 'vllm-disagg-frontend-t8ckwstwmv-qkn58';
const C_DECODE = ['vllm-disagg-vllmdecodeworker-nc98gfhpf4-2wt5p', 'vllm-disagg-vllmdecodeworker-nc98gfhpf4-9d2km'];
const C_PREFILL = ['vllm-disagg-vllmprefillworker-0', 'vllm-disagg-vllmprefillworker-0-1'];

function placements(frontend: string, decode: string[], prefill: string[]): Record<string, string> {
  return {
    [frontend]: 'service/Frontend',
    ...Object.fromEntries(decode.map((p) => [p, 'service/VllmDecodeWorker'])),
    ...Object.fromEntries(prefill.map((p) => [p, 'service/VllmPrefillWorker'])),
  };
}

function roles(live: [number, number, number], ready: [number, number, number]) {
  return {
    Frontend: { desired: 1, live: live[0], ready: ready[0], gpusPerPod: {} },
    VllmDecodeWorker: { desired: 2, live: live[1], ready: ready[1], gpusPerPod: GPU1 },
    // 1 replica x nodeCount 2
    VllmPrefillWorker: { desired: 2, live: live[2], ready: ready[2], gpusPerPod: GPU8 },
  };
}

/** Expected PodGroups: one per single-node pod (named after it), one per multinode replica (minMember = nodeCount). */
function expectedGangs(frontend: string, decode: string[], prefill: string[]) {
  const out = [
    { name: `pg-${UID}-frontend-${frontend}`, minMember: 1, pods: [frontend] },
    ...decode.map((p) => ({ name: `pg-${UID}-vllmdecodeworker-${p}`, minMember: 1, pods: [p] })),
  ];
  if (prefill.length > 0) out.push({ name: `pg-${UID}-vllmprefillworker-0`, minMember: 2, pods: [...prefill].sort() });
  return out;
}

// desired GPUs: decode 2 x 1 + prefill 2 x 8
test('grove pathway, pending: the PodGang cannot be placed', () => {
  const tree = resolveFixture(SLUG, 'grove-pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  assert.deepEqual(d.roles, roles([1, 2, 2], [0, 0, 0]));
  assert.deepEqual(d.pods, placements(G_FRONTEND, G_DECODE, G_PREFILL));
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 18, requested: 18, allocated: 0 });
  assert.deepEqual(gangsInTreeOrder(tree), expectedGangs(G_FRONTEND, G_DECODE, G_PREFILL));
});

test('grove pathway, running: PodCliqueSet -> PodCliques and a scaling group', () => {
  const tree = resolveFixture(SLUG, 'grove-running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, roles([1, 2, 2], [1, 2, 2]));
  assert.deepEqual(d.pods, placements(G_FRONTEND, G_DECODE, G_PREFILL));
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 18, requested: 18, allocated: 18 });
  // The multinode replica key is the scaling-group replica index; single-node pods have none.
  assert.deepEqual(Object.fromEntries(tree.pods.map((p) => [p.name, p.replica])), {
    [G_FRONTEND]: null,
    [G_DECODE[0]]: null,
    [G_DECODE[1]]: null,
    [G_PREFILL[0]]: '0',
    [G_PREFILL[1]]: '0',
  });
  assert.deepEqual(gangsInTreeOrder(tree), expectedGangs(G_FRONTEND, G_DECODE, G_PREFILL));
});

test('component pathway, running: DynamoComponentDeployments -> Deployments and a LeaderWorkerSet', () => {
  const tree = resolveFixture(SLUG, 'component-running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, roles([1, 2, 2], [1, 2, 2]));
  assert.deepEqual(d.pods, placements(C_FRONTEND, C_DECODE, C_PREFILL));
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 18, requested: 18, allocated: 18 });
  // Here the multinode replica key is the LWS group index.
  assert.deepEqual(tree.pods.filter((p) => p.replica !== null).map((p) => [p.name, p.replica]), [
    [C_PREFILL[0], '0'],
    [C_PREFILL[1], '0'],
  ]);
  assert.deepEqual(gangsInTreeOrder(tree), expectedGangs(C_FRONTEND, C_DECODE, C_PREFILL));
});

test('component pathway, failed: the prefill worker has no LeaderWorkerSet, no pods', () => {
  const tree = resolveFixture(SLUG, 'component-failed');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Failed']);
  assert.deepEqual(d.roles, roles([1, 2, 0], [1, 2, 0]));
  assert.deepEqual(d.pods, placements(C_FRONTEND, C_DECODE, []));
  assert.deepEqual(d.unmatched, []);
  // Still desired 18; only the two decode GPUs are held.
  assert.deepEqual(d.gpus, { desired: 18, requested: 2, allocated: 2 });
  assert.deepEqual(gangsInTreeOrder(tree), expectedGangs(C_FRONTEND, C_DECODE, []));
});

test('instances come out in sorted key order of the services map, whatever order the object was written in', () => {
  const expected = [
    ['Frontend', 1, 1],
    ['VllmDecodeWorker', 2, 1],
    ['VllmPrefillWorker', 2, 2],
  ];
  const tree = resolveFixture(SLUG, 'grove-running');
  assert.deepEqual(tree.components.find((c) => c.name === 'service')?.instances.map((i) => [i.id, i.replicas, i.minReplicas]), expected);
  // The API server returns map keys sorted; a hand-written object may not (gojq iterates sorted keys: P-01).
  const objects = fixtureObjects(SLUG, 'grove-running');
  const root = objects[0] as { spec: { services: Record<string, unknown> } };
  root.spec.services = Object.fromEntries(Object.entries(root.spec.services).reverse());
  assert.deepEqual(Object.keys(root.spec.services), ['VllmPrefillWorker', 'VllmDecodeWorker', 'Frontend']);
  const entry = loadCatalogFile(fileURLToPath(new URL(`./${SLUG}.yaml`, import.meta.url)))[0];
  assert.ok(entry?.compiled);
  const reordered = resolveWorkload(entry.compiled, objects[0], objects);
  assert.deepEqual(reordered.errors, []);
  assert.deepEqual(reordered.components.find((c) => c.name === 'service')?.instances.map((i) => [i.id, i.replicas, i.minReplicas]), expected);
  // Fragments are zipped with the ids in the same order: GPUs stay with their service.
  assert.deepEqual(reordered.roles.map((r) => [r.name, r.gpusPerPod]), [['Frontend', {}], ['VllmDecodeWorker', GPU1], ['VllmPrefillWorker', GPU8]]);
  assert.deepEqual(digest(reordered).pods, digest(tree).pods);
});
