/**
 * Kubernetes objects for the differential tests: one of each workload kind the definitions read, shaped like
 * what the API server returns (trimmed). Keys are sorted by `sortKeys` before use, so that jq 1.7 (insertion
 * order) and gojq (sorted order) iterate objects the same way.
 */
const podTemplate = (name: string, gpus = 0, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  metadata: { labels: { app: name, role: name }, annotations: { 'prometheus.io/scrape': 'true' } },
  spec: {
    schedulerName: 'kai-scheduler',
    priorityClassName: 'train',
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } }, podAffinity: {} },
    containers: [
      { name: 'main', image: `registry.local/${name}:1.0`, resources: gpus ? { limits: { 'nvidia.com/gpu': gpus } } : {} },
      { name: 'sidecar', image: 'registry.local/log:2', resources: {} },
    ],
    ...extra,
  },
});

export const jobset = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: 'trainer', namespace: 'ml', uid: 'u-js', labels: { team: 'nlp' } },
  spec: {
    suspend: false,
    replicatedJobs: [
      { name: 'driver', replicas: 1, template: { metadata: { labels: { x: '1' } }, spec: { parallelism: 1, completions: 1, template: podTemplate('driver') } } },
      { name: 'workers', replicas: 2, template: { spec: { parallelism: 4, completions: 4, template: podTemplate('workers', 8) } } },
      { name: 'ps', replicas: 1, template: { spec: { template: podTemplate('ps') } } },
    ],
  },
  status: {
    conditions: [{ type: 'StartupPolicyCompleted', status: 'True', reason: 'AllStarted', message: '' }],
    replicatedJobsStatus: [
      { name: 'driver', active: 1, ready: 1, failed: 0, succeeded: 0, suspended: 0 },
      { name: 'workers', active: 2, ready: 0, failed: 0, succeeded: 0, suspended: 0 },
    ],
  },
};

export const jobsetPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'trainer-workers-1-2-x7k2p',
    namespace: 'ml',
    creationTimestamp: null,
    labels: {
      'jobset.sigs.k8s.io/jobset-name': 'trainer',
      'jobset.sigs.k8s.io/replicatedjob-name': 'workers',
      'jobset.sigs.k8s.io/job-index': '1',
      'batch.kubernetes.io/job-completion-index': '2',
      app: 'trainer',
      'replica-id': '7',
      role: 'worker',
      'nvidia.com/dynamo-component': 'VllmDecodeWorker',
    },
    annotations: { 'leaderworkerset.sigs.k8s.io/leader-name': 'lws-0', 'duplicate-key': 'from-annotations' },
  },
  spec: {
    containers: [{ name: 'main', image: 'trainer:1', env: [{ name: 'GROUP_NAME', value: 'g1' }, { name: 'OTHER', value: 'x' }], resources: { limits: { 'nvidia.com/gpu': 8 } } }],
    nodeName: 'node-3',
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'PodScheduled', status: 'True' },
    ],
  },
};

export const lws = {
  apiVersion: 'leaderworkerset.x-k8s.io/v1',
  kind: 'LeaderWorkerSet',
  metadata: { name: 'vllm', namespace: 'serve' },
  spec: {
    replicas: 2,
    leaderWorkerTemplate: { size: 4, leaderTemplate: podTemplate('leader', 1), workerTemplate: podTemplate('worker', 1) },
  },
  status: { replicas: 2, readyReplicas: 2, updatedReplicas: 2, conditions: [{ type: 'Available', status: 'True' }] },
};

export const lwsPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'vllm-1-3',
    labels: {
      'leaderworkerset.sigs.k8s.io/name': 'vllm',
      'leaderworkerset.sigs.k8s.io/group-index': '1',
      'leaderworkerset.sigs.k8s.io/worker-index': '3',
    },
    annotations: { 'leaderworkerset.sigs.k8s.io/leader-name': 'vllm-1' },
  },
  spec: { containers: [] },
  status: {},
};

export const dynamoGraph = {
  apiVersion: 'nvidia.com/v1alpha1',
  kind: 'DynamoGraphDeployment',
  metadata: { name: 'llm', namespace: 'dynamo' },
  spec: {
    services: {
      Frontend: { replicas: 1, labels: { tier: 'fe' }, annotations: {}, resources: { limits: { cpu: '2' } }, extraPodSpec: { schedulerName: 'kai', priorityClassName: 'p', mainContainer: { image: 'fe:1' }, affinity: { podAffinity: {}, nodeAffinity: {} } } },
      VllmDecodeWorker: {
        replicas: 2,
        multinode: { nodeCount: 2 },
        autoscaling: { minReplicas: 1, maxReplicas: 4 },
        resources: { limits: { gpu: '8' } },
        extraPodSpec: { mainContainer: { image: 'vllm:1' }, resourceClaims: [{ name: 'gpu' }] },
      },
      VllmPrefillWorker: { autoscaling: { minReplicas: 2 }, extraPodSpec: { mainContainer: { image: 'vllm:1' } } },
    },
  },
  status: { state: 'successful', conditions: [{ type: 'Ready', status: 'True' }] },
};

export const dynamoV1beta1 = {
  apiVersion: 'nvidia.com/v1beta1',
  kind: 'DynamoGraphDeployment',
  metadata: { name: 'llm2' },
  spec: {
    components: [
      { name: 'frontend', podTemplate: { metadata: { labels: { a: 'b' }, annotations: {} }, spec: { schedulerName: 'kai', containers: [{ name: 'main', image: 'fe:2' }] } } },
      { name: 'decode', replicas: 3, podTemplate: { spec: { priorityClassName: 'high', containers: [{ name: 'init' }, { name: 'main', image: 'vllm:2' }], affinity: { nodeAffinity: {} } } } },
    ],
  },
};

export const grovePcs = {
  apiVersion: 'grove.io/v1alpha1',
  kind: 'PodCliqueSet',
  metadata: { name: 'disagg', namespace: 'grove' },
  spec: {
    replicas: 2,
    template: {
      cliques: [
        { name: 'frontend', labels: { c: 'fe' }, annotations: {}, spec: { replicas: 1, roleName: 'fe', podSpec: podTemplate('fe').spec, autoScalingConfig: { minReplicas: 1, maxReplicas: 3 } } },
        { name: 'pleader', spec: { replicas: 1, podSpec: podTemplate('pl', 1).spec } },
        { name: 'pworker', spec: { replicas: 3, podSpec: podTemplate('pw', 1).spec } },
      ],
      podCliqueScalingGroups: [{ name: 'prefill', cliqueNames: ['pleader', 'pworker'], replicas: 2, scaleConfig: { minReplicas: 1, maxReplicas: 4 } }],
    },
  },
  status: { availableReplicas: 1 },
};

export const grovePod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'disagg-0-prefill-1-pworker-2',
    labels: {
      'grove.io/podclique': 'disagg-0-prefill-1-pworker',
      'grove.io/podcliqueset-replica-index': '0',
      'grove.io/podcliquescalinggroup': 'disagg-0-prefill',
      'grove.io/podcliquescalinggroup-replica-index': '1',
      'app.kubernetes.io/part-of': 'disagg',
    },
  },
  spec: {},
  status: { phase: 'Pending' },
};

export const rayCluster = {
  apiVersion: 'ray.io/v1',
  kind: 'RayCluster',
  metadata: { name: 'rc', namespace: 'ray' },
  spec: {
    headGroupSpec: { template: podTemplate('head') },
    workerGroupSpecs: [
      { groupName: 'cpu', replicas: 2, minReplicas: 1, maxReplicas: 5, template: podTemplate('cpu') },
      { groupName: 'gpu', replicas: 1, minReplicas: 0, maxReplicas: 2, template: podTemplate('gpu', 4) },
    ],
  },
  status: { state: 'ready' },
};

export const rayJob = {
  apiVersion: 'ray.io/v1',
  kind: 'RayJob',
  metadata: { name: 'rj' },
  spec: { suspend: true, rayClusterSpec: { headGroupSpec: { template: podTemplate('head') }, workerGroupSpecs: [{ groupName: 'w', minReplicas: 1, maxReplicas: 3, template: podTemplate('w') }] } },
  status: { jobStatus: 'RUNNING', jobDeploymentStatus: 'Suspended' },
};

export const rayService = {
  apiVersion: 'ray.io/v1',
  kind: 'RayService',
  metadata: { name: 'rs' },
  spec: { rayClusterConfig: { headGroupSpec: { template: podTemplate('head') }, workerGroupSpecs: [{ groupName: 'serve', replicas: 3, template: podTemplate('serve') }] } },
};

export const rayPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'rc-gpu-worker-abc', labels: { 'ray.io/node-type': 'worker', 'ray.io/group': 'gpu', 'ray.io/cluster': 'rc' } },
  spec: {},
  status: { phase: 'Running' },
};

export const pytorchJob = {
  apiVersion: 'kubeflow.org/v1',
  kind: 'PyTorchJob',
  metadata: { name: 'pt' },
  spec: {
    elasticPolicy: { minReplicas: 1, maxReplicas: 4 },
    runPolicy: { suspend: false },
    pytorchReplicaSpecs: { Master: { replicas: 1, template: podTemplate('master') }, Worker: { template: podTemplate('worker', 2) } },
  },
  status: { conditions: [{ type: 'Running', status: 'True' }] },
};

export const mpiJob = {
  apiVersion: 'kubeflow.org/v2beta1',
  kind: 'MPIJob',
  metadata: { name: 'mpi' },
  spec: { mpiReplicaSpecs: { Launcher: { replicas: 1, template: podTemplate('launcher') }, Worker: { replicas: 4, template: podTemplate('worker', 1) } } },
  status: { conditions: [] },
};

export const kubeflowPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'pt-worker-0',
    labels: { 'training.kubeflow.org/replica-type': 'worker', 'training.kubeflow.org/job-name': 'pt', 'training.kubeflow.org/job-role': 'master', component: 'predictor' },
  },
  spec: {},
  status: {},
};

export const inferenceService = {
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name: 'isvc' },
  spec: {
    predictor: {
      minReplicas: 1,
      maxReplicas: 3,
      schedulerName: 'kai',
      labels: { a: '1' },
      annotations: {},
      affinity: { podAffinity: {}, nodeAffinity: {} },
      containers: [{ name: 'kserve-container', image: 'x' }],
      priorityClassName: 'serve',
      model: { modelFormat: { name: 'sklearn' }, storageUri: 'gs://bucket/model' },
      sklearn: { storageUri: 'gs://other' },
      timeout: 60,
    },
    transformer: { minReplicas: 1, maxReplicas: 1, containers: [] },
  },
  status: { conditions: [{ type: 'Ready', status: 'False' }] },
};

export const knativeService = {
  apiVersion: 'serving.knative.dev/v1',
  kind: 'Service',
  metadata: { name: 'ksvc' },
  spec: {
    template: {
      metadata: { annotations: { 'autoscaling.knative.dev/min-scale': '1', 'autoscaling.knative.dev/max-scale': '5' } },
      spec: { containers: [{ image: 'hello' }] },
    },
  },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};

export const nimService = {
  apiVersion: 'apps.nvidia.com/v1alpha1',
  kind: 'NIMService',
  metadata: { name: 'nim', labels: { 'app.kubernetes.io/name': 'nim' } },
  spec: { replicas: 2, schedulerName: 'kai', labels: { a: 'b' }, annotations: {}, resources: { limits: { 'nvidia.com/gpu': 1 } }, affinity: { podAffinity: {}, nodeAffinity: {} } },
  status: { state: 'Ready', conditions: [] },
};

const milvusComponent = (replicas: number): Record<string, unknown> => ({
  replicas,
  schedulerName: 'kai',
  podLabels: { m: 'v' },
  podAnnotations: {},
  resources: { limits: { cpu: '1' } },
  affinity: { podAffinity: {}, nodeAffinity: {} },
  priorityClassName: 'db',
  template: podTemplate('milvus'),
});

export const milvus = {
  apiVersion: 'milvus.io/v1beta1',
  kind: 'Milvus',
  metadata: { name: 'mv', labels: { 'app.kubernetes.io/component': 'querynode', 'app.kubernetes.io/instance': 'mv' } },
  spec: {
    components: { queryNode: milvusComponent(2), dataNode: milvusComponent(1), proxy: milvusComponent(1), mixCoord: milvusComponent(1) },
    dependencies: {
      etcd: { inCluster: { values: { replicaCount: 3, resources: { limits: { cpu: '1' } } } } },
      storage: { inCluster: { values: { resources: {} } } },
      pulsar: { inCluster: { values: { zookeeper: { replicaCount: 3, resources: {} }, bookkeeper: { replicaCount: 3 }, broker: { resources: {} } } } },
    },
  },
  status: { status: 'Healthy', conditions: [] },
};

export const tgJobGroup = {
  apiVersion: 'example.com/v1',
  kind: 'JobGroup',
  metadata: { name: 'jg' },
  spec: {
    jobs: [
      { name: 'a', spec: { containers: [{ resources: { limits: { 'nvidia.com/gpu': 2 } } }] } },
      { name: 'b', spec: { containers: [{ resources: {} }] } },
    ],
    domain: { resources: {} },
    priorityClassName: 'x',
    affinity: { nodeAffinity: {} },
    jobTemplate: { spec: {}, metadata: {} },
    master: { template: {}, replicas: 1 },
    worker: { template: {}, minReplicas: 1, maxReplicas: 2 },
    services: { web: { labels: {}, replicas: 2, containers: [] } },
  },
};

/** Deep copy with object keys in sorted (code point) order. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) o[k] = sortKeys((v as Record<string, unknown>)[k]);
    return o;
  }
  return v;
}

export const ALL_OBJECTS: Record<string, unknown> = Object.fromEntries(
  Object.entries({
    jobset,
    jobsetPod,
    lws,
    lwsPod,
    dynamoGraph,
    dynamoV1beta1,
    grovePcs,
    grovePod,
    rayCluster,
    rayJob,
    rayService,
    rayPod,
    pytorchJob,
    mpiJob,
    kubeflowPod,
    inferenceService,
    knativeService,
    nimService,
    milvus,
    tgJobGroup,
  }).map(([k, v]) => [k, sortKeys(v)]),
);
