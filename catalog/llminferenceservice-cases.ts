/**
 * The LLMInferenceService fixtures are the same objects in both API versions (v1alpha1 is served by
 * conversion from the v1alpha2 storage version); these cases run against either definition. Where the
 * versions differ (v1alpha1's status has no .workloads), `version` says so.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, fixtureObjects, gangsInTreeOrder, resolveFixture, resolveObjects } from './testing.ts';

const DECODE_POD_0 = 'qwen3-8b-kserve-58x5glp4mr-ksnvg';
const DECODE_POD_1 = 'qwen3-8b-kserve-58x5glp4mr-tlzp5';
const PREFILL_POD = 'qwen3-8b-kserve-prefill-dsbwlwtg9v-5cffv';
const EPP_POD = 'qwen3-8b-kserve-router-scheduler-cgjtpv884b-7zb22';
const L4 = { 'nvidia.com/gpu': 1 };


export function llmInferenceServiceCases(version: 'v1alpha1' | 'v1alpha2'): void {
  const slug = `serving-kserve-io-llminferenceservice-${version}`;
  const uidOf = (state: string): string => fixtureObjects(slug, state).find((o) => o.kind === 'LLMInferenceService')!.metadata!.uid!;

  test(`${version} pending: the decode pod waits for an L4, the endpoint picker runs`, () => {
    const tree = resolveFixture(slug, 'pending');
    const d = digest(tree);
    assert.deepEqual(d.errors, []);
    assert.deepEqual(d.status, ['Initializing']);
    assert.deepEqual(d.roles, {
      main: { desired: 1, live: 1, ready: 0, gpusPerPod: L4 },
      'router-scheduler': { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
    });
    assert.deepEqual(d.pods, { [DECODE_POD_0]: 'main/main', [EPP_POD]: 'router-scheduler/router-scheduler' });
    assert.deepEqual(d.unmatched, []);
    assert.deepEqual(d.gpus, { desired: 1, requested: 1, allocated: 0 });
    assert.equal(tree.pods.find((p) => p.name === DECODE_POD_0)!.node, null);
    const uid = uidOf('pending');
    assert.deepEqual(gangsInTreeOrder(tree), [
      { name: `pg-${uid}-${DECODE_POD_0}`, minMember: 1, pods: [DECODE_POD_0] },
      { name: `pg-${uid}-${EPP_POD}`, minMember: 1, pods: [EPP_POD] },
    ]);
  });

  test(`${version} running, prefill/decode disaggregated on single nodes: 2 decode + 1 prefill + the scheduler`, () => {
    const tree = resolveFixture(slug, 'running');
    const d = digest(tree);
    assert.deepEqual(d.errors, []);
    assert.deepEqual(d.status, ['Running']);
    assert.deepEqual(d.roles, {
      main: { desired: 2, live: 2, ready: 2, gpusPerPod: L4 },
      prefill: { desired: 1, live: 1, ready: 1, gpusPerPod: L4 },
      'router-scheduler': { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
    });
    assert.deepEqual(d.pods, { [DECODE_POD_0]: 'main/main', [DECODE_POD_1]: 'main/main', [PREFILL_POD]: 'prefill/prefill', [EPP_POD]: 'router-scheduler/router-scheduler' });
    assert.deepEqual(d.unmatched, []);
    assert.deepEqual(d.gpus, { desired: 3, requested: 3, allocated: 3 });
    assert.deepEqual(
      Object.fromEntries(tree.pods.map((p) => [p.name, p.node])),
      { [DECODE_POD_0]: 'gpu-l4-01', [DECODE_POD_1]: 'gpu-l4-02', [PREFILL_POD]: 'gpu-l4-01', [EPP_POD]: 'cpu-02' },
    );
    // Serving replicas are independent: a gang of one each, no service-wide gang.
    assert.deepEqual(gangsInTreeOrder(tree).map((g) => g.minMember), [1, 1, 1, 1]);
    // The decode pods carry the llm-d role the InferencePool and the routing sidecar use.
    const labels = fixtureObjects(slug, 'running').filter((o) => o.kind === 'Pod').map((o) => o.metadata!.labels!['llm-d.ai/role'] ?? '-');
    assert.deepEqual(labels.sort(), ['-', 'decode', 'decode', 'prefill']);
  });

  test(`${version} degraded: one decode pod crash-loops while the rest serve`, () => {
    const tree = resolveFixture(slug, 'degraded');
    const d = digest(tree);
    assert.deepEqual(d.errors, []);
    // v1alpha1's status has no ready-replica counts: Ready False MinimumReplicasUnavailable reads as starting.
    assert.deepEqual(d.status, [version === 'v1alpha2' ? 'Degraded' : 'Initializing']);
    assert.deepEqual(d.roles.main, { desired: 2, live: 2, ready: 1, gpusPerPod: L4 });
    assert.deepEqual(d.unmatched, []);
    assert.deepEqual(d.gpus, { desired: 3, requested: 3, allocated: 3 });
    assert.equal(tree.pods.find((p) => p.name === DECODE_POD_1)!.restarts, 6);
  });

  test(`${version} running multi node: decode and prefill LeaderWorkerSets, one gang per group`, () => {
    const tree = resolveFixture(slug, 'multi-node-running');
    const d = digest(tree);
    const H100x2 = { 'nvidia.com/gpu': 2 };
    assert.deepEqual(d.errors, []);
    assert.deepEqual(d.status, ['Running']);
    assert.deepEqual(d.roles, {
      leader: { desired: 1, live: 1, ready: 1, gpusPerPod: H100x2 },
      worker: { desired: 1, live: 1, ready: 1, gpusPerPod: H100x2 },
      'prefill-leader': { desired: 1, live: 1, ready: 1, gpusPerPod: H100x2 },
      'prefill-worker': { desired: 1, live: 1, ready: 1, gpusPerPod: H100x2 },
      'router-scheduler': { desired: 1, live: 1, ready: 1, gpusPerPod: {} },
    });
    const epp = tree.pods.find((p) => p.component === 'router-scheduler')!.name;
    assert.deepEqual(d.pods, {
      'deepseek-v3-kserve-mn-0': 'leader/leader',
      'deepseek-v3-kserve-mn-0-1': 'worker/worker',
      'deepseek-v3-kserve-mn-prefill-0': 'prefill-leader/prefill-leader',
      'deepseek-v3-kserve-mn-prefill-0-1': 'prefill-worker/prefill-worker',
      [epp]: 'router-scheduler/router-scheduler',
    });
    assert.deepEqual(d.unmatched, []);
    // data 4 / dataLocal 2 = groups of 2 pods, 2 GPUs each, two LWSs.
    assert.deepEqual(d.gpus, { desired: 8, requested: 8, allocated: 8 });
    assert.deepEqual(Object.fromEntries(tree.pods.filter((p) => p.component !== 'router-scheduler').map((p) => [p.name, p.replica])), {
      'deepseek-v3-kserve-mn-0': '0',
      'deepseek-v3-kserve-mn-0-1': '0',
      'deepseek-v3-kserve-mn-prefill-0': '0',
      'deepseek-v3-kserve-mn-prefill-0-1': '0',
    });
    const uid = uidOf('multi-node-running');
    assert.deepEqual(gangsInTreeOrder(tree), [
      { name: `pg-${uid}-deepseek-v3-kserve-mn-0`, minMember: 2, pods: ['deepseek-v3-kserve-mn-0', 'deepseek-v3-kserve-mn-0-1'] },
      { name: `pg-${uid}-deepseek-v3-kserve-mn-prefill-0`, minMember: 2, pods: ['deepseek-v3-kserve-mn-prefill-0', 'deepseek-v3-kserve-mn-prefill-0-1'] },
      { name: `pg-${uid}-${epp}`, minMember: 1, pods: [epp] },
    ]);
  });

  test(`${version} multi node with the leader's pod spec left to the preset: a leader per group all the same`, () => {
    const isvc = fixtureObjects(slug, 'multi-node-running').find((o) => o.kind === 'LLMInferenceService')!;
    const spec = isvc.spec as { template?: unknown; replicas?: number; prefill: { worker?: unknown } };
    delete spec.template;
    delete spec.prefill.worker;
    spec.replicas = 3;
    // The wanted shape needs the object only: 3 groups of 2 pods (the leaders' spec unknown here: no GPUs
    // counted for them); prefill back on a single-node Deployment.
    const tree = resolveObjects(slug, [isvc]);
    assert.deepEqual(Object.fromEntries(tree.roles.map((r) => [r.name, r.desiredPods])), { prefill: 1, leader: 3, worker: 3, 'router-scheduler': 1 });
    assert.deepEqual(digest(tree).gpus.desired, 8);
    assert.deepEqual(tree.gang, []);
  });

  test(`${version} failed: a preset that does not exist stops everything before it starts`, () => {
    const tree = resolveFixture(slug, 'failed');
    const d = digest(tree);
    assert.deepEqual(d.errors, []);
    assert.deepEqual(d.status, ['Failed']);
    assert.equal(tree.status.conditions.find((c) => c.type === 'Ready')!.reason, 'ConfigNotFound');
    assert.deepEqual(d.pods, {});
    assert.deepEqual(d.gpus, { desired: 1, requested: 0, allocated: 0 });
  });

  test(`${version} stopped (serving.kserve.io/stop): Suspended, nothing wanted`, () => {
    const tree = resolveFixture(slug, 'stopped');
    const d = digest(tree);
    assert.deepEqual(d.errors, []);
    assert.deepEqual(d.status, ['Suspended']);
    assert.deepEqual(d.pods, {});
    assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
    assert.deepEqual(Object.fromEntries(Object.entries(d.roles).map(([k, r]) => [k, r.desired])), { main: 0, 'router-scheduler': 0 });
  });
}
