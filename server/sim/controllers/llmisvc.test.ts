import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupSize, LLMISVC_API, llmisvcConditions, planLLMInferenceService } from './llmisvc.ts';
import { fixture, type Fixture } from './testing.ts';
import type { Condition, KubeObject } from './types.ts';

const GPU = { limits: { 'nvidia.com/gpu': '1' }, requests: { 'nvidia.com/gpu': '1' } };

function isvc(spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: LLMISVC_API,
    kind: 'LLMInferenceService',
    metadata: { name: 'qwen', namespace: 'inference', uid: 'u-1', ...(annotations ? { annotations } : {}) },
    spec: { model: { uri: 'hf://Qwen/Qwen3-8B', name: 'Qwen/Qwen3-8B' }, template: { containers: [{ name: 'main', resources: GPU }] }, router: { scheduler: {} }, ...spec },
  };
}

const names = (os: KubeObject[]): string[] => os.map((o) => `${o.kind}/${o.metadata.name}`).sort();

test('group size: data / dataLocal, else pipeline, else 1 (as ParallelismSpec.GetSize)', () => {
  assert.equal(groupSize(undefined), 1);
  assert.equal(groupSize({ tensor: 8 }), 1);
  assert.equal(groupSize({ data: 16, dataLocal: 8 }), 2);
  assert.equal(groupSize({ data: 3, dataLocal: 2 }), 1);
  assert.equal(groupSize({ dataLocal: 4 }), 1);
  assert.equal(groupSize({ pipeline: 4 }), 4);
  assert.equal(groupSize({ data: 8, dataLocal: 2, pipeline: 3 }), 4);
});

test('plan: single node with prefill → decode and prefill Deployments, the scheduler, its Service', () => {
  const p = planLLMInferenceService(isvc({ replicas: 2, prefill: { replicas: 1, template: { containers: [{ name: 'main', resources: GPU }] } } }));
  assert.deepEqual(names(p.deployments), ['Deployment/qwen-kserve', 'Deployment/qwen-kserve-prefill', 'Deployment/qwen-kserve-router-scheduler']);
  assert.deepEqual(names(p.leaderWorkerSets), []);
  const decode = p.deployments.find((d) => d.metadata.name === 'qwen-kserve')!;
  const t = (decode.spec as { replicas: number; template: { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ name: string; image: string; resources: unknown }>; initContainers: Array<{ name: string }> } } });
  assert.equal(t.replicas, 2);
  assert.equal(t.template.metadata.labels['app.kubernetes.io/component'], 'llminferenceservice-workload');
  assert.equal(t.template.metadata.labels['llm-d.ai/role'], 'decode');
  // The preset's container with the user's resources over it; the routing sidecar before vLLM.
  assert.equal(t.template.spec.containers[0].image, 'ghcr.io/llm-d/llm-d-cuda:v0.9.0');
  assert.deepEqual(t.template.spec.containers[0].resources, GPU);
  assert.deepEqual(t.template.spec.initContainers.map((c) => c.name), ['llm-d-routing-sidecar', 'storage-initializer']);
  assert.equal(decode.metadata.ownerReferences![0].apiVersion, 'serving.kserve.io/v1alpha2');
  assert.deepEqual(p.absent.map((a) => a.name).sort(), ['qwen-kserve-mn', 'qwen-kserve-mn-prefill']);
});

test('plan: multi node → LWSs with leader / worker labels and the group size; stopped → nothing at all', () => {
  const p = planLLMInferenceService(isvc({ worker: { containers: [{ name: 'main', resources: GPU }] }, parallelism: { data: 4, dataLocal: 1 }, replicas: 2 }));
  assert.deepEqual(names(p.leaderWorkerSets), ['LeaderWorkerSet/qwen-kserve-mn']);
  const lws = p.leaderWorkerSets[0].spec as { replicas: number; leaderWorkerTemplate: { size: number; leaderTemplate: { metadata: { labels: Record<string, string> } }; workerTemplate: { metadata: { labels: Record<string, string> } } } };
  assert.equal(lws.replicas, 2);
  assert.equal(lws.leaderWorkerTemplate.size, 4);
  assert.equal(lws.leaderWorkerTemplate.leaderTemplate.metadata.labels['app.kubernetes.io/component'], 'llminferenceservice-workload-leader');
  assert.equal(lws.leaderWorkerTemplate.leaderTemplate.metadata.labels['llm-d.ai/role'], 'both');
  assert.equal(lws.leaderWorkerTemplate.workerTemplate.metadata.labels['app.kubernetes.io/component'], 'llminferenceservice-workload-worker');
  assert.ok(p.absent.some((a) => a.name === 'qwen-kserve'));
  const stopped = planLLMInferenceService(isvc({}, { 'serving.kserve.io/stop': 'True' }));
  assert.deepEqual([...stopped.deployments, ...stopped.leaderWorkerSets], []);
  assert.deepEqual(stopped.absent.map((a) => a.name).sort(), ['qwen-epp-service', 'qwen-kserve', 'qwen-kserve-mn', 'qwen-kserve-mn-prefill', 'qwen-kserve-prefill', 'qwen-kserve-router-scheduler', 'qwen-kserve-workload-svc']);
});

test('conditions: Ready carries the first dependency not True; stopped marks everything Stopped', () => {
  const avail = (status: string, reason: string): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, status: { conditions: [{ type: 'Available', status, reason, message: 'm' }] } });
  const kids = new Map([['Deployment/qwen-kserve', avail('False', 'MinimumReplicasUnavailable')], ['Deployment/qwen-kserve-router-scheduler', avail('True', 'MinimumReplicasAvailable')]]);
  const by = (cs: Condition[]): Record<string, string> => Object.fromEntries(cs.map((c) => [c.type, `${c.status}${c.reason ? `/${c.reason}` : ''}`]));
  assert.deepEqual(by(llmisvcConditions(isvc({}), kids, undefined, '2026-08-24T09:00:00Z')), {
    GatewaysReady: 'True', HTTPRoutesReady: 'True', InferencePoolReady: 'True', MainWorkloadReady: 'False/MinimumReplicasUnavailable',
    PresetsCombined: 'True', Ready: 'False/MinimumReplicasUnavailable', RouterReady: 'True', SchedulerWorkloadReady: 'True', WorkloadsReady: 'False/MinimumReplicasUnavailable',
  });
  kids.set('Deployment/qwen-kserve', avail('True', 'MinimumReplicasAvailable'));
  assert.equal(by(llmisvcConditions(isvc({}), kids, undefined, 'now')).Ready, 'True');
  const stopped = by(llmisvcConditions(isvc({}, { 'serving.kserve.io/stop': 'true' }), kids, undefined, 'now'));
  assert.equal(stopped.Ready, 'False/Stopped');
  assert.equal(stopped.MainWorkloadReady, 'False/Stopped');
});

async function until(f: Fixture, ok: () => boolean, ms = 120_000): Promise<void> {
  for (let t = 0; t < ms && !ok(); t += 5000) await f.run(5000, 1000);
}

test('end to end: Deployments → pods Ready → Ready True with status.workloads; stop deletes the workloads', async () => {
  const f = fixture({ pools: [{ type: 'h100', count: 1 }, { type: 'cpu', count: 1 }] });
  try {
    f.store.create(isvc({ replicas: 1, prefill: { replicas: 1, template: { containers: [{ name: 'main', resources: GPU }] } } }));
    await f.settle();
    const ready = (): Condition | undefined => ((f.get(LLMISVC_API, 'LLMInferenceService', 'qwen', 'inference')?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
    await until(f, () => ready()?.status === 'True');
    assert.equal(ready()?.status, 'True');
    const st = f.get(LLMISVC_API, 'LLMInferenceService', 'qwen', 'inference')!.status as { url: string; workloads: { primary: { readyReplicas: number }; prefill: { readyReplicas: number } } };
    assert.equal(st.url, 'http://inference-gateway.kserve-ingress.svc.cluster.local/inference/qwen');
    assert.equal(st.workloads.primary.readyReplicas, 1);
    assert.equal(st.workloads.prefill.readyReplicas, 1);
    const pods = f.pods({ 'app.kubernetes.io/name': 'qwen' }, 'inference');
    assert.deepEqual(pods.map((p) => p.metadata.labels!['app.kubernetes.io/component']).sort(), ['llminferenceservice-router-scheduler', 'llminferenceservice-workload', 'llminferenceservice-workload-prefill']);
    const cur = f.get(LLMISVC_API, 'LLMInferenceService', 'qwen', 'inference')!;
    f.store.update({ ...cur, metadata: { ...cur.metadata, annotations: { 'serving.kserve.io/stop': 'true' } } });
    await f.run(60_000, 5000);
    assert.equal(ready()?.reason, 'Stopped');
    assert.equal(f.get('apps/v1', 'Deployment', 'qwen-kserve', 'inference'), undefined);
    assert.deepEqual(f.pods({ 'app.kubernetes.io/name': 'qwen' }, 'inference').filter((p) => !p.metadata.deletionTimestamp), []);
  } finally {
    f.stop();
  }
});
