import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM } from './pods.ts';
import { cond, fixture, ownerOf } from './testing.ts';
import type { KubeObject } from './types.ts';

function ksvc(name: string, gpus: number, minScale?: string): KubeObject {
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { template: { metadata: { annotations: minScale ? { 'autoscaling.knative.dev/min-scale': minScale } : {} }, spec: { containers: [{ image: 'embedder:1.0', ports: [{ containerPort: 8080 }], resources: { limits: { 'nvidia.com/gpu': gpus } } }] } } },
  };
}

test('Knative Service: Configuration, Route, Revision -00001, Deployment, pods with knative labels and queue-proxy; Ready; scale to zero', async () => {
  const f = fixture({ knativeScaleToZeroMs: 60_000 });
  try {
    f.store.create(ksvc('embedder', 1));
    await f.run(30_000);
    const svc = f.get('serving.knative.dev/v1', 'Service', 'embedder')!;
    const cfg = f.get('serving.knative.dev/v1', 'Configuration', 'embedder')!;
    const route = f.get('serving.knative.dev/v1', 'Route', 'embedder')!;
    const rev = f.get('serving.knative.dev/v1', 'Revision', 'embedder-00001')!;
    const dep = f.get('apps/v1', 'Deployment', 'embedder-00001-deployment')!;
    assert.equal(ownerOf(cfg)!.kind, 'Service');
    assert.equal(ownerOf(route)!.kind, 'Service');
    assert.equal(ownerOf(rev)!.kind, 'Configuration');
    assert.equal(ownerOf(dep)!.kind, 'Revision');
    assert.equal(ownerOf(f.get('autoscaling.internal.knative.dev/v1alpha1', 'PodAutoscaler', 'embedder-00001')!)!.kind, 'Revision');
    assert.ok(f.get('networking.internal.knative.dev/v1alpha1', 'ServerlessService', 'embedder-00001'));
    assert.ok(f.get('v1', 'Service', 'embedder-00001-private'));
    const pods = f.pods({ 'serving.knative.dev/service': 'embedder' });
    assert.equal(pods.length, 1);
    const p = pods[0];
    assert.match(p.metadata.name!, /^embedder-00001-deployment-[a-z0-9]+-[a-z0-9]{5}$/);
    const L = p.metadata.labels!;
    assert.equal(L['serving.knative.dev/revision'], 'embedder-00001');
    assert.equal(L['serving.knative.dev/revisionUID'], rev.metadata.uid);
    assert.equal(L['serving.knative.dev/configuration'], 'embedder');
    assert.equal(L['serving.knative.dev/configurationGeneration'], '1');
    assert.equal(L['serving.knative.dev/serviceUID'], svc.metadata.uid);
    assert.equal(L.app, 'embedder-00001');
    assert.deepEqual(p.spec.containers.map((c) => c.name), ['user-container', 'queue-proxy']);
    assert.equal(p.metadata.annotations!['kubectl.kubernetes.io/default-container'], 'user-container');
    assert.equal(cond(svc, 'Ready')?.status, 'True');
    const st = svc.status as Record<string, unknown>;
    assert.equal(st.url, 'http://embedder.default.example.com');
    assert.equal(st.latestReadyRevisionName, 'embedder-00001');
    assert.deepEqual(st.traffic, [{ revisionName: 'embedder-00001', percent: 100, latestRevision: true }]);
    // No traffic in the simulation: without min-scale it scales to zero after the idle time.
    await f.run(90_000, 5000);
    assert.equal(f.pods({ 'serving.knative.dev/service': 'embedder' }).length, 0);
    const rev2 = f.get('serving.knative.dev/v1', 'Revision', 'embedder-00001')!;
    assert.equal(cond(rev2, 'Active')?.reason, 'NoTraffic');
    assert.equal(cond(f.get('serving.knative.dev/v1', 'Service', 'embedder'), 'Ready')?.status, 'True');
  } finally {
    f.stop();
  }
});

test('Knative Service pending for GPUs: Ready Unknown with RevisionMissing', async () => {
  const f = fixture();
  try {
    f.store.create(ksvc('huge', 16, '1'));
    await f.run(10_000);
    const svc = f.get('serving.knative.dev/v1', 'Service', 'huge')!;
    assert.equal(cond(svc, 'Ready')?.status, 'Unknown');
    assert.equal(cond(svc, 'RoutesReady')?.reason, 'RevisionMissing');
    assert.equal(cond(f.get('serving.knative.dev/v1', 'Revision', 'huge-00001'), 'Ready')?.reason, 'Unschedulable');
  } finally {
    f.stop();
  }
});

function isvc(name: string, mode: string, gpus: number, extraAnn: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name, namespace: 'default', annotations: { 'serving.kserve.io/deploymentMode': mode, ...extraAnn } },
    spec: { predictor: { minReplicas: 1, maxReplicas: 2, model: { modelFormat: { name: 'huggingface' }, storageUri: 's3://models/llama', resources: { limits: { cpu: '8', memory: '48Gi', 'nvidia.com/gpu': String(gpus) }, requests: { cpu: '8', memory: '48Gi', 'nvidia.com/gpu': String(gpus) } } } } },
  };
}

test('KServe Standard mode: Deployment/Service/HPA <isvc>-predictor owned by the ISVC, pod labels, Ready', async () => {
  const f = fixture();
  try {
    f.store.create(isvc('llama', 'Standard', 1));
    await f.run(30_000);
    for (const [av, k] of [['apps/v1', 'Deployment'], ['v1', 'Service'], ['autoscaling/v2', 'HorizontalPodAutoscaler']] as const) {
      assert.deepEqual(ownerOf(f.get(av, k, 'llama-predictor')!), { kind: 'InferenceService', name: 'llama', controller: true, blockOwnerDeletion: true });
    }
    const pods = f.pods({ 'serving.kserve.io/inferenceservice': 'llama' });
    assert.equal(pods.length, 1);
    assert.match(pods[0].metadata.name!, /^llama-predictor-[a-z0-9]+-[a-z0-9]{5}$/);
    assert.equal(pods[0].metadata.labels!.component, 'predictor');
    assert.equal(pods[0].metadata.labels!.app, 'isvc.llama-predictor');
    assert.equal(pods[0].spec.containers[0].name, 'kserve-container');
    assert.equal(pods[0].spec.initContainers![0].name, 'storage-initializer');
    const obj = f.get('serving.kserve.io/v1beta1', 'InferenceService', 'llama')!;
    assert.equal(cond(obj, 'PredictorReady')?.status, 'True');
    assert.equal(cond(obj, 'PredictorReady')?.reason, 'MinimumReplicasAvailable');
    assert.equal(cond(obj, 'Ready')?.status, 'True');
    const st = obj.status as Record<string, unknown>;
    assert.equal(st.url, 'http://llama-default.example.com');
    assert.equal(st.deploymentMode, 'Standard');
    assert.deepEqual((st.modelStatus as { states: unknown }).states, { activeModelState: 'Loaded', targetModelState: 'Loaded' });
  } finally {
    f.stop();
  }
});

test('KServe Knative mode: ksvc <isvc>-predictor → Revision → Deployment → pods (four levels); Ready', async () => {
  const f = fixture();
  try {
    f.store.create(isvc('bert', 'Serverless', 1));
    await f.run(40_000);
    const ks = f.get('serving.knative.dev/v1', 'Service', 'bert-predictor')!;
    assert.equal(ownerOf(ks)!.kind, 'InferenceService');
    assert.equal(ks.metadata.labels!['serving.kserve.io/inferenceservice'], 'bert');
    const dep = f.get('apps/v1', 'Deployment', 'bert-predictor-00001-deployment')!;
    assert.equal(ownerOf(dep)!.kind, 'Revision');
    const pods = f.pods({ 'serving.kserve.io/inferenceservice': 'bert' });
    assert.equal(pods.length, 1);
    assert.deepEqual(pods[0].spec.containers.map((c) => c.name), ['kserve-container', 'queue-proxy']);
    const obj = f.get('serving.kserve.io/v1beta1', 'InferenceService', 'bert')!;
    assert.equal(cond(obj, 'Ready')?.status, 'True');
    assert.equal(cond(obj, 'PredictorRouteReady')?.status, 'True');
    assert.equal(cond(obj, 'PredictorConfigurationReady')?.status, 'True');
    const st = obj.status as { url: string; components: { predictor: { latestReadyRevision: string } } };
    assert.equal(st.url, 'http://bert.default.example.com');
    assert.equal(st.components.predictor.latestReadyRevision, 'bert-predictor-00001');
    assert.ok(f.get('networking.istio.io/v1beta1', 'VirtualService', 'bert'));
  } finally {
    f.stop();
  }
});

test('KServe pending (GPUs) → ProgressDeadlineExceeded; crash → FailedToLoad; stop annotation', async () => {
  const f = fixture();
  try {
    const big = isvc('big', 'Standard', 16);
    f.store.create(big);
    f.store.create({ ...isvc('crashy', 'Standard', 1), metadata: { name: 'crashy', namespace: 'default', annotations: { 'serving.kserve.io/deploymentMode': 'Standard' } } });
    const c = f.get('serving.kserve.io/v1beta1', 'InferenceService', 'crashy')!;
    const spec = c.spec as { predictor: Record<string, unknown> };
    f.store.update({ ...c, spec: { predictor: { ...spec.predictor, annotations: { [SIM.duration]: '20s', [SIM.exitCode]: '1' } } } });
    f.store.create(isvc('off', 'Standard', 1, { 'serving.kserve.io/stop': 'true' }));
    await f.run(60_000, 2000);
    let b = f.get('serving.kserve.io/v1beta1', 'InferenceService', 'big')!;
    assert.equal(cond(b, 'PredictorReady')?.status, 'False');
    assert.equal((b.status as { modelStatus: { states: { activeModelState: string } } }).modelStatus.states.activeModelState, 'Pending');
    await f.run(600_000, 30_000);
    b = f.get('serving.kserve.io/v1beta1', 'InferenceService', 'big')!;
    assert.equal(cond(b, 'Ready')?.reason, 'ProgressDeadlineExceeded');
    const cr = f.get('serving.kserve.io/v1beta1', 'InferenceService', 'crashy')!;
    assert.equal((cr.status as { modelStatus: { transitionStatus: string } }).modelStatus.transitionStatus, 'BlockedByFailedLoad');
    const off = f.get('serving.kserve.io/v1beta1', 'InferenceService', 'off')!;
    assert.equal(cond(off, 'Stopped')?.status, 'True');
    assert.equal(f.get('apps/v1', 'Deployment', 'off-predictor'), undefined);
  } finally {
    f.stop();
  }
});
