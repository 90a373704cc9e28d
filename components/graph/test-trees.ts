/** Workload trees for the graph and panel unit tests. */
import type { GpuFigures, GpuTotal, TreePod, UsageFigures, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';

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

/** Utilization figures with every field defaulted to "no readings". */
export function usageFigures(o: Partial<UsageFigures> = {}): UsageFigures {
  return { allocated: 0, measured: 0, utilization: null, used: null, memory: null, idle: null, idleSince: null, pods: { gpu: 0, withMetrics: 0 }, ...o };
}

const GiB = 1024 ** 3;

/** `jobSetTree(1, 2)`'s utilization: the leader idle at 0 %, the workers saturated. */
export function jobSetUsage(): WorkloadUsage {
  const leader = usageFigures({ allocated: 4, measured: 4, utilization: 0, used: 0, memory: { usedBytes: 8 * GiB, totalBytes: 320 * GiB }, idle: 4, idleSince: '2026-01-01T00:00:00Z', pods: { gpu: 1, withMetrics: 1 } });
  const worker = usageFigures({ allocated: 8, measured: 8, utilization: 100, used: 8, memory: { usedBytes: 600 * GiB, totalBytes: 640 * GiB }, idle: 0, pods: { gpu: 2, withMetrics: 2 } });
  const pod = (f: UsageFigures) => ({ figures: { ...f, allocated: 4, measured: 4, used: (f.utilization! * 4) / 100, idle: f.idle ? 4 : 0, pods: { gpu: 1, withMetrics: 1 } }, gpus: [] });
  return {
    source: 'exporters',
    at: '2026-01-01T01:00:00Z',
    idle: { thresholdPercent: 5, windowSeconds: 900 },
    history: false,
    workload: usageFigures({ allocated: 12, measured: 12, utilization: 66.7, used: 8, memory: { usedBytes: 608 * GiB, totalBytes: 960 * GiB }, idle: 4, idleSince: '2026-01-01T00:00:00Z', pods: { gpu: 3, withMetrics: 3 } }),
    roles: [
      { name: 'leader', figures: leader },
      { name: 'worker', figures: worker },
    ],
    instances: [
      { component: 'replicatedjob', instance: 'leader', figures: leader },
      { component: 'replicatedjob', instance: 'worker', figures: worker },
    ],
    pods: { 'train-leader-0': pod(leader), 'train-worker-0': pod(worker), 'train-worker-1': pod(worker) },
  };
}

const none = (): GpuFigures => figures(0);

/**
 * A LeaderWorkerSet shaped as the catalog resolves it: `group` keys replicas (the group index), the
 * leader StatefulSet `<lws>` and one worker StatefulSet `<lws>-<g>` per group; pods `<lws>-<g>`
 * (leader) and `<lws>-<g>-<w>` (workers), 8 GPUs each.
 */
export function lwsTree(groups: number, size: number, name = 'vllm-405b'): WorkloadTree {
  const pods: TreePod[] = [];
  for (let g = 0; g < groups; g++) {
    pods.push({ ...pod(`${name}-${g}`, 'leader', '', 8), replica: String(g), owner: { kind: 'StatefulSet', name } });
    for (let w = 1; w < size; w++) pods.push({ ...pod(`${name}-${g}-${w}`, 'worker', '', 8), replica: String(g), owner: { kind: 'StatefulSet', name: `${name}-${g}` } });
  }
  const inst = (n: number) => ({ id: '', replicas: n, minReplicas: null, maxReplicas: null, gpusPerPod: { 'nvidia.com/gpu': 8 }, livePods: n, gpus: figures(n * 8) });
  const structural = (c: string, parent: string | null, keysReplicas = false) => ({
    name: c,
    kind: parent === null ? 'leaderworkerset.x-k8s.io/v1/LeaderWorkerSet' : '',
    parent,
    hasPodDefinition: false,
    ...(keysReplicas ? { keysReplicas } : {}),
    instances: [{ id: '', replicas: null, minReplicas: null, maxReplicas: null, gpusPerPod: {}, livePods: 0, gpus: none() }],
    gpus: none(),
  });
  return {
    workload: { apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', namespace: 'team-a', name, uid: 'u3', cluster: 'sim' },
    definition: { name: 'leaderworkerset-x-k8s-io-leaderworkerset-v1', source: 'catalog' },
    status: { matched: ['Running'], phase: null, conditions: [] },
    components: [
      structural('leaderworkerset', null),
      structural('group', 'leaderworkerset', true),
      { name: 'leader', kind: 'apps/v1/StatefulSet', parent: 'group', hasPodDefinition: true, instances: [inst(groups)], gpus: figures(groups * 8) },
      { name: 'worker', kind: 'apps/v1/StatefulSet', parent: 'group', hasPodDefinition: true, instances: [inst(groups * (size - 1))], gpus: figures(groups * (size - 1) * 8) },
    ],
    roles: [
      { name: 'leader', component: 'leader', instance: '', desiredPods: groups, livePods: groups, readyPods: groups, gpusPerPod: { 'nvidia.com/gpu': 8 } },
      { name: 'worker', component: 'worker', instance: '', desiredPods: groups * (size - 1), livePods: groups * (size - 1), readyPods: groups * (size - 1), gpusPerPod: { 'nvidia.com/gpu': 8 } },
    ],
    pods,
    unmatchedPods: [],
    gpus: figures(groups * size * 8),
    unmatchedGpus: none(),
    gang: [],
    errors: [],
    warnings: [],
  };
}

/**
 * A JobSet whose `workers` replicated job has `jobs` Jobs of `podsPerJob` pods each: the replicated job
 * keys replicas (the Job index); pods `<jobset>-workers-<job>-<pod>-<suffix>`, owned by Job `<jobset>-workers-<job>`.
 */
export function jobSetJobsTree(jobs: number, podsPerJob: number, name = 'llama-finetune'): WorkloadTree {
  const t = jobSetTree(1, 0);
  t.workload = { ...t.workload, name };
  t.components[1].keysReplicas = true;
  const leader = { ...pod(`${name}-leader-0-0-a1b2c`, 'replicatedjob', 'leader'), owner: { kind: 'Job', name: `${name}-leader-0` } };
  const workers: TreePod[] = [];
  for (let j = 0; j < jobs; j++) {
    for (let p = 0; p < podsPerJob; p++) {
      const suffix = ((j * 7919 + p * 104729) % 46656).toString(36).padStart(3, 'x').slice(-3);
      workers.push({ ...pod(`${name}-workers-${j}-${p}-q${suffix}z`, 'replicatedjob', 'worker', 1), replica: String(j), owner: { kind: 'Job', name: `${name}-workers-${j}` } });
    }
  }
  t.pods = [leader, ...workers];
  const w = jobs * podsPerJob;
  t.components[1].instances[1] = { ...t.components[1].instances[1], id: 'worker', replicas: w, livePods: w, gpusPerPod: { 'nvidia.com/gpu': 1 }, gpus: figures(w) };
  t.roles[1] = { ...t.roles[1], desiredPods: w, livePods: w, readyPods: w, gpusPerPod: { 'nvidia.com/gpu': 1 } };
  return t;
}
