import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cond, fixture, ownerOf } from './testing.ts';
import type { KubeObject } from './types.ts';
import { planTrainJob } from './trainjob.ts';
import { podCounts, trainJobJobSet } from './trainjob-jobset.ts';
import type { TrainingRuntimeSpec } from './trainjob-jobset.ts';
import type { JobSetSpec } from './jobset.ts';

const ANCESTOR = 'trainer.kubeflow.org/trainjob-ancestor-step';
const NOW = '2026-10-01T12:00:00Z';

/** The torch-distributed ClusterTrainingRuntime as the trainer ships it (one `node` replicatedJob). */
const TORCH: TrainingRuntimeSpec = {
  mlPolicy: { numNodes: 1, torch: {} },
  template: { spec: { replicatedJobs: [{ name: 'node', template: { metadata: { labels: { [ANCESTOR]: 'trainer' } }, spec: { template: { spec: { containers: [{ name: 'node', image: 'pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime' }] } } } } }] } },
};

/** A runtime with both initializers ahead of the trainer (dependsOn Complete), like the torchtune ones. */
const WITH_INIT: TrainingRuntimeSpec = {
  mlPolicy: { numNodes: 1, torch: {} },
  podGroupPolicy: { coscheduling: { scheduleTimeoutSeconds: 120 } },
  template: {
    spec: {
      replicatedJobs: [
        { name: 'dataset-initializer', template: { metadata: { labels: { [ANCESTOR]: 'dataset-initializer' } }, spec: { template: { spec: { containers: [{ name: 'dataset-initializer', image: 'ghcr.io/kubeflow/trainer/dataset-initializer', env: [{ name: 'STORAGE_URI', value: 'hf://default' }] }] } } } } },
        { name: 'model-initializer', template: { metadata: { labels: { [ANCESTOR]: 'model-initializer' } }, spec: { template: { spec: { containers: [{ name: 'model-initializer', image: 'ghcr.io/kubeflow/trainer/model-initializer' }] } } } } },
        {
          name: 'node',
          dependsOn: [{ name: 'dataset-initializer', status: 'Complete' }, { name: 'model-initializer', status: 'Complete' }],
          template: { metadata: { labels: { [ANCESTOR]: 'trainer' } }, spec: { template: { spec: { containers: [{ name: 'node', image: 'ghcr.io/kubeflow/trainer/torchtune-trainer', resources: { limits: { cpu: '4', 'nvidia.com/gpu': 2 } } }] } } } },
        },
      ],
    },
  },
};

/** DeepSpeed's MPI runtime: `node` workers and a `launcher` that is the trainer and runs as a node. */
const DEEPSPEED: TrainingRuntimeSpec = {
  mlPolicy: { numNodes: 1, mpi: { numProcPerNode: 1, runLauncherAsNode: true } },
  template: {
    spec: {
      replicatedJobs: [
        { name: 'node', template: { spec: { template: { spec: { containers: [{ name: 'node', image: 'ghcr.io/kubeflow/trainer/deepspeed-runtime' }] } } } } },
        { name: 'launcher', dependsOn: [{ name: 'node', status: 'Ready' }], template: { metadata: { labels: { [ANCESTOR]: 'trainer' } }, spec: { template: { spec: { containers: [{ name: 'node', image: 'ghcr.io/kubeflow/trainer/deepspeed-runtime' }] } } } } },
      ],
    },
  },
};

function trainJob(name: string, spec: Record<string, unknown>, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: NOW, ...extra }, spec };
}

const rjs = (js: KubeObject) => (js.spec as JobSetSpec).replicatedJobs;
const nodeContainer = (js: KubeObject, rj = 'node') => rjs(js).find((r) => r.name === rj)!.template.spec.template.spec.containers.find((c) => c.name === 'node')!;

test('JobSet from torch-distributed: named after the TrainJob, controlled by it, one node Job with numNodes pods, PET_* env', () => {
  const tj = trainJob('llama', { runtimeRef: { name: 'torch-distributed' }, trainer: { image: 'nvcr.io/nvidia/pytorch:25.08-py3', command: ['torchrun', 'train.py'], numNodes: 3, resourcesPerNode: { limits: { 'nvidia.com/gpu': 2 } }, env: [{ name: 'EPOCHS', value: '3' }] } });
  const js = trainJobJobSet(tj, TORCH);
  assert.equal(js.metadata.name, 'llama');
  assert.deepEqual(js.metadata.ownerReferences, [{ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', name: 'llama', uid: 'uid-llama', controller: true, blockOwnerDeletion: true }]);
  const [node] = rjs(js);
  assert.equal(node.replicas, 1);
  assert.equal(node.template.spec.parallelism, 3);
  assert.equal(node.template.spec.completions, 3);
  assert.equal(node.template.metadata?.labels?.[ANCESTOR], 'trainer');
  const c = nodeContainer(js);
  assert.equal(c.image, 'nvcr.io/nvidia/pytorch:25.08-py3');
  assert.deepEqual(c.command, ['torchrun', 'train.py']);
  assert.deepEqual(c.resources, { limits: { 'nvidia.com/gpu': 2 } });
  assert.deepEqual(c.env!.map((e) => `${e.name}=${e.value ?? 'ref'}`), ['EPOCHS=3', 'PET_NNODES=3', 'PET_NPROC_PER_NODE=auto', 'PET_NODE_RANK=ref', 'PET_MASTER_ADDR=llama-node-0-0.llama', 'PET_MASTER_PORT=29500']);
  assert.deepEqual(c.ports, [{ containerPort: 29500 }]);
  assert.equal((js.spec as JobSetSpec).suspend, false);
});

test('numNodes: the runtime\'s when the TrainJob says nothing; CPU-only nodes get nproc = CPUs', () => {
  const js = trainJobJobSet(trainJob('cpu', { runtimeRef: { name: 'torch-distributed' }, trainer: { resourcesPerNode: { requests: { cpu: '6' } } } }), { ...TORCH, mlPolicy: { numNodes: 2, torch: {} } });
  assert.equal(rjs(js)[0].template.spec.parallelism, 2);
  assert.equal(nodeContainer(js).env!.find((e) => e.name === 'PET_NPROC_PER_NODE')?.value, '6');
});

test('initializers: one Job each with the TrainJob\'s storage URI; the gang label from coscheduling; resources merged per key', () => {
  const tj = trainJob('ft', { runtimeRef: { name: 'ft-runtime', kind: 'TrainingRuntime' }, initializer: { dataset: { storageUri: 'hf://tatsu-lab/alpaca' }, model: { storageUri: 'hf://meta-llama/Llama-3.2-1B-Instruct', secretRef: { name: 'hf-token' } } }, trainer: { numNodes: 2, resourcesPerNode: { limits: { 'nvidia.com/gpu': 1 } } } });
  const js = trainJobJobSet(tj, WITH_INIT);
  assert.deepEqual(rjs(js).map((r) => [r.name, r.replicas, r.template.spec.parallelism]), [['dataset-initializer', 1, 1], ['model-initializer', 1, 1], ['node', 1, 2]]);
  const ds = rjs(js)[0].template.spec.template.spec.containers[0];
  assert.deepEqual(ds.env, [{ name: 'STORAGE_URI', value: 'hf://tatsu-lab/alpaca' }]);
  assert.deepEqual(rjs(js)[1].template.spec.template.spec.containers[0].envFrom, [{ secretRef: { name: 'hf-token' } }]);
  assert.deepEqual(nodeContainer(js).resources, { limits: { cpu: '4', 'nvidia.com/gpu': 1 } });
  for (const r of rjs(js)) assert.equal(r.template.spec.template.metadata?.labels?.['scheduling.x-k8s.io/pod-group'], 'ft');
  assert.deepEqual(rjs(js)[2].dependsOn, WITH_INIT.template!.spec!.replicatedJobs[2].dependsOn);
});

test('MPI with the launcher as a node: node Job numNodes - 1 pods, launcher 1, resourcesPerNode on both', () => {
  const tj = trainJob('ds', { runtimeRef: { name: 'deepspeed-distributed' }, trainer: { numNodes: 4, resourcesPerNode: { limits: { 'nvidia.com/gpu': 8 } } } });
  const rt = DEEPSPEED;
  assert.deepEqual([...podCounts(tj.spec as never, rt, rt.template!.spec!.replicatedJobs)], [['node', 3], ['launcher', 1]]);
  const js = trainJobJobSet(tj, rt);
  assert.deepEqual(nodeContainer(js, 'node').resources, { limits: { 'nvidia.com/gpu': 8 } });
  assert.deepEqual(nodeContainer(js, 'launcher').resources, { limits: { 'nvidia.com/gpu': 8 } });
});

test('runtimePatches: a node selector and toleration on the trainer\'s pods, labels on the JobSet', () => {
  const tj = trainJob('p', {
    runtimeRef: { name: 'torch-distributed' },
    runtimePatches: [{ manager: 'example.com/platform', trainingRuntimeSpec: { template: { metadata: { labels: { team: 'nlp' } }, spec: { replicatedJobs: [{ name: 'node', template: { spec: { template: { spec: { nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-L4' }, tolerations: [{ key: 'gpu', operator: 'Exists' }] } } } } }] } } } }],
  });
  const js = trainJobJobSet(tj, TORCH);
  assert.deepEqual(js.metadata.labels, { team: 'nlp' });
  const pod = rjs(js)[0].template.spec.template.spec;
  assert.deepEqual(pod.nodeSelector, { 'nvidia.com/gpu.product': 'NVIDIA-L4' });
  assert.deepEqual(pod.tolerations, [{ key: 'gpu', operator: 'Exists' }]);
});

test('status: Complete and Failed copied from the JobSet, jobsStatus mirrored, suspend and resume, unsupported runtimes', () => {
  const tj = trainJob('s', { runtimeRef: { name: 'torch-distributed' } });
  const js: KubeObject = { ...trainJobJobSet(tj, TORCH), status: { conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully', lastTransitionTime: '2026-10-01T11:00:00Z' }], replicatedJobsStatus: [{ name: 'node', ready: 0, succeeded: 1, failed: 0, active: 0, suspended: 0 }] } };
  let plan = planTrainJob(tj, { runtime: TORCH, jobSet: js }, NOW);
  assert.equal(plan.applyJobSet, undefined, 'a running JobSet is left alone');
  assert.deepEqual(plan.status.conditions, [{ type: 'Complete', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully', lastTransitionTime: '2026-10-01T11:00:00Z' }]);
  assert.deepEqual(plan.status.jobsStatus, [{ name: 'node', ready: 0, succeeded: 1, failed: 0, active: 0, suspended: 0 }]);

  const suspended = { ...tj, spec: { ...(tj.spec as object), suspend: true } };
  plan = planTrainJob(suspended, { runtime: TORCH }, NOW);
  assert.equal((plan.applyJobSet!.spec as JobSetSpec).suspend, true);
  assert.deepEqual(plan.status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [['Suspended', 'True', 'Suspended', 'TrainJob is suspended']]);
  const resumed = { ...tj, status: plan.status };
  plan = planTrainJob(resumed, { runtime: TORCH, jobSet: { ...js, spec: { ...(js.spec as object), suspend: true }, status: {} } }, NOW);
  assert.equal((plan.applyJobSet!.spec as JobSetSpec).suspend, false, 'resuming re-applies the JobSet');
  assert.deepEqual(plan.status.conditions?.map((c) => [c.type, c.status, c.reason]), [['Suspended', 'False', 'Resumed']]);

  plan = planTrainJob(trainJob('x', { runtimeRef: { name: 'r', apiGroup: 'example.com', kind: 'Runtime' } }), {}, NOW);
  assert.deepEqual(plan.status.conditions?.map((c) => [c.type, c.reason, c.message]), [['Failed', 'TrainingRuntimeNotSupported', 'unsupported runtime: Runtime.example.com']]);
  plan = planTrainJob(trainJob('y', { runtimeRef: { name: 'missing' } }), {}, NOW);
  assert.match(plan.error ?? '', /not found: missing/);
  assert.equal(plan.status.conditions, undefined, 'a missing runtime is no condition');
});

test('activeDeadlineSeconds: Failed DeadlineExceeded and the JobSet deleted', () => {
  const tj = trainJob('d', { runtimeRef: { name: 'torch-distributed' }, activeDeadlineSeconds: 600 }, { creationTimestamp: '2026-10-01T11:00:00Z' });
  const plan = planTrainJob(tj, { runtime: TORCH, jobSet: trainJobJobSet(tj, TORCH) }, NOW);
  assert.deepEqual(plan.status.conditions?.map((c) => [c.type, c.reason]), [['Failed', 'DeadlineExceeded']]);
  assert.equal(plan.deleteJobSet, true);
  const early = planTrainJob(tj, { runtime: TORCH }, '2026-10-01T11:05:00Z');
  assert.equal(early.recheckMs, 300_000);
});

test('controller: runtime snapshot, JobSet, Jobs and pods; Running → Complete; a runtime created later starts a waiting TrainJob', async () => {
  const f = fixture();
  try {
    f.store.create({ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainingRuntime', metadata: { name: 'ft-runtime', namespace: 'default' }, spec: WITH_INIT });
    f.store.create({ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', metadata: { name: 'ft', namespace: 'default', annotations: { 'sim.workload-map.io/duration': '2m' } }, spec: { runtimeRef: { name: 'ft-runtime', kind: 'TrainingRuntime' }, initializer: { dataset: { storageUri: 'hf://tatsu-lab/alpaca' }, model: { storageUri: 'hf://meta-llama/Llama-3.2-1B-Instruct' } }, trainer: { numNodes: 2, resourcesPerNode: { limits: { 'nvidia.com/gpu': 1 } } } } });
    f.store.create({ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', metadata: { name: 'waits', namespace: 'default' }, spec: { runtimeRef: { name: 'torch-distributed' }, trainer: { numNodes: 1 } } });
    await f.run(5_000);
    const snap = f.get('v1', 'ConfigMap', 'ft-runtime-snapshot')!;
    assert.equal(ownerOf(snap)?.name, 'ft');
    assert.match((snap.data as { runtime: string }).runtime, /kind: TrainingRuntime/);
    const js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'ft')!;
    assert.deepEqual(ownerOf(js), { kind: 'TrainJob', name: 'ft', controller: true, blockOwnerDeletion: true });
    // The initializers run first; the trainer's Job waits for them.
    assert.deepEqual(f.list('batch/v1', 'Job').map((j) => j.metadata.name).sort(), ['ft-dataset-initializer-0', 'ft-model-initializer-0']);
    assert.equal(f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'waits'), undefined);
    assert.ok(f.list('v1', 'Event').some((e) => e.reason === 'TrainJobResourcesCreationFailed'));

    await f.run(120_000, 5_000);
    const nodes = f.pods({ 'jobset.sigs.k8s.io/replicatedjob-name': 'node' });
    assert.equal(nodes.length, 2);
    assert.match(nodes[0].metadata.name!, /^ft-node-0-[01]-[a-z0-9]{5}$/);
    let tj = f.get('trainer.kubeflow.org/v1alpha1', 'TrainJob', 'ft')!;
    assert.deepEqual((tj.status as { jobsStatus: unknown[] }).jobsStatus, [
      { name: 'dataset-initializer', ready: 0, succeeded: 1, failed: 0, active: 0, suspended: 0 },
      { name: 'model-initializer', ready: 0, succeeded: 1, failed: 0, active: 0, suspended: 0 },
      { name: 'node', ready: 1, succeeded: 0, failed: 0, active: 1, suspended: 0 },
    ]);
    await f.run(150_000, 5_000);
    tj = f.get('trainer.kubeflow.org/v1alpha1', 'TrainJob', 'ft')!;
    assert.equal(cond(tj, 'Complete')?.reason, 'AllJobsCompleted');

    f.store.create({ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'ClusterTrainingRuntime', metadata: { name: 'torch-distributed' }, spec: TORCH });
    await f.run(1_000);
    assert.ok(f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'waits'));
  } finally {
    f.stop();
  }
});

test('controller: suspend removes the pods (the JobSet suspends its Jobs), resume brings them back', async () => {
  const f = fixture();
  try {
    f.store.create({ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'ClusterTrainingRuntime', metadata: { name: 'torch-distributed' }, spec: TORCH });
    f.store.create({ apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', metadata: { name: 'p', namespace: 'default', annotations: { 'sim.workload-map.io/duration': 'forever' } }, spec: { runtimeRef: { name: 'torch-distributed' }, trainer: { numNodes: 2 } } });
    await f.run(10_000);
    assert.equal(f.pods().length, 2);
    let tj = f.get('trainer.kubeflow.org/v1alpha1', 'TrainJob', 'p')!;
    f.store.update({ ...tj, spec: { ...(tj.spec as object), suspend: true } });
    await f.run(40_000, 2_000);
    tj = f.get('trainer.kubeflow.org/v1alpha1', 'TrainJob', 'p')!;
    assert.equal(cond(tj, 'Suspended')?.status, 'True');
    assert.equal((f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'p')!.spec as JobSetSpec).suspend, true);
    assert.equal(f.pods().filter((p) => !p.metadata.deletionTimestamp).length, 0);
    f.store.update({ ...tj, spec: { ...(tj.spec as object), suspend: false } });
    await f.run(10_000);
    tj = f.get('trainer.kubeflow.org/v1alpha1', 'TrainJob', 'p')!;
    assert.equal(cond(tj, 'Suspended')?.reason, 'Resumed');
    assert.equal(f.pods().length, 2);
  } finally {
    f.stop();
  }
});
