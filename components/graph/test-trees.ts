/** Workload trees for the graph and panel unit tests. */
import type { GpuFigures, GpuTotal, TreePod, WorkloadTree } from '../../contract/index.ts';

export function pod(name: string, component: string | null, instance: string | null, gpus = 4, phase = 'Running', ready = true): TreePod {
  return {
    name,
    namespace: 'team-a',
    uid: `uid-${name}`,
    component,
    instance,
    replica: '0',
    phase,
    ready,
    node: phase === 'Pending' ? null : `node-${name}`,
    gpus: gpus ? { 'nvidia.com/gpu': gpus } : {},
    allocated: phase === 'Running',
    restarts: 0,
  };
}

const total = (n: number): GpuTotal => ({ total: n, byResource: n ? { 'nvidia.com/gpu': n } : {} });
/** Every pod running and bound: desired = requested = allocated. */
const figures = (n: number): GpuFigures => ({ desired: total(n), requested: total(n), allocated: total(n) });

export function jobSetTree(leaders: number, workers: number): WorkloadTree {
  const pods: TreePod[] = [];
  for (let i = 0; i < leaders; i++) pods.push(pod(`train-leader-${i}`, 'replicatedjob', 'leader'));
  for (let i = 0; i < workers; i++) pods.push(pod(`train-worker-${i}`, 'replicatedjob', 'worker'));
  const g = (leaders + workers) * 4;
  return {
    workload: { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'team-a', name: 'train', uid: 'u1', cluster: 'sim' },
    definition: { name: 'jobset-x-k8s-io-jobset-v1alpha2', source: 'catalog' },
    status: { matched: ['Running'], phase: null, conditions: [] },
    components: [
      { name: 'jobset', kind: 'jobset.x-k8s.io/v1alpha2/JobSet', parent: null, hasPodDefinition: false, instances: [{ id: '', replicas: null, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 0, gpus: figures(0) }], gpus: figures(0) },
      {
        name: 'replicatedjob',
        kind: 'batch/v1/Job',
        parent: 'jobset',
        hasPodDefinition: true,
        instances: [
          { id: 'leader', replicas: leaders, minReplicas: null, maxReplicas: null, gpusPerPod: { 'nvidia.com/gpu': 4 }, livePods: leaders, gpus: figures(leaders * 4) },
          { id: 'worker', replicas: workers, minReplicas: null, maxReplicas: null, gpusPerPod: { 'nvidia.com/gpu': 4 }, livePods: workers, gpus: figures(workers * 4) },
        ],
        gpus: figures(g),
      },
    ],
    roles: [
      { name: 'leader', component: 'replicatedjob', instance: 'leader', desiredPods: leaders, livePods: leaders, readyPods: leaders, gpusPerPod: { 'nvidia.com/gpu': 4 } },
      { name: 'worker', component: 'replicatedjob', instance: 'worker', desiredPods: workers, livePods: workers, readyPods: workers, gpusPerPod: { 'nvidia.com/gpu': 4 } },
    ],
    pods,
    unmatchedPods: [],
    gpus: figures(g),
    unmatchedGpus: figures(0),
    gang: [],
    errors: [],
    warnings: [],
  };
}

export function podTree(): WorkloadTree {
  return {
    workload: { apiVersion: 'v1', kind: 'Pod', namespace: 'team-a', name: 'notebook', uid: 'u2', cluster: 'sim' },
    definition: { name: 'core-pod-v1', source: 'catalog' },
    status: { matched: ['Running'], phase: 'Running', conditions: [] },
    components: [{ name: 'pod', kind: 'v1/Pod', parent: null, hasPodDefinition: true, instances: [{ id: '', replicas: 1, minReplicas: null, maxReplicas: null, gpusPerPod: { 'nvidia.com/gpu': 1 }, livePods: 1, gpus: figures(1) }], gpus: figures(1) }],
    roles: [{ name: 'pod', component: 'pod', instance: '', desiredPods: 1, livePods: 1, readyPods: 1, gpusPerPod: { 'nvidia.com/gpu': 1 } }],
    pods: [pod('notebook', 'pod', '', 1)],
    unmatchedPods: [],
    gpus: figures(1),
    unmatchedGpus: figures(0),
    gang: [],
    errors: [],
    warnings: [],
  };
}
