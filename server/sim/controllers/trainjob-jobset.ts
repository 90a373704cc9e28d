/**
 * How Kubeflow Trainer v2 turns a TrainJob and its runtime (TrainingRuntime / ClusterTrainingRuntime)
 * into a JobSet (pure): the runtime's JobSet template, its runtimePatches merged in, each step found by
 * the `trainer.kubeflow.org/trainjob-ancestor-step` label of its replicatedJob (dataset-initializer,
 * model-initializer, trainer), every step forced to one Job whose parallelism and completions are its
 * pod count, the trainer's `node` container given the TrainJob's image, command, args, env and
 * resourcesPerNode, the torch PET_* environment, the MPI node count, the gang-scheduler's pod label or
 * annotation from the runtime's podGroupPolicy, `suspend` from the TrainJob, and the TrainJob as the
 * JobSet's controller.
 */

import { ctrlRef, mergeMaps } from './meta.ts';
import type { JobSetSpec } from './jobset.ts';
import type { JobSpec } from './job.ts';
import { SIM } from './pods.ts';
import type { Container, EnvVar, KubeObject, PodSpec, ResourceRequirements, StringMap } from './types.ts';

export const TRAINER_GROUP = 'trainer.kubeflow.org';
export const TRAINER_API = `${TRAINER_GROUP}/v1alpha1`;
export const ANCESTOR = `${TRAINER_GROUP}/trainjob-ancestor-step`;
/** The container of every step that the TrainJob configures is named after the step (`node` for the trainer). */
const NODE = 'node';
const TRAINER_PORT = 29500;

export interface MLPolicy {
  numNodes?: number;
  torch?: Record<string, unknown>;
  mpi?: { numProcPerNode?: number; runLauncherAsNode?: boolean; mpiImplementation?: string; sshAuthMountPath?: string };
  jax?: Record<string, unknown>;
  xgboost?: Record<string, unknown>;
}

export interface TrainingRuntimeSpec {
  mlPolicy?: MLPolicy;
  podGroupPolicy?: { coscheduling?: { scheduleTimeoutSeconds?: number }; volcano?: Record<string, unknown> };
  template?: { metadata?: { labels?: StringMap; annotations?: StringMap }; spec?: JobSetSpec };
}

interface InitializerSpec {
  storageUri?: string;
  env?: EnvVar[];
  secretRef?: { name: string };
}

interface PodSpecPatch {
  serviceAccountName?: string;
  nodeSelector?: StringMap;
  tolerations?: unknown[];
  affinity?: unknown;
  schedulingGates?: unknown[];
  volumes?: Array<{ name: string }>;
  imagePullSecrets?: unknown[];
  securityContext?: unknown;
  terminationGracePeriodSeconds?: number;
  containers?: Array<{ name: string; env?: EnvVar[]; volumeMounts?: Array<{ name: string }> }>;
  initContainers?: Array<{ name: string; env?: EnvVar[]; volumeMounts?: Array<{ name: string }> }>;
}

interface Meta {
  labels?: StringMap;
  annotations?: StringMap;
}

export interface RuntimePatch {
  manager: string;
  trainingRuntimeSpec?: {
    template?: {
      metadata?: Meta;
      spec?: { replicatedJobs?: Array<{ name: string; template?: { metadata?: Meta; spec?: { template?: { metadata?: Meta; spec?: PodSpecPatch } } } }> };
    };
  };
}

export interface TrainJobSpec {
  runtimeRef: { name: string; apiGroup?: string; kind?: string };
  initializer?: { dataset?: InitializerSpec; model?: InitializerSpec };
  trainer?: {
    image?: string;
    command?: string[];
    args?: string[];
    env?: EnvVar[];
    numNodes?: number;
    resourcesPerNode?: ResourceRequirements;
    numProcPerNode?: number;
  };
  runtimePatches?: RuntimePatch[];
  suspend?: boolean;
  activeDeadlineSeconds?: number;
  managedBy?: string;
}

type ReplicatedJob = JobSetSpec['replicatedJobs'][number];

/** Adds or replaces entries by name, keeping the order of the existing ones (apply.Upsert* upstream). */
function upsertByName<T extends { name: string }>(list: T[] | undefined, items: readonly T[] | undefined): T[] | undefined {
  if (!items || items.length === 0) return list;
  const out = [...(list ?? [])];
  for (const it of items) {
    const i = out.findIndex((x) => x.name === it.name);
    if (i >= 0) out[i] = it;
    else out.push(it);
  }
  return out;
}

/** Limits and requests merged per resource name, the TrainJob's winning (a strategic merge upstream). */
function mergeResources(base: ResourceRequirements | undefined, over: ResourceRequirements): ResourceRequirements {
  const out: ResourceRequirements = { ...(base ?? {}) };
  for (const k of ['limits', 'requests'] as const) {
    if (over[k]) out[k] = { ...(base?.[k] ?? {}), ...over[k] };
  }
  return out;
}

function gpusPerNode(r: ResourceRequirements | undefined): number {
  const count = (m: Record<string, string | number> | undefined): number => {
    for (const [k, v] of Object.entries(m ?? {})) if (k.toLowerCase().includes('gpu')) return Number(v) || 0;
    return 0;
  };
  return count(r?.requests) || count(r?.limits);
}

function cpusPerNode(r: ResourceRequirements | undefined): number {
  const cpu = (v: string | number | undefined): number => {
    if (v === undefined) return 0;
    const s = String(v);
    return Math.floor(s.endsWith('m') ? Number(s.slice(0, -1)) / 1000 : Number(s)) || 0;
  };
  return cpu(r?.requests?.cpu) || cpu(r?.limits?.cpu);
}

/** A runtime patch's pod spec onto a pod spec: maps merge, lists merge by name or append, scalars replace. */
function patchPodSpec(spec: PodSpec, p: PodSpecPatch): PodSpec {
  const out: PodSpec = { ...spec };
  if (p.serviceAccountName !== undefined) out.serviceAccountName = p.serviceAccountName;
  if (p.nodeSelector) out.nodeSelector = { ...(spec.nodeSelector ?? {}), ...p.nodeSelector };
  if (p.tolerations) out.tolerations = [...(spec.tolerations ?? []), ...(p.tolerations as PodSpec['tolerations'] & unknown[])];
  if (p.affinity !== undefined) out.affinity = p.affinity as PodSpec['affinity'];
  if (p.schedulingGates) out.schedulingGates = [...(spec.schedulingGates ?? []), ...(p.schedulingGates as Array<{ name: string }>)];
  if (p.volumes) out.volumes = upsertByName(spec.volumes as Array<{ name: string }> | undefined, p.volumes);
  if (p.imagePullSecrets) out.imagePullSecrets = p.imagePullSecrets;
  if (p.securityContext !== undefined) out.securityContext = p.securityContext;
  if (p.terminationGracePeriodSeconds !== undefined) out.terminationGracePeriodSeconds = p.terminationGracePeriodSeconds;
  const patchContainers = (list: Container[] | undefined, patches: PodSpecPatch['containers']): Container[] | undefined =>
    list?.map((c) => {
      const cp = patches?.find((x) => x.name === c.name);
      if (!cp) return c;
      return { ...c, env: upsertByName(c.env, cp.env), volumeMounts: upsertByName(c.volumeMounts as Array<{ name: string }> | undefined, cp.volumeMounts) };
    });
  out.containers = patchContainers(spec.containers, p.containers) ?? [];
  if (spec.initContainers) out.initContainers = patchContainers(spec.initContainers, p.initContainers);
  return out;
}

/** The runtime's JobSet template with the TrainJob's runtimePatches applied in order. */
function patchedTemplate(tj: TrainJobSpec, rt: TrainingRuntimeSpec): { meta: Meta; spec: JobSetSpec } {
  const spec = structuredClone(rt.template?.spec ?? { replicatedJobs: [] });
  const meta: Meta = { labels: rt.template?.metadata?.labels, annotations: rt.template?.metadata?.annotations };
  for (const patch of tj.runtimePatches ?? []) {
    const t = patch.trainingRuntimeSpec?.template;
    if (!t) continue;
    meta.labels = mergeMaps(meta.labels, t.metadata?.labels);
    meta.annotations = mergeMaps(meta.annotations, t.metadata?.annotations);
    for (const rp of t.spec?.replicatedJobs ?? []) {
      const rj = spec.replicatedJobs.find((r) => r.name === rp.name);
      if (!rj || !rp.template) continue;
      rj.template.metadata = { ...(rj.template.metadata ?? {}), labels: mergeMaps(rj.template.metadata?.labels, rp.template.metadata?.labels), annotations: mergeMaps(rj.template.metadata?.annotations, rp.template.metadata?.annotations) };
      const pt = rp.template.spec?.template;
      if (!pt) continue;
      const pod = rj.template.spec.template;
      rj.template.spec.template = {
        ...pod,
        metadata: { ...(pod.metadata ?? {}), labels: mergeMaps(pod.metadata?.labels, pt.metadata?.labels), annotations: mergeMaps(pod.metadata?.annotations, pt.metadata?.annotations) },
        spec: pt.spec ? patchPodSpec(pod.spec, pt.spec) : pod.spec,
      };
    }
  }
  return { meta, spec };
}

const ancestorOf = (rj: ReplicatedJob): string | undefined => rj.template.metadata?.labels?.[ANCESTOR];

/** Pods of each replicatedJob: the trainer's from numNodes, MPI's `node` one fewer when the launcher is a node. */
export function podCounts(tj: TrainJobSpec, rt: TrainingRuntimeSpec, rjs: readonly ReplicatedJob[]): Map<string, number> {
  const ml = rt.mlPolicy;
  const numNodes = tj.trainer?.numNodes;
  const out = new Map<string, number>();
  for (const rj of rjs) {
    let n = Math.max(1, rj.template.spec.parallelism ?? 1);
    if (ancestorOf(rj) === 'trainer' && ml) n = Math.max(1, ml.numNodes ?? 1);
    if (numNodes !== undefined) {
      if (ml?.mpi) {
        if (rj.name === NODE) n = ml.mpi.runLauncherAsNode ? Math.max(numNodes - 1, 1) : numNodes;
      } else if (ancestorOf(rj) === 'trainer') n = numNodes;
    }
    out.set(rj.name, n);
  }
  return out;
}

/** PET_* for torchrun: nodes, processes per node ("auto", or CPUs for a CPU-only node), rank, master. */
function torchEnv(name: string, nodes: number, tj: TrainJobSpec, runtimeResources: ResourceRequirements | undefined): EnvVar[] {
  const res = tj.trainer?.resourcesPerNode ?? runtimeResources;
  let nproc = tj.trainer?.numProcPerNode !== undefined ? String(tj.trainer.numProcPerNode) : 'auto';
  if (nproc === 'auto' && gpusPerNode(res) === 0) nproc = String(Math.max(1, cpusPerNode(res)));
  return [
    { name: 'PET_NNODES', value: String(nodes) },
    { name: 'PET_NPROC_PER_NODE', value: nproc },
    { name: 'PET_NODE_RANK', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
    { name: 'PET_MASTER_ADDR', value: `${name}-${NODE}-0-0.${name}` },
    { name: 'PET_MASTER_PORT', value: String(TRAINER_PORT) },
  ];
}

function initializerEnv(init: InitializerSpec | undefined): EnvVar[] {
  if (!init) return [];
  return [...(init.storageUri !== undefined ? [{ name: 'STORAGE_URI', value: init.storageUri }] : []), ...(init.env ?? [])];
}

/** The JobSet the trainer controller applies for a TrainJob and its runtime. */
export function trainJobJobSet(tj: KubeObject, rt: TrainingRuntimeSpec): KubeObject {
  const spec = tj.spec as TrainJobSpec;
  const name = tj.metadata.name!;
  const { meta, spec: js } = patchedTemplate(spec, rt);
  const counts = podCounts(spec, rt, js.replicatedJobs);
  const ml = rt.mlPolicy;
  const launcherIsNode = !!ml?.mpi?.runLauncherAsNode;
  const sim: StringMap = {};
  for (const k of [SIM.duration, SIM.exitCode, SIM.exitReason, SIM.startup]) {
    const v = tj.metadata.annotations?.[k];
    if (v !== undefined) sim[k] = v;
  }
  const trainerPods = [...counts.entries()].filter(([rj]) => ancestorOf(js.replicatedJobs.find((r) => r.name === rj)!) === 'trainer').reduce((n, [, c]) => n + c, 0);

  js.replicatedJobs = js.replicatedJobs.map((rj) => {
    const ancestor = ancestorOf(rj);
    const count = counts.get(rj.name)!;
    const pod = rj.template.spec.template;
    const isTrainer = ancestor === 'trainer';
    // resourcesPerNode and env go to every node of the training: the trainer step, and MPI's `node` Job
    // when the launcher runs as one of the nodes.
    const isNode = (isTrainer && !!ml) || (launcherIsNode && rj.name === NODE);
    const containers = pod.spec.containers.map((c) => {
      let out: Container = { ...c };
      if (ancestor === 'dataset-initializer' || ancestor === 'model-initializer') {
        const init = ancestor === 'dataset-initializer' ? spec.initializer?.dataset : spec.initializer?.model;
        if (c.name === ancestor && init) {
          out.env = upsertByName(c.env, initializerEnv(init));
          if (init.secretRef) out.envFrom = [...((c.envFrom as unknown[] | undefined) ?? []), { secretRef: { name: init.secretRef.name } }];
        }
        return out;
      }
      if (c.name !== NODE) return out;
      const t = spec.trainer;
      if (isNode && t?.resourcesPerNode) out.resources = mergeResources(c.resources, t.resourcesPerNode);
      if (isTrainer && t) {
        out = { ...out, ...(t.image ? { image: t.image } : {}), ...(t.command ? { command: t.command } : {}), ...(t.args ? { args: t.args } : {}) };
      }
      if ((isTrainer || isNode) && t?.env) out.env = upsertByName(out.env, t.env);
      if (isTrainer && ml?.torch) {
        out.env = upsertByName(out.env, torchEnv(name, trainerPods, spec, c.resources));
        // Ports are matched by number: the rendezvous port is added unless the runtime already has it.
        if (!(out.ports ?? []).some((p) => p.containerPort === TRAINER_PORT)) out.ports = [...(out.ports ?? []), { containerPort: TRAINER_PORT }];
      }
      return out;
    });
    const podLabels = mergeMaps(pod.metadata?.labels, rt.podGroupPolicy?.coscheduling ? { 'scheduling.x-k8s.io/pod-group': name } : undefined);
    const podAnnotations = mergeMaps(pod.metadata?.annotations, rt.podGroupPolicy?.volcano ? { 'scheduling.k8s.io/group-name': name } : undefined, isTrainer || isNode ? sim : undefined);
    const jobSpec: JobSpec = {
      ...rj.template.spec,
      parallelism: count,
      completions: count,
      template: { ...pod, metadata: { ...(pod.metadata ?? {}), ...(podLabels ? { labels: podLabels } : {}), ...(podAnnotations ? { annotations: podAnnotations } : {}) }, spec: { ...pod.spec, containers } },
    };
    return { ...rj, ...(ancestor ? { replicas: 1 } : {}), template: { ...rj.template, spec: jobSpec } };
  });
  js.suspend = !!spec.suspend;
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: {
      name,
      namespace: tj.metadata.namespace,
      ...(meta.labels ? { labels: meta.labels } : {}),
      ...(meta.annotations ? { annotations: meta.annotations } : {}),
      ownerReferences: [ctrlRef(tj)],
    },
    spec: js,
  };
}
