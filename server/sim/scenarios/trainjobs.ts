/**
 * Kubeflow Trainer v2 for the scenarios: the runtimes a cluster has installed (the shipped
 * `torch-distributed` ClusterTrainingRuntime, and a namespaced TrainingRuntime with dataset and model
 * initializers ahead of the trainer, shaped like the shipped torchtune runtimes), and TrainJobs that
 * reference them the way the Kubeflow SDK writes them: image, command, numNodes, resourcesPerNode, and a
 * runtime patch that pins the trainer's nodes to a GPU type.
 */

import { SIM } from '../controllers/pods.ts';
import { LOAD_LABEL } from '../gpu-metrics/load-model.ts';
import type { KubeObject } from '../store/object-store.ts';
import type { Built, Shape } from './workloads.ts';

const API = 'trainer.kubeflow.org/v1alpha1';
const ANCESTOR = 'trainer.kubeflow.org/trainjob-ancestor-step';
const TORCH_IMAGE = 'pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime';
/** The TrainingRuntime with initializers, created in each namespace that runs such TrainJobs. */
export const INITIALIZER_RUNTIME = 'torch-with-initializers';

/** torch-distributed as manifests/base/runtimes/torch_distributed.yaml ships it. */
export function torchDistributedRuntime(): KubeObject {
  return {
    apiVersion: API,
    kind: 'ClusterTrainingRuntime',
    metadata: { name: 'torch-distributed', labels: { 'trainer.kubeflow.org/framework': 'torch' } },
    spec: {
      mlPolicy: { numNodes: 1, torch: {} },
      template: { spec: { replicatedJobs: [{ name: 'node', template: { metadata: { labels: { [ANCESTOR]: 'trainer' } }, spec: { template: { spec: { containers: [{ name: 'node', image: TORCH_IMAGE }] } } } } }] } },
    },
  };
}

/** Initializers write to a shared workspace; the trainer's Job starts once both have completed. */
export function initializerRuntime(namespace: string): KubeObject {
  const workspace = { name: 'initializer', mountPath: '/workspace' };
  const volumes = [{ name: 'initializer', emptyDir: {} }];
  const step = (name: string, image: string): Record<string, unknown> => ({
    name,
    template: { metadata: { labels: { [ANCESTOR]: name } }, spec: { template: { spec: { containers: [{ name, image, volumeMounts: [workspace], resources: { requests: { cpu: '500m', memory: '1Gi' } } }], volumes } } } },
  });
  return {
    apiVersion: API,
    kind: 'TrainingRuntime',
    metadata: { name: INITIALIZER_RUNTIME, namespace, labels: { 'trainer.kubeflow.org/framework': 'torch' } },
    spec: {
      mlPolicy: { numNodes: 1, torch: {} },
      template: {
        spec: {
          replicatedJobs: [
            step('dataset-initializer', 'ghcr.io/kubeflow/trainer/dataset-initializer'),
            step('model-initializer', 'ghcr.io/kubeflow/trainer/model-initializer'),
            {
              name: 'node',
              dependsOn: [{ name: 'dataset-initializer', status: 'Complete' }, { name: 'model-initializer', status: 'Complete' }],
              template: { metadata: { labels: { [ANCESTOR]: 'trainer' } }, spec: { template: { spec: { containers: [{ name: 'node', image: TORCH_IMAGE, volumeMounts: [workspace] }], volumes } } } },
            },
          ],
        },
      },
    },
  };
}

/**
 * A TrainJob of `pods` nodes. Variant `initializers` uses the namespace's TrainingRuntime with a dataset
 * and a model to fetch first. The simulated kubelet's run-time annotations sit on the TrainJob (the
 * simulated trainer copies them onto the nodes' pod template).
 */
export function trainJob(s: Shape): Built {
  const nodes = Math.max(1, Math.round(s.pods));
  const init = s.variant === 'initializers';
  const gpu = s.gpuResource ?? 'nvidia.com/gpu';
  const resourcesPerNode = s.gpus
    ? { limits: { [gpu]: String(s.gpus) }, requests: { cpu: '4', memory: '16Gi', [gpu]: String(s.gpus) } }
    : { limits: { cpu: '2', memory: '4Gi' }, requests: { cpu: '2', memory: '4Gi' } };
  const annotations: Record<string, string> = {};
  if (s.duration) annotations[SIM.duration] = s.duration;
  if (s.exitCode) annotations[SIM.exitCode] = String(s.exitCode);
  if (s.exitReason) annotations[SIM.exitReason] = s.exitReason;
  const podLabels = s.load && s.gpus ? { [LOAD_LABEL]: s.load } : undefined;
  // Placement is the runtime's business: a TrainJob reaches the nodes' pod spec through a runtime patch.
  const podPatch = s.nodeSelector || podLabels ? { ...(podLabels ? { metadata: { labels: podLabels } } : {}), ...(s.nodeSelector ? { spec: { nodeSelector: s.nodeSelector } } : {}) } : undefined;
  return {
    pods: nodes + (init ? 2 : 0),
    object: {
      apiVersion: API,
      kind: 'TrainJob',
      metadata: { name: s.name, namespace: s.namespace, ...(s.labels ? { labels: s.labels } : {}), ...(Object.keys(annotations).length ? { annotations } : {}) },
      spec: {
        runtimeRef: init ? { name: INITIALIZER_RUNTIME, apiGroup: 'trainer.kubeflow.org', kind: 'TrainingRuntime' } : { name: 'torch-distributed', apiGroup: 'trainer.kubeflow.org', kind: 'ClusterTrainingRuntime' },
        ...(init ? { initializer: { dataset: { storageUri: 'hf://tatsu-lab/alpaca' }, model: { storageUri: 'hf://Qwen/Qwen2.5-0.5B' } } } : {}),
        trainer: { image: 'nvcr.io/nvidia/pytorch:25.08-py3', command: ['torchrun', '/workspace/train.py'], numNodes: nodes, resourcesPerNode },
        ...(podPatch ? { runtimePatches: [{ manager: 'trainer.kubeflow.org/kubeflow-sdk', trainingRuntimeSpec: { template: { spec: { replicatedJobs: [{ name: 'node', template: { spec: { template: podPatch } } }] } } } }] } : {}),
        ...(s.suspend ? { suspend: true } : {}),
      },
    },
  };
}
