/**
 * Builders of realistic root objects for every framework (what a user would `kubectl apply`), shared by
 * the demo and scale scenarios. Each takes a name, a namespace and a shape (pods, GPUs per pod, run time)
 * and also says how many pods the operators will create for it, so a scenario can hit a pod budget.
 */

import { SIM } from '../controllers/pods.ts';
import { LOAD_LABEL } from '../gpu-metrics/load-model.ts';
import type { KubeObject } from '../store/object-store.ts';
import { trainJob } from './trainjobs.ts';

export type Framework =
  | 'deployment'
  | 'statefulset'
  | 'job'
  | 'jobset'
  | 'pytorchjob'
  | 'trainjob'
  | 'tfjob'
  | 'xgboostjob'
  | 'jaxjob'
  | 'paddlejob'
  | 'mpijob'
  | 'raycluster'
  | 'rayjob'
  | 'rayservice'
  | 'kserve-standard'
  | 'kserve-knative'
  | 'knative'
  | 'nimservice'
  | 'leaderworkerset'
  | 'milvus'
  | 'podcliqueset'
  | 'dynamo'
  | 'llmisvc'
  | 'sandbox'
  | 'appwrapper'
  | 'volcanojob'
  | 'sparkapplication';

export const FRAMEWORKS: readonly Framework[] = [
  'deployment', 'statefulset', 'job', 'jobset', 'pytorchjob', 'mpijob', 'raycluster', 'rayjob', 'rayservice',
  'kserve-standard', 'kserve-knative', 'knative', 'nimservice', 'leaderworkerset', 'milvus', 'podcliqueset', 'dynamo',
  'llmisvc', 'sandbox',
  'tfjob', 'xgboostjob', 'jaxjob', 'paddlejob',
  'appwrapper', 'volcanojob',
  'sparkapplication',
];

export interface Shape {
  name: string;
  namespace: string;
  /** Pods wanted (a builder rounds to what its framework can express). */
  pods: number;
  /** nvidia.com/gpu per GPU pod (0: CPU only). */
  gpus: number;
  /** Extended GPU resource to use instead of nvidia.com/gpu (e.g. a MIG profile). */
  gpuResource?: string;
  /** Run time of batch pods: "20m", "5m-10m", "forever". */
  duration?: string;
  exitCode?: number;
  /** Termination reason of a failing exit (default Error), e.g. "OOMKilled" with exit code 137. */
  exitReason?: string;
  suspend?: boolean;
  nodeSelector?: Record<string, string>;
  labels?: Record<string, string>;
  /** Framework-specific switches. */
  variant?: string;
  /**
   * Load profile of the GPU pods (label `sim.workload-map.dev/load` on their templates: training,
   * inference, idle, saturated, busy-then-idle), read by the simulated DCGM exporters.
   */
  load?: string;
  /** Load profile per role where a framework has roles (Dynamo `decode` / `prefill`), over `load`. */
  roleLoad?: Record<string, string>;
}

export interface Built {
  object: KubeObject;
  /** Pods the operators will create for it once running. */
  pods: number;
}

const IMAGES = {
  torch: 'nvcr.io/nvidia/pytorch:25.01-py3',
  cpu: 'python:3.12-slim',
  web: 'nginx:1.27',
  ray: 'rayproject/ray-ml:2.46.0-gpu',
  vllm: 'vllm/vllm-openai:v0.9.1',
  sglang: 'lmsysorg/sglang:v0.4.7-cu124',
  mpi: 'mpioperator/mpi-pi:openmpi',
  dynamo: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.3.1',
  notebook: 'quay.io/jupyter/pytorch-notebook:cuda12-python-3.12',
  spark: 'apache/spark:3.5.5',
};

/** The training operator v1 kinds other than PyTorchJob: kind, replica-specs field, default container, image. */
const TRAINING_V1 = {
  tfjob: { kind: 'TFJob', field: 'tfReplicaSpecs', container: 'tensorflow', image: 'tensorflow/tensorflow:2.16.1-gpu', command: ['python', '/opt/train/resnet.py'] },
  xgboostjob: { kind: 'XGBoostJob', field: 'xgbReplicaSpecs', container: 'xgboost', image: 'docker.io/kubeflow/xgboost-dist-iris:latest', command: ['python', '/opt/xgboost/main.py', '--job_type=Train'] },
  jaxjob: { kind: 'JAXJob', field: 'jaxReplicaSpecs', container: 'jax', image: 'nvcr.io/nvidia/jax:25.04-py3', command: ['python3', 'train.py'] },
  paddlejob: { kind: 'PaddleJob', field: 'paddleReplicaSpecs', container: 'paddle', image: 'registry.baidubce.com/paddlepaddle/paddle:2.6.1-gpu-cuda12.0-cudnn8.9-trt8.6', command: ['python', '-m', 'paddle.distributed.launch', 'train.py'] },
} as const;

function res(s: Shape, cpu = '4', memory = '16Gi'): Record<string, unknown> {
  if (!s.gpus) return { requests: { cpu: s.pods > 50 ? '50m' : '250m', memory: s.pods > 50 ? '64Mi' : '256Mi' }, limits: { cpu: '1', memory: '1Gi' } };
  const gpu = s.gpuResource ?? 'nvidia.com/gpu';
  return { requests: { cpu, memory, [gpu]: String(s.gpus) }, limits: { cpu, memory, [gpu]: String(s.gpus) } };
}

/** The load-profile label of a GPU pod template, per role when the shape gives one for it. */
function loadLabels(s: Shape, role?: string): Record<string, string> | undefined {
  const v = role !== undefined && s.roleLoad?.[role] !== undefined ? s.roleLoad[role] : s.load;
  return v && s.gpus ? { [LOAD_LABEL]: v } : undefined;
}

/** Template metadata with the load label added (nothing added when there is none). */
function withLoad<T extends Record<string, unknown>>(m: T, s: Shape, role?: string): T {
  const l = loadLabels(s, role);
  return l ? { ...m, labels: { ...((m.labels as Record<string, string> | undefined) ?? {}), ...l } } : m;
}

function simAnn(s: Shape): Record<string, string> {
  const a: Record<string, string> = {};
  if (s.duration) a[SIM.duration] = s.duration;
  if (s.exitCode) a[SIM.exitCode] = String(s.exitCode);
  if (s.exitReason) a[SIM.exitReason] = s.exitReason;
  return a;
}

function meta(s: Shape, annotations?: Record<string, string>): KubeObject['metadata'] {
  return { name: s.name, namespace: s.namespace, ...(s.labels ? { labels: s.labels } : {}), ...(annotations && Object.keys(annotations).length ? { annotations } : {}) };
}

function podSpec(s: Shape, container: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}), ...extra, containers: [{ ...container, resources: res(s) }] };
}

export function build(fw: Framework, s: Shape): Built {
  const n = Math.max(1, Math.round(s.pods));
  switch (fw) {
    case 'trainjob':
      return trainJob(s);
    case 'deployment':
      return {
        pods: n,
        object: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: meta(s),
          spec: {
            replicas: n,
            selector: { matchLabels: { app: s.name } },
            // A long-running server that exits (a duration annotation) is restarted in place by its kubelet.
            template: { metadata: withLoad({ labels: { app: s.name }, ...(Object.keys(simAnn(s)).length ? { annotations: simAnn(s) } : {}) }, s), spec: podSpec(s, { name: s.name.slice(0, 60), image: s.gpus ? IMAGES.vllm : IMAGES.web, ports: [{ containerPort: 8080 }] }) },
          },
        },
      };
    case 'statefulset':
      return {
        pods: n,
        object: {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: meta(s),
          spec: {
            replicas: n,
            serviceName: s.name,
            podManagementPolicy: n > 3 ? 'Parallel' : 'OrderedReady',
            selector: { matchLabels: { app: s.name } },
            template: {
              metadata: withLoad({ labels: { app: s.name } }, s),
              spec: s.variant === 'notebook'
                ? podSpec(s, { name: 'notebook', image: IMAGES.notebook, ports: [{ name: 'notebook-port', containerPort: 8888 }] })
                : podSpec(s, { name: 'server', image: s.gpus ? IMAGES.vllm : 'redis:7.4', ports: [{ containerPort: 6379 }] }),
            },
          },
        },
      };
    case 'job':
      return {
        pods: n,
        object: {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: meta(s),
          spec: {
            ...(n > 1 ? { completionMode: 'Indexed', completions: n, parallelism: n } : {}),
            backoffLimit: s.exitCode ? 1 : 6,
            ...(s.suspend ? { suspend: true } : {}),
            template: { metadata: withLoad({ annotations: simAnn(s) }, s), spec: podSpec(s, { name: 'main', image: s.gpus ? IMAGES.torch : IMAGES.cpu, command: ['python', 'run.py'] }, { restartPolicy: 'Never' }) },
          },
        },
      };
    case 'jobset': {
      // A driver Job plus worker Jobs of up to 8 pods each.
      const workers = Math.max(1, n - 1);
      const perJob = Math.min(8, workers);
      const jobs = Math.max(1, Math.floor(workers / perJob));
      const tmpl = (gpu: boolean, parallelism: number): Record<string, unknown> => ({
        spec: {
          parallelism,
          completions: parallelism,
          backoffLimit: 0,
          template: { metadata: withLoad({ annotations: simAnn(s) }, gpu ? s : { ...s, gpus: 0 }), spec: podSpec(gpu ? s : { ...s, gpus: 0 }, { name: gpu ? 'trainer' : 'driver', image: IMAGES.torch, command: ['torchrun', 'train.py'] }, { restartPolicy: 'Never' }) },
        },
      });
      return {
        pods: 1 + jobs * perJob,
        object: {
          apiVersion: 'jobset.x-k8s.io/v1alpha2',
          kind: 'JobSet',
          metadata: meta(s),
          spec: {
            ...(s.suspend ? { suspend: true } : {}),
            ...(s.exitCode ? { failurePolicy: { maxRestarts: 1 } } : {}),
            replicatedJobs: [{ name: 'driver', replicas: 1, template: tmpl(false, 1) }, { name: 'workers', replicas: jobs, template: tmpl(true, perJob) }],
          },
        },
      };
    }
    case 'pytorchjob': {
      const workers = Math.max(0, n - 1);
      const rs = (replicas: number): Record<string, unknown> => ({
        replicas,
        restartPolicy: s.exitCode ? 'Never' : 'OnFailure',
        template: { metadata: withLoad({ annotations: simAnn(s) }, s), spec: podSpec(s, { name: 'pytorch', image: IMAGES.torch, command: ['python', '-m', 'torch.distributed.run', 'train.py'], ports: [{ name: 'pytorchjob-port', containerPort: 23456 }] }) },
      });
      return {
        pods: 1 + workers,
        object: {
          apiVersion: 'kubeflow.org/v1',
          kind: 'PyTorchJob',
          metadata: meta(s),
          spec: { runPolicy: { cleanPodPolicy: 'None', ...(s.suspend ? { suspend: true } : {}) }, pytorchReplicaSpecs: { Master: rs(1), ...(workers ? { Worker: rs(workers) } : {}) } },
        },
      };
    }
    case 'tfjob':
    case 'xgboostjob':
    case 'jaxjob':
    case 'paddlejob': {
      // A lead replica set (TFJob: chief + a CPU parameter server; XGBoostJob: master; PaddleJob: a CPU
      // master, the parameter server) and GPU workers; a JAXJob is workers only.
      const t = TRAINING_V1[fw];
      const lead = fw === 'tfjob' ? 2 : fw === 'jaxjob' ? 0 : 1;
      const workers = Math.max(1, n - lead);
      const rs = (replicas: number, gpu: boolean, role: string): Record<string, unknown> => {
        const rsShape = gpu ? s : { ...s, gpus: 0 };
        return {
          replicas,
          // The kinds' default policies retry nothing but PaddleJob's (OnFailure): a failing demo job fails.
          ...(s.exitCode ? { restartPolicy: 'Never' } : {}),
          template: { metadata: withLoad({ annotations: simAnn(s) }, rsShape), spec: podSpec(rsShape, { name: t.container, image: t.image, command: [...t.command, `--role=${role}`] }) },
        };
      };
      const specs =
        fw === 'tfjob' ? { Chief: rs(1, true, 'chief'), PS: rs(1, false, 'ps'), Worker: rs(workers, true, 'worker') }
        : fw === 'jaxjob' ? { Worker: rs(workers, true, 'worker') }
        : { Master: rs(1, fw === 'xgboostjob', 'master'), Worker: rs(workers, true, 'worker') };
      return {
        pods: lead + workers,
        object: {
          apiVersion: 'kubeflow.org/v1',
          kind: t.kind,
          metadata: meta(s),
          // cleanPodPolicy Running: a TF parameter server never exits by itself.
          spec: { runPolicy: { cleanPodPolicy: 'Running', ...(s.suspend ? { suspend: true } : {}) }, [t.field]: specs },
        },
      };
    }
    case 'mpijob': {
      const workers = Math.max(1, n - 1);
      return {
        pods: 1 + workers,
        object: {
          apiVersion: 'kubeflow.org/v2beta1',
          kind: 'MPIJob',
          metadata: meta(s),
          spec: {
            slotsPerWorker: Math.max(1, s.gpus),
            runPolicy: { cleanPodPolicy: 'Running', ...(s.suspend ? { suspend: true } : {}) },
            mpiReplicaSpecs: {
              Launcher: { replicas: 1, template: { metadata: { annotations: simAnn(s) }, spec: { containers: [{ name: 'launcher', image: IMAGES.mpi, command: ['mpirun', '-np', String(workers * Math.max(1, s.gpus)), '/opt/bench'], resources: { requests: { cpu: '500m', memory: '512Mi' } } }] } } },
              Worker: { replicas: workers, template: { ...(loadLabels(s) ? { metadata: { labels: loadLabels(s) } } : {}), spec: podSpec(s, { name: 'worker', image: IMAGES.mpi }) } },
            },
          },
        },
      };
    }
    case 'raycluster':
    case 'rayjob':
    case 'rayservice': {
      const workers = Math.max(0, n - 1);
      const cluster = {
        rayVersion: '2.46.0',
        headGroupSpec: { rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-gpus': '0' }, template: { spec: { containers: [{ name: 'ray-head', image: IMAGES.ray, resources: { requests: { cpu: '2', memory: '8Gi' }, limits: { cpu: '2', memory: '8Gi' } }, ports: [{ containerPort: 6379, name: 'gcs-server' }, { containerPort: 8265, name: 'dashboard' }, { containerPort: 10001, name: 'client' }] }] } } },
        workerGroupSpecs: workers
          ? [{ groupName: s.gpus ? 'gpu-group' : 'cpu-group', replicas: workers, minReplicas: 0, maxReplicas: workers * 2, rayStartParams: {}, template: { ...(loadLabels(s) ? { metadata: { labels: loadLabels(s) } } : {}), spec: podSpec(s, { name: 'ray-worker', image: IMAGES.ray }) } }]
          : [],
      };
      if (fw === 'raycluster') {
        return { pods: 1 + workers, object: { apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: meta(s), spec: { ...cluster, ...(s.suspend ? { suspend: true } : {}) } } };
      }
      if (fw === 'rayjob') {
        return {
          pods: 2 + workers,
          object: { apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: meta(s, simAnn(s)), spec: { entrypoint: 'python /home/ray/samples/train.py', shutdownAfterJobFinishes: true, ttlSecondsAfterFinished: 60, submitterConfig: { backoffLimit: 0 }, ...(s.suspend ? { suspend: true } : {}), rayClusterSpec: cluster } },
        };
      }
      return {
        pods: 1 + workers,
        object: {
          apiVersion: 'ray.io/v1',
          kind: 'RayService',
          metadata: meta(s, s.exitCode ? { [SIM.exitCode]: String(s.exitCode) } : undefined),
          spec: {
            serveConfigV2: `applications:\n- name: ${s.name.slice(0, 30)}\n  import_path: ray.serve.llm:build_openai_app\n  route_prefix: /\n  deployments:\n  - name: LLMServer\n  - name: OpenAiIngress\n`,
            rayClusterConfig: cluster,
          },
        },
      };
    }
    case 'kserve-standard':
    case 'kserve-knative':
      return {
        pods: n,
        object: {
          apiVersion: 'serving.kserve.io/v1beta1',
          kind: 'InferenceService',
          metadata: meta(s, { 'serving.kserve.io/deploymentMode': fw === 'kserve-standard' ? 'Standard' : 'Serverless', ...(s.suspend ? { 'serving.kserve.io/stop': 'true' } : {}) }),
          spec: {
            predictor: {
              minReplicas: n,
              maxReplicas: n + 2,
              ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}),
              ...(s.exitCode ? { annotations: { [SIM.duration]: '2m', [SIM.exitCode]: String(s.exitCode) } } : {}),
              ...(loadLabels(s) ? { labels: loadLabels(s) } : {}),
              model: s.gpus
                ? { modelFormat: { name: 'huggingface' }, storageUri: `hf://meta-llama/${s.name}`, resources: res(s, '8', '48Gi') }
                : { modelFormat: { name: 'sklearn' }, storageUri: `gs://kfserving-examples/models/sklearn/1.0/${s.name}`, resources: res(s) },
            },
          },
        },
      };
    case 'knative':
      return {
        pods: n,
        object: {
          apiVersion: 'serving.knative.dev/v1',
          kind: 'Service',
          metadata: meta(s),
          spec: {
            template: {
              metadata: { ...(loadLabels(s) ? { labels: loadLabels(s) } : {}), annotations: { 'autoscaling.knative.dev/min-scale': s.variant === 'scale-to-zero' ? '0' : String(n), 'autoscaling.knative.dev/initial-scale': String(n), 'autoscaling.knative.dev/max-scale': String(n * 2) } },
              spec: podSpec(s, { image: s.gpus ? IMAGES.vllm : 'ghcr.io/knative/helloworld-go:latest', ports: [{ containerPort: 8080 }] }),
            },
          },
        },
      };
    case 'nimservice': {
      const multi = s.variant === 'multinode' ? 2 : 0;
      const replicas = multi ? Math.max(1, Math.floor(n / multi)) : n;
      return {
        pods: multi ? replicas * multi : replicas,
        object: {
          apiVersion: 'apps.nvidia.com/v1alpha1',
          kind: 'NIMService',
          metadata: meta(s),
          spec: {
            image: { repository: multi ? 'nvcr.io/nim/deepseek-ai/deepseek-r1' : 'nvcr.io/nim/meta/llama-3.1-8b-instruct', tag: '1.7.3', pullPolicy: 'IfNotPresent', pullSecrets: ['ngc-secret'] },
            authSecret: 'ngc-api-secret',
            storage: s.variant === 'cache' ? { nimCache: { name: `${s.name}-cache`, profile: '' } } : { pvc: { create: true, size: '100Gi', volumeAccessMode: 'ReadWriteOnce' } },
            replicas,
            ...(loadLabels(s) ? { labels: loadLabels(s) } : {}),
            resources: { limits: { [s.gpuResource ?? 'nvidia.com/gpu']: Math.max(1, s.gpus) } },
            ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}),
            expose: { service: { type: 'ClusterIP', port: 8000 } },
            ...(multi ? { multiNode: { backendType: 'lws', parallelism: { pipeline: multi, tensor: Math.max(1, s.gpus) } } } : {}),
          },
        },
      };
    }
    case 'leaderworkerset': {
      const size = Math.min(4, Math.max(2, Math.round(Math.sqrt(n))));
      const groups = Math.max(1, Math.floor(n / size));
      const t = (role: string): Record<string, unknown> => ({ metadata: { labels: { role, ...loadLabels(s, role) } }, spec: podSpec(s, { name: `sglang-${role}`, image: IMAGES.sglang, command: ['python3', '-m', 'sglang.launch_server'] }) });
      return {
        pods: groups * size,
        object: {
          apiVersion: 'leaderworkerset.x-k8s.io/v1',
          kind: 'LeaderWorkerSet',
          metadata: meta(s),
          spec: { replicas: groups, leaderWorkerTemplate: { size, restartPolicy: 'RecreateGroupOnPodRestart', leaderTemplate: t('leader'), workerTemplate: t('worker') }, startupPolicy: 'LeaderCreated' },
        },
      };
    }
    case 'milvus': {
      // Standalone: milvus + etcd + minio; cluster: 6 components (+1 spare querynode deployment at 0) + 3 etcd + 4 minio.
      const cluster = s.variant !== 'standalone';
      const gpuQuery = s.gpus ? { resources: res(s) } : {};
      return {
        pods: cluster ? 2 + 1 + 1 + 2 + 1 + 3 + 4 : 3,
        object: {
          apiVersion: 'milvus.io/v1beta1',
          kind: 'Milvus',
          metadata: meta(s),
          spec: {
            mode: cluster ? 'cluster' : 'standalone',
            components: cluster ? { image: 'milvusdb/milvus:v2.6.11', proxy: { replicas: 2 }, queryNode: { replicas: 2, ...gpuQuery }, dataNode: { replicas: 1 }, mixCoord: { replicas: 1 }, streamingNode: { replicas: 1 } } : { image: 'milvusdb/milvus:v2.6.11' },
            dependencies: { etcd: { inCluster: { deletionPolicy: 'Delete', values: { replicaCount: cluster ? 3 : 1 } } }, storage: { inCluster: { deletionPolicy: 'Delete' } } },
            config: {},
          },
        },
      };
    }
    case 'podcliqueset': {
      // frontend + a prefill scaling group (leader + workers) per replica.
      const workers = Math.max(1, Math.floor((n - 2) / 2) - 1);
      const pod = (gpu: boolean, name: string): Record<string, unknown> => podSpec(gpu ? s : { ...s, gpus: 0 }, { name, image: IMAGES.dynamo });
      return {
        pods: 2 + 2 * (1 + workers),
        object: {
          apiVersion: 'grove.io/v1alpha1',
          kind: 'PodCliqueSet',
          metadata: meta(s),
          spec: {
            replicas: 1,
            template: {
              cliques: [
                { name: 'frontend', spec: { roleName: 'frontend', replicas: 2, minAvailable: 1, podSpec: pod(false, 'frontend') } },
                { name: 'pleader', ...(loadLabels(s, 'prefill') ? { labels: loadLabels(s, 'prefill') } : {}), spec: { roleName: 'pleader', replicas: 1, podSpec: pod(true, 'main') } },
                { name: 'pworker', ...(loadLabels(s, 'prefill') ? { labels: loadLabels(s, 'prefill') } : {}), spec: { roleName: 'pworker', replicas: workers, podSpec: pod(true, 'main') } },
              ],
              podCliqueScalingGroups: [{ name: 'prefill', cliqueNames: ['pleader', 'pworker'], replicas: 2, minAvailable: 1 }],
            },
          },
        },
      };
    }
    case 'appwrapper': {
      // A PyTorchJob (master + workers) wrapped in an AppWrapper queued in Kueue: created suspended with
      // its queue label, as Kueue's webhook leaves it; declared pod sets point at the two pod templates.
      const workers = Math.max(0, n - 1);
      const rs = (replicas: number): Record<string, unknown> => ({
        replicas,
        restartPolicy: s.exitCode ? 'Never' : 'OnFailure',
        template: { metadata: withLoad({ annotations: simAnn(s) }, s), spec: podSpec(s, { name: 'pytorch', image: IMAGES.torch, command: ['torchrun', 'train.py'] }) },
      });
      return {
        pods: 1 + workers,
        object: {
          apiVersion: 'workload.codeflare.dev/v1beta2',
          kind: 'AppWrapper',
          metadata: { ...meta(s), labels: { ...(s.labels ?? {}), 'kueue.x-k8s.io/queue-name': `${s.namespace}-queue` } },
          spec: {
            suspend: true,
            components: [{
              podSets: [
                { replicas: 1, path: 'template.spec.pytorchReplicaSpecs.Master.template' },
                ...(workers ? [{ replicas: workers, path: 'template.spec.pytorchReplicaSpecs.Worker.template' }] : []),
              ],
              template: { apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob', metadata: { name: s.name }, spec: { runPolicy: { cleanPodPolicy: 'None' }, pytorchReplicaSpecs: { Master: rs(1), ...(workers ? { Worker: rs(workers) } : {}) } } },
            }],
          },
        },
      };
    }
    case 'volcanojob': {
      // An MPI-style Volcano Job: a CPU master that runs mpiexec for the duration, GPU workers serving
      // sshd until the master's TaskCompleted completes the job; the spec as Volcano's webhook stores it.
      const workers = Math.max(1, n - 1);
      const ann = simAnn(s);
      return {
        pods: 1 + workers,
        object: {
          apiVersion: 'batch.volcano.sh/v1alpha1',
          kind: 'Job',
          metadata: meta(s),
          spec: {
            schedulerName: 'volcano',
            queue: 'default',
            minAvailable: 1 + workers,
            maxRetry: 3,
            plugins: { ssh: [], svc: [], env: [] },
            policies: [{ event: 'PodEvicted', action: 'RestartJob' }, { event: 'PodFailed', action: 'RestartJob' }],
            tasks: [
              {
                name: 'mpimaster', replicas: 1, minAvailable: 1, maxRetry: 3, policies: [{ event: 'TaskCompleted', action: 'CompleteJob' }],
                template: { metadata: { annotations: ann }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'mpimaster', image: 'volcanosh/example-mpi:0.0.3', command: ['/bin/sh', '-c', 'mpiexec --allow-run-as-root --hostfile /etc/volcano/mpiworker.host -np 2 mpi_hello_world'], resources: res({ ...s, gpus: 0 }) }] } },
              },
              {
                name: 'mpiworker', replicas: workers, minAvailable: workers, maxRetry: 3,
                template: { metadata: withLoad({ annotations: { [SIM.duration]: 'forever' } }, s), spec: podSpec(s, { name: 'mpiworker', image: 'volcanosh/example-mpi:0.0.3', command: ['/bin/sh', '-c', 'mkdir -p /var/run/sshd; /usr/sbin/sshd -D'] }, { restartPolicy: 'OnFailure' }) },
              },
            ],
          },
        },
      };
    }
    case 'llmisvc': {
      // KServe LLMInferenceService, llm-d style: decode replicas (+ one prefill replica with variant
      // "disagg"), the endpoint picker from the preset; multi-node (variant "multinode"): LWS groups of 2.
      const multi = s.variant === 'multinode';
      const disagg = s.variant === 'disagg';
      const user = { containers: [{ name: 'main', resources: res(s) }], ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}) };
      const decode = multi ? Math.max(1, Math.floor(n / 2)) : Math.max(1, disagg ? n - 1 : n);
      return {
        pods: (multi ? decode * 2 : decode) + (disagg ? 1 : 0) + 1,
        object: {
          apiVersion: 'serving.kserve.io/v1alpha2',
          kind: 'LLMInferenceService',
          metadata: meta(s, simAnn(s)),
          spec: {
            model: { uri: 'hf://Qwen/Qwen3-8B', name: 'Qwen/Qwen3-8B' },
            replicas: decode,
            ...(loadLabels(s) ? { labels: loadLabels(s) } : {}),
            template: user,
            ...(multi ? { parallelism: { data: 2, dataLocal: 1, tensor: Math.max(1, s.gpus) }, worker: user } : {}),
            ...(disagg ? { prefill: { replicas: 1, template: user, ...(loadLabels(s, 'prefill') ? { labels: loadLabels(s, 'prefill') } : {}) } } : {}),
            router: { gateway: {}, route: {}, scheduler: {} },
          },
        },
      };
    }
    case 'sandbox':
      // An agent sandbox: one pod with a workspace volume and a headless Service; suspend = operatingMode.
      return {
        pods: s.suspend ? 0 : 1,
        object: {
          apiVersion: 'agents.x-k8s.io/v1beta1',
          kind: 'Sandbox',
          metadata: meta(s),
          spec: {
            operatingMode: s.suspend ? 'Suspended' : 'Running',
            podTemplate: {
              metadata: withLoad({ labels: { app: 'coding-agent' }, ...(Object.keys(simAnn(s)).length ? { annotations: simAnn(s) } : {}) }, s),
              spec: podSpec(s, { name: 'agent', image: 'us-central1-docker.pkg.dev/k8s-staging-images/agent-sandbox/python-runtime-sandbox:v0.5.6', ports: [{ containerPort: 8888, name: 'http', protocol: 'TCP' }], volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }] }, { automountServiceAccountToken: false }),
            },
            volumeClaimTemplates: [{ metadata: { name: 'workspace' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }],
            service: true,
            shutdownPolicy: 'Retain',
          },
        },
      };
    case 'sparkapplication': {
      // The driver (CPU only) runs the job for the shape's duration; n - 1 executors hold the GPUs.
      const executors = Math.max(1, n - 1);
      return {
        pods: 1 + executors,
        object: {
          apiVersion: 'sparkoperator.k8s.io/v1beta2',
          kind: 'SparkApplication',
          metadata: meta(s),
          spec: {
            type: 'Scala',
            mode: 'cluster',
            sparkVersion: '3.5.5',
            image: IMAGES.spark,
            mainClass: 'org.apache.spark.examples.SparkPi',
            mainApplicationFile: 'local:///opt/spark/examples/jars/spark-examples_2.12-3.5.5.jar',
            arguments: ['10000'],
            restartPolicy: { type: 'Never' },
            ...(s.suspend ? { suspend: true } : {}),
            driver: { cores: 1, memory: '2g', serviceAccount: 'spark', ...(Object.keys(simAnn(s)).length ? { annotations: simAnn(s) } : {}) },
            executor: {
              instances: executors,
              cores: 2,
              memory: '4g',
              ...(s.gpus ? { gpu: { name: s.gpuResource ?? 'nvidia.com/gpu', quantity: s.gpus } } : {}),
              ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}),
              ...(loadLabels(s) ? { labels: loadLabels(s) } : {}),
            },
          },
        },
      };
    }
    case 'dynamo': {
      const decode = Math.max(1, n - 3);
      const grove = s.variant !== 'component';
      return {
        pods: 1 + decode + 2,
        object: {
          apiVersion: s.variant === 'v1beta1' ? 'nvidia.com/v1beta1' : 'nvidia.com/v1alpha1',
          kind: 'DynamoGraphDeployment',
          metadata: meta(s, grove ? undefined : { 'nvidia.com/enable-grove': 'false' }),
          spec:
            s.variant === 'v1beta1'
              ? {
                  backendFramework: 'vllm',
                  components: [
                    { name: 'Frontend', type: 'frontend', replicas: 1, podTemplate: { spec: { containers: [{ name: 'main', image: IMAGES.dynamo, command: ['python3', '-m', 'dynamo.frontend'] }] } } },
                    { name: 'VllmDecodeWorker', type: 'worker', replicas: decode, podTemplate: { ...(loadLabels(s, 'decode') ? { metadata: { labels: loadLabels(s, 'decode') } } : {}), spec: podSpec(s, { name: 'main', image: IMAGES.dynamo, command: ['python3', '-m', 'dynamo.vllm'] }) } },
                    { name: 'VllmPrefillWorker', type: 'worker', replicas: 1, multinode: { nodeCount: 2 }, podTemplate: { ...(loadLabels(s, 'prefill') ? { metadata: { labels: loadLabels(s, 'prefill') } } : {}), spec: podSpec(s, { name: 'main', image: IMAGES.dynamo, command: ['python3', '-m', 'dynamo.vllm', '--is-prefill-worker'] }) } },
                  ],
                }
              : {
                  backendFramework: 'vllm',
                  services: {
                    Frontend: { componentType: 'frontend', replicas: 1, extraPodSpec: { mainContainer: { image: IMAGES.dynamo } } },
                    VllmDecodeWorker: { componentType: 'worker', subComponentType: 'decode', replicas: decode, ...(loadLabels(s, 'decode') ? { labels: loadLabels(s, 'decode') } : {}), resources: { limits: { gpu: String(Math.max(1, s.gpus)) } }, extraPodSpec: { ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}), mainContainer: { image: IMAGES.dynamo, command: ['python3', '-m', 'dynamo.vllm'], args: ['--model', 'Qwen/Qwen3-0.6B'] } } },
                    VllmPrefillWorker: { componentType: 'worker', subComponentType: 'prefill', replicas: 1, ...(loadLabels(s, 'prefill') ? { labels: loadLabels(s, 'prefill') } : {}), multinode: { nodeCount: 2 }, resources: { limits: { gpu: String(Math.max(1, s.gpus)) } }, extraPodSpec: { ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}), mainContainer: { image: IMAGES.dynamo, command: ['python3', '-m', 'dynamo.vllm'], args: ['--is-prefill-worker'] } } },
                  },
                },
        },
      };
    }
  }
}

/** The apiVersion/kind pair of a built root, for deletes in churn. */
export function rootRef(o: KubeObject): { apiVersion: string; kind: string; namespace: string; name: string } {
  return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace!, name: o.metadata.name! };
}
