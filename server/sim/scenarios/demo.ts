/**
 * The `demo` scenario: a small GPU cluster (H100, A100, an A100 with MIG, L4 and CPU nodes) running ~40
 * workloads of every framework in different states — running, completed, failed, suspended, and pending
 * for lack of GPUs — that keep changing slowly so a dashboard shows life: batch jobs finish and are
 * resubmitted, a JobSet is suspended and resumed, pods get killed and replaced, a Deployment scales.
 */

import type { SimClock } from '../clock.ts';
import { logger } from '../../log/index.ts';
import { Rng } from '../controllers/random.ts';
import type { KubeObject, ObjectStore } from '../store/object-store.ts';
import { StoreError } from '../store/object-store.ts';
import { createNodes } from './node-pools.ts';
import type { NodePool } from './node-pools.ts';
import { initializerRuntime, torchDistributedRuntime } from './trainjobs.ts';
import { build } from './workloads.ts';
import type { Framework, Shape } from './workloads.ts';

export const DEMO_POOLS: NodePool[] = [
  { type: 'h100', count: 7 },
  { type: 'a100', count: 2 },
  { type: 'a100-mig', count: 1 },
  { type: 'l4', count: 2 },
  { type: 'cpu', count: 4 },
];

const H100 = { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' };
const A100 = { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB', 'nvidia.com/gpu.count': '8' };
const L4 = { 'nvidia.com/gpu.product': 'NVIDIA-L4' };

type Entry = [Framework, Omit<Shape, 'namespace'> & { namespace: string }];

const MIG = { 'nvidia.com/mig.strategy': 'mixed' };

/**
 * The demo's workloads, in creation order. GPU workloads pick their node type the way teams do in a
 * heterogeneous cluster (nodeSelector on `nvidia.com/gpu.product`), which keeps the picture readable.
 */
export const DEMO_WORKLOADS: Entry[] = [
  ['milvus', { namespace: 'rag', name: 'vecdb', pods: 14, gpus: 0 }],
  ['milvus', { namespace: 'rag', name: 'vecdb-dev', pods: 3, gpus: 0, variant: 'standalone' }],
  ['statefulset', { namespace: 'data', name: 'redis', pods: 3, gpus: 0 }],
  ['deployment', { namespace: 'research', name: 'jupyter-hub', pods: 1, gpus: 0 }],
  // A notebook server holding a GPU (and its memory) that nobody uses.
  ['statefulset', { namespace: 'research', name: 'notebook-alice', pods: 1, gpus: 1, nodeSelector: H100, variant: 'notebook', load: 'idle' }],
  ['deployment', { namespace: 'data', name: 'label-studio', pods: 1, gpus: 0 }],
  // Failure states as `kubectl describe` shows them: a worker that crash-loops (exit 1, CrashLoopBackOff,
  // a traceback in its log) and an indexer the kernel kills for memory now and then (OOMKilled, exit 137).
  ['deployment', { namespace: 'team-vision', name: 'caption-worker', pods: 1, gpus: 0, duration: '40s', exitCode: 1 }],
  ['deployment', { namespace: 'research', name: 'doc-indexer', pods: 1, gpus: 0, duration: '3m', exitCode: 137, exitReason: 'OOMKilled' }],
  ['deployment', { namespace: 'team-vision', name: 'vision-demo-ui', pods: 2, gpus: 0 }],
  ['job', { namespace: 'data', name: 'nightly-etl', pods: 4, gpus: 0, duration: '3m-5m' }],
  ['jobset', { namespace: 'data', name: 'tokenize-shards', pods: 5, gpus: 0, duration: '2m-4m' }],
  ['kserve-knative', { namespace: 'inference', name: 'sklearn-iris', pods: 1, gpus: 0 }],
  ['knative', { namespace: 'inference', name: 'hello', pods: 1, gpus: 0, variant: 'scale-to-zero' }],
  ['jobset', { namespace: 'team-llm', name: 'llama-finetune', pods: 5, gpus: 2, duration: '18m-25m', nodeSelector: H100 }],
  // Stalls: trains for its first five minutes, then its GPUs go quiet while the job keeps running.
  ['pytorchjob', { namespace: 'team-vision', name: 'bert-ft', pods: 4, gpus: 1, duration: '12m-20m', nodeSelector: H100, load: 'busy-then-idle' }],
  ['pytorchjob', { namespace: 'team-vision', name: 'resnet-ddp', pods: 2, gpus: 2, duration: '6m-9m', nodeSelector: A100 }],
  // Stuck: allocated, running, and its GPUs do nothing (a hung collective), for the utilization views.
  ['pytorchjob', { namespace: 'team-llm', name: 'llama-lora', pods: 3, gpus: 1, duration: '10m-14m', nodeSelector: H100, load: 'idle' }],
  ['pytorchjob', { namespace: 'research', name: 'gpt-crash', pods: 2, gpus: 1, duration: '2m-3m', exitCode: 1, nodeSelector: A100 }],
  ['job', { namespace: 'team-vision', name: 'gpu-burn-in', pods: 1, gpus: 1, duration: '4m-6m', nodeSelector: A100 }],
  ['mpijob', { namespace: 'research', name: 'nccl-allreduce', pods: 3, gpus: 4, duration: '8m-12m', nodeSelector: H100 }],
  ['mpijob', { namespace: 'research', name: 'hpl-bench', pods: 3, gpus: 8, duration: '30m', suspend: true, nodeSelector: H100 }],
  ['jobset', { namespace: 'research', name: 'eval-sweep', pods: 5, gpus: 1, duration: '6m-8m', suspend: true, nodeSelector: H100 }],
  ['raycluster', { namespace: 'research', name: 'rc-interactive', pods: 3, gpus: 1, nodeSelector: L4 }],
  ['rayjob', { namespace: 'data', name: 'text-classify', pods: 2, gpus: 1, duration: '5m-7m', nodeSelector: L4 }],
  ['rayjob', { namespace: 'data', name: 'embed-corpus', pods: 2, gpus: 1, duration: '1m-2m', exitCode: 1, nodeSelector: L4 }],
  // Kubeflow Trainer v2: a small fine-tune whose dataset and model initializers complete before its 2 nodes
  // (one MIG slice each) start.
  ['trainjob', { namespace: 'research', name: 'qwen-sft', pods: 2, gpus: 1, gpuResource: 'nvidia.com/mig-1g.10gb', duration: '15m-20m', nodeSelector: MIG, variant: 'initializers' }],
  // A Spark batch job: the driver runs for a few minutes with two CPU executors, then completes.
  ['sparkapplication', { namespace: 'data', name: 'daily-aggregates', pods: 3, gpus: 0, duration: '4m-6m' }],
  // A PyTorchJob wrapped in an AppWrapper, queued in Kueue and admitted; and an MPI-style Volcano Job
  // gang-scheduled by Volcano (both CPU-only: the GPU pools stay as they are).
  ['appwrapper', { namespace: 'research', name: 'mnist-aw', pods: 2, gpus: 0, duration: '6m-9m' }],
  ['volcanojob', { namespace: 'data', name: 'mpi-hello', pods: 3, gpus: 0, duration: '5m-8m' }],
  ['rayservice', { namespace: 'inference', name: 'llm-serve', pods: 2, gpus: 2, nodeSelector: L4 }],
  ['kserve-standard', { namespace: 'inference', name: 'llama-31-8b', pods: 1, gpus: 1, nodeSelector: A100 }],
  ['kserve-knative', { namespace: 'inference', name: 'mistral-7b', pods: 1, gpus: 1, nodeSelector: A100 }],
  ['kserve-standard', { namespace: 'inference', name: 'stopped-model', pods: 1, gpus: 1, suspend: true, nodeSelector: A100 }],
  // llm-d serving through KServe's LLMInferenceService: one decode and one prefill replica (1 L4 each) behind
  // the endpoint picker.
  ['llmisvc', { namespace: 'inference', name: 'qwen3-8b', pods: 2, gpus: 1, variant: 'disagg', nodeSelector: L4 }],
  // Agent sandboxes: a CPU-only coding agent, and one on an L4 that its owner suspended (volume kept, no pod).
  ['sandbox', { namespace: 'research', name: 'agent-alice', pods: 1, gpus: 0 }],
  ['sandbox', { namespace: 'research', name: 'agent-bob', pods: 1, gpus: 1, nodeSelector: L4, suspend: true }],
  ['knative', { namespace: 'inference', name: 'embedder', pods: 1, gpus: 1, gpuResource: 'nvidia.com/mig-1g.10gb' }],
  ['deployment', { namespace: 'inference', name: 'triton-ensemble', pods: 2, gpus: 1, nodeSelector: L4 }],
  ['nimservice', { namespace: 'nim', name: 'llama-3-2-1b', pods: 1, gpus: 1, variant: 'cache', nodeSelector: A100 }],
  ['nimservice', { namespace: 'nim', name: 'nv-embedqa', pods: 1, gpus: 1, gpuResource: 'nvidia.com/mig-3g.40gb' }],
  ['nimservice', { namespace: 'nim', name: 'deepseek-r1', pods: 2, gpus: 4, variant: 'multinode', nodeSelector: H100 }],
  ['leaderworkerset', { namespace: 'team-llm', name: 'sglang-llama', pods: 4, gpus: 1, nodeSelector: H100 }],
  ['podcliqueset', { namespace: 'dynamo', name: 'mn-disagg', pods: 6, gpus: 1, nodeSelector: H100 }],
  // Disaggregated serving out of balance: decode saturated while prefill idles.
  ['dynamo', { namespace: 'dynamo', name: 'vllm-disagg', pods: 5, gpus: 1, nodeSelector: H100, roleLoad: { decode: 'saturated', prefill: 'idle' } }],
  ['dynamo', { namespace: 'dynamo', name: 'vllm-agg', pods: 4, gpus: 1, variant: 'component', nodeSelector: A100 }],
  ['dynamo', { namespace: 'dynamo', name: 'qwen-beta', pods: 4, gpus: 1, variant: 'v1beta1', nodeSelector: MIG }],
  // The training operator's other kinds, small: a TFJob (chief, parameter server, 2 workers) on MIG slices,
  // a CPU-only XGBoostJob, a JAXJob of 2 single-GPU workers, a CPU-only PaddleJob (master + 2 workers).
  ['tfjob', { namespace: 'research', name: 'resnet-tf', pods: 4, gpus: 1, gpuResource: 'nvidia.com/mig-1g.10gb', duration: '8m-12m', nodeSelector: MIG }],
  ['xgboostjob', { namespace: 'data', name: 'churn-xgb', pods: 3, gpus: 0, duration: '3m-5m' }],
  ['jaxjob', { namespace: 'research', name: 'jax-mnist', pods: 2, gpus: 1, duration: '6m-9m', nodeSelector: A100 }],
  ['paddlejob', { namespace: 'data', name: 'paddle-ctr', pods: 3, gpus: 0, duration: '10m-15m' }],
];

/**
 * Submitted a minute after the rest, when the cluster is busy: too big for what is left, these stay
 * (partly) Pending for lack of GPUs.
 */
export const DEMO_LATE: Entry[] = [
  ['leaderworkerset', { namespace: 'team-llm', name: 'vllm-405b', pods: 4, gpus: 8, nodeSelector: A100 }],
  ['raycluster', { namespace: 'research', name: 'rc-batch-big', pods: 5, gpus: 8, nodeSelector: H100 }],
  ['kserve-standard', { namespace: 'inference', name: 'vision-xl', pods: 1, gpus: 16 }],
  ['dynamo', { namespace: 'dynamo', name: 'trtllm-70b', pods: 8, gpus: 8, variant: 'component', nodeSelector: H100 }],
  ['jobset', { namespace: 'team-llm', name: 'mixtral-pretrain', pods: 17, gpus: 8, duration: '2h', nodeSelector: H100 }],
];

export const DEMO_ALL: Entry[] = [...DEMO_WORKLOADS, ...DEMO_LATE];

export const DEMO_NAMESPACES = [...new Set(DEMO_ALL.map(([, s]) => s.namespace))];

/** Creates, ignoring "already exists" (a restarted simulator keeps its state). */
export function createQuiet(store: ObjectStore, obj: KubeObject): KubeObject | undefined {
  try {
    return store.create(obj);
  } catch (e) {
    if (e instanceof StoreError && e.reason === 'AlreadyExists') return undefined;
    throw e;
  }
}

export function ensureNamespaces(store: ObjectStore, names: Iterable<string>): void {
  for (const name of names) {
    if (store.get('v1', 'Namespace', undefined, name)) continue;
    createQuiet(store, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  }
}

/** Is a batch root object finished (and how long ago)? */
export function finishedAt(o: KubeObject): number | undefined {
  const st = (o.status ?? {}) as Record<string, unknown> & { conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }> };
  const at = (t?: string): number | undefined => (t ? Date.parse(t) : undefined);
  // A Volcano Job is a `Job` too: its lifecycle is status.state.
  if (o.apiVersion.startsWith('batch.volcano.sh/')) {
    const state = st.state as { phase?: string; lastTransitionTime?: string } | undefined;
    return ['Completed', 'Failed', 'Terminated'].includes(state?.phase ?? '') ? at(state?.lastTransitionTime) ?? 0 : undefined;
  }
  switch (o.kind) {
    case 'Job':
    case 'PyTorchJob':
    case 'TFJob':
    case 'XGBoostJob':
    case 'JAXJob':
    case 'PaddleJob':
    case 'MPIJob':
    case 'TrainJob':
    case 'JobSet': {
      const c = st.conditions?.find((x) => x.status === 'True' && ['Complete', 'Failed', 'Succeeded', 'Completed'].includes(x.type));
      return c ? at(c.lastTransitionTime) ?? 0 : undefined;
    }
    case 'AppWrapper': {
      // Succeeded and Failed both release the quota: QuotaReserved turns False then.
      if (st.phase !== 'Succeeded' && st.phase !== 'Failed') return undefined;
      return at(st.conditions?.find((x) => x.type === 'QuotaReserved')?.lastTransitionTime) ?? 0;
    }
    case 'RayJob':
      return st.jobDeploymentStatus === 'Complete' || st.jobDeploymentStatus === 'Failed' ? at(st.endTime as string | undefined) ?? 0 : undefined;
    case 'SparkApplication': {
      const state = (st.applicationState as { state?: string } | undefined)?.state;
      return state === 'COMPLETED' || state === 'FAILED' ? at(st.terminationTime as string | undefined) ?? 0 : undefined;
    }
    default:
      return undefined;
  }
}

function objectOf(fw: Framework, shape: Shape): KubeObject {
  return build(fw, shape).object;
}

export interface DemoOptions {
  seed?: number;
  clock?: SimClock;
}

/** Builds the demo cluster; returns the churn driver's stop. */
export function applyDemo(store: ObjectStore, options: DemoOptions): { stop(): void } {
  const rng = new Rng((options.seed ?? 1) * 7919 + 13);
  const now = options.clock?.iso();
  ensureNamespaces(store, DEMO_NAMESPACES);
  if (store.list('v1', 'Node').length === 0) createNodes(store, DEMO_POOLS, now);
  createQuiet(store, {
    apiVersion: 'apps.nvidia.com/v1alpha1',
    kind: 'NIMCache',
    metadata: { name: 'llama-3-2-1b-cache', namespace: 'nim' },
    spec: { source: { ngc: { modelPuller: 'nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0', pullSecret: 'ngc-secret', authSecret: 'ngc-api-secret', model: { engine: 'tensorrt_llm', tensorParallelism: '1' } } }, storage: { pvc: { create: true, storageClass: 'standard', size: '50Gi', volumeAccessMode: 'ReadWriteOnce' } } },
  });
  // Kubeflow Trainer's runtimes, installed before the TrainJob: the shipped torch-distributed, and the
  // research team's runtime with initializers that its TrainJob references.
  createQuiet(store, torchDistributedRuntime());
  createQuiet(store, initializerRuntime('research'));
  for (const [fw, shape] of DEMO_WORKLOADS) createQuiet(store, objectOf(fw, shape));
  const clock = options.clock;
  const late = (): void => {
    for (const [fw, shape] of DEMO_LATE) createQuiet(store, objectOf(fw, shape));
  };
  if (!clock) {
    late();
    return { stop: () => {} };
  }
  const lateTimer = clock.setTimeout(late, 60_000);

  // Life: every 20 s (simulated) one small change, chosen at random among the kinds of change below.
  const generations = new Map<string, number>();
  const tick = (): void => {
    try {
      churnOnce(store, clock, rng, generations);
    } catch (e) {
      if (!(e instanceof StoreError)) logger('sim.demo').warn({ err: e }, 'change failed');
    }
  };
  const stop = clock.setInterval(tick, 20_000);
  return {
    stop: () => {
      stop();
      clock.clearTimeout(lateTimer);
    },
  };
}

function churnOnce(store: ObjectStore, clock: SimClock, rng: Rng, generations: Map<string, number>): void {
  const nowMs = clock.now();
  // 1. Finished batch work is cleaned up two minutes after it ended and submitted again.
  for (const [fw, shape] of DEMO_ALL) {
    const base = shape.name;
    const gen = generations.get(base) ?? 1;
    const name = gen > 1 ? `${base}-${gen}` : base;
    const obj = objectOf(fw, { ...shape, name });
    const cur = store.get(obj.apiVersion, obj.kind, shape.namespace, name);
    if (!cur) continue;
    const fin = finishedAt(cur);
    if (fin !== undefined && nowMs - fin > 120_000) {
      store.delete(cur.apiVersion, cur.kind, shape.namespace, name);
      const next = gen + 1;
      generations.set(base, next);
      createQuiet(store, objectOf(fw, { ...shape, name: `${base}-${next}` }));
      return;
    }
  }
  const r = rng.next();
  if (r < 0.3) {
    // 2. The evaluation sweep is suspended and resumed.
    const js = store.list('jobset.x-k8s.io/v1alpha2', 'JobSet', { namespace: 'research' }).find((j) => j.metadata.name!.startsWith('eval-sweep'));
    if (js && !finishedAt(js)) {
      const spec = js.spec as { suspend?: boolean };
      store.update({ ...js, spec: { ...spec, suspend: !spec.suspend } });
    }
  } else if (r < 0.6) {
    // 3. A serving pod is killed (node drain, OOM kill …); its controller replaces it.
    const pods = store.list('v1', 'Pod', { namespace: rng.chance(0.5) ? 'inference' : 'data' }).filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running' && p.metadata.ownerReferences?.some((o) => o.kind === 'ReplicaSet' || o.kind === 'StatefulSet'));
    if (pods.length > 0) {
      const p = rng.pick(pods);
      store.delete('v1', 'Pod', p.metadata.namespace, p.metadata.name!);
    }
  } else if (r < 0.8) {
    // 4. Serving capacity follows demand.
    const d = store.get('apps/v1', 'Deployment', 'inference', 'triton-ensemble');
    if (d) store.update({ ...d, spec: { ...(d.spec as object), replicas: 1 + rng.int(0, 2) } });
  } else {
    // 5. The interactive Ray cluster is paused and resumed by its owner.
    const rc = store.get('ray.io/v1', 'RayCluster', 'research', 'rc-interactive');
    if (rc) store.update({ ...rc, spec: { ...(rc.spec as object), suspend: !(rc.spec as { suspend?: boolean }).suspend } });
  }
}
