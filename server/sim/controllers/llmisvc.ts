/**
 * KServe's LLMInferenceService controller (serving.kserve.io, storage version v1alpha2; v1alpha1 objects are
 * the same object served by conversion). The spec is merged with the well-known presets in memory (never
 * written back), then:
 * - single node: Deployment `<name>-kserve` (decode, llm-d role `decode`, or `both` without prefill) and
 *   `<name>-kserve-prefill`;
 * - multi node (`.spec.worker`): LeaderWorkerSet `<name>-kserve-mn` / `<name>-kserve-mn-prefill`, size from
 *   `.parallelism` (data / dataLocal, else pipeline), leaders and workers with their own component labels;
 * - the endpoint picker Deployment `<name>-kserve-router-scheduler` (Recreate) and its Service, the workload
 *   Service `<name>-kserve-workload-svc`;
 * all controlled by the LLMInferenceService, pods labelled `app.kubernetes.io/{component,name,part-of}`.
 * Status mirrors the real one: sub-conditions from the Deployments' and LWSs' Available conditions rolled up
 * into WorkloadsReady / RouterReady, Ready carrying the reason of the first dependency not True (Knative's
 * living condition set), url / addresses, and (v1alpha2) status.workloads with ready replicas.
 * `serving.kserve.io/stop: "true"` deletes the workloads and marks everything False, reason Stopped.
 * (Gateways, HTTPRoutes and InferencePools are not simulated: the router conditions read True.)
 */

import { ctrlRef, getCondition, mergeMaps, setCondition } from './meta.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, Container, KubeObject, OwnerReference, PodSpec, StringMap } from './types.ts';

export const LLMISVC_API = 'serving.kserve.io/v1alpha2';
const VLLM_IMAGE = 'ghcr.io/llm-d/llm-d-cuda:v0.9.0';
const EPP_IMAGE = 'ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0';
const SIDECAR_IMAGE = 'ghcr.io/llm-d/llm-d-router-disagg-sidecar:v0.10.0';
const STORAGE_IMAGE = 'kserve/storage-initializer:v0.20.0';
const GATEWAY_URL = 'http://inference-gateway.kserve-ingress.svc.cluster.local';

interface Parallelism {
  tensor?: number;
  pipeline?: number;
  data?: number;
  dataLocal?: number;
}

interface WorkloadSpec {
  replicas?: number;
  scaling?: { minReplicas?: number; maxReplicas?: number };
  parallelism?: Parallelism;
  labels?: StringMap;
  annotations?: StringMap;
  template?: PodSpec;
  worker?: PodSpec;
}

export interface LLMInferenceServiceSpec extends WorkloadSpec {
  model: { uri: string; name?: string };
  prefill?: WorkloadSpec;
  router?: { route?: unknown; gateway?: unknown; scheduler?: { template?: PodSpec; replicas?: number; pool?: { ref?: { name?: string } } } };
}

export function isStopped(isvc: KubeObject): boolean {
  return (isvc.metadata.annotations?.['serving.kserve.io/stop'] ?? '').toLowerCase() === 'true';
}

/** LWS group size as the controller computes it (ParallelismSpec.GetSize): undefined → the LWS default 1. */
export function groupSize(p: Parallelism | undefined): number {
  if (!p) return 1;
  if ((p.data ?? 0) > 0 || (p.dataLocal ?? 0) > 0) return Math.max(Math.floor(Math.max(p.data ?? 1, 1) / Math.max(p.dataLocal ?? 1, 1)), 1);
  if ((p.pipeline ?? 0) > 0) return p.pipeline!;
  return 1;
}

function replicasOf(w: WorkloadSpec): number {
  return w.replicas ?? w.scaling?.minReplicas ?? 1;
}

export function workloadLabels(name: string, component: string, extra: StringMap = {}): StringMap {
  return { 'app.kubernetes.io/component': component, 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'llminferenceservice', ...extra };
}

/** The preset's main container with the user's fields over it (what the merged spec holds). */
function servingPodSpec(isvc: KubeObject, user: PodSpec | undefined, o: { role: 'decode' | 'prefill' | 'both' | 'worker'; sidecar: boolean; sa: string }): PodSpec {
  const spec = isvc.spec as LLMInferenceServiceSpec;
  const model = spec.model.name ?? isvc.metadata.name!;
  const port = o.sidecar ? 8001 : 8000;
  const mine = (user?.containers ?? []).find((c) => c.name === 'main');
  const main: Container = {
    name: 'main',
    image: VLLM_IMAGE,
    imagePullPolicy: 'IfNotPresent',
    command: ['vllm', 'serve', '/mnt/models'],
    args: ['--served-model-name', model, '--port', String(port), ...(o.role === 'prefill' ? ['--kv-transfer-config', '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'] : [])],
    ports: [{ containerPort: port, protocol: 'TCP' }],
    ...(o.role === 'worker' ? {} : { readinessProbe: { httpGet: { path: '/health', port, scheme: 'HTTPS' }, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 60 } }),
    volumeMounts: [{ name: 'dshm', mountPath: '/dev/shm' }, { name: 'kserve-provision-location', mountPath: '/mnt/models', readOnly: true }],
    ...(mine ?? {}),
  };
  const others = (user?.containers ?? []).filter((c) => c.name !== 'main');
  return {
    ...(user ?? {}),
    serviceAccountName: o.sa,
    containers: [main, ...others],
    initContainers: [
      ...(o.sidecar ? [{ name: 'llm-d-routing-sidecar', image: SIDECAR_IMAGE, args: ['--port=8000', '--vllm-port=8001', '--connector=nixlv2'], ports: [{ containerPort: 8000, protocol: 'TCP' }], restartPolicy: 'Always' }] : []),
      { name: 'storage-initializer', image: STORAGE_IMAGE, args: [spec.model.uri, '/mnt/models'], resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '100Mi' } } },
    ],
    volumes: [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '16Gi' } }, { name: 'kserve-provision-location', emptyDir: {} }],
  };
}

function eppPodSpec(name: string, ns: string, user: PodSpec | undefined): PodSpec {
  return {
    ...(user ?? {}),
    serviceAccountName: `${name}-epp-sa`,
    terminationGracePeriodSeconds: 130,
    containers: user?.containers ?? [
      {
        name: 'main',
        image: EPP_IMAGE,
        args: ['--pool-name', `${name}-inference-pool`, '--pool-namespace', ns, '--grpc-port', '9002', '--grpc-health-port', '9003', '--secure-serving'],
        ports: [{ name: 'grpc', containerPort: 9002, protocol: 'TCP' }, { name: 'grpc-health', containerPort: 9003, protocol: 'TCP' }, { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
        readinessProbe: { grpc: { port: 9003, service: 'inference-extension' }, initialDelaySeconds: 5, periodSeconds: 10 },
        resources: { requests: { cpu: '256m', memory: '500Mi' } },
      },
    ],
  };
}

/** What the reconcile wants to exist: workload objects, by name (an absent name is deleted). */
export interface LLMISVCPlan {
  deployments: KubeObject[];
  leaderWorkerSets: KubeObject[];
  services: KubeObject[];
  /** Names of the children that must not exist (their role is off, or the service is stopped). */
  absent: Array<{ apiVersion: string; kind: string; name: string }>;
}

function ownerRef(isvc: KubeObject): OwnerReference {
  // The controller reconciles the hub version: its children point at v1alpha2 whatever version the user wrote.
  return { ...ctrlRef(isvc), apiVersion: LLMISVC_API };
}

function sim(isvc: KubeObject): StringMap | undefined {
  const a = isvc.metadata.annotations ?? {};
  const out: StringMap = {};
  for (const k in a) if (k.startsWith('sim.workload-map.io/')) out[k] = a[k];
  return Object.keys(out).length ? out : undefined;
}

export function planLLMInferenceService(isvc: KubeObject): LLMISVCPlan {
  const spec = isvc.spec as LLMInferenceServiceSpec;
  const name = isvc.metadata.name!;
  const ns = isvc.metadata.namespace!;
  const stopped = isStopped(isvc);
  const owner = [ownerRef(isvc)];
  const plan: LLMISVCPlan = { deployments: [], leaderWorkerSets: [], services: [], absent: [] };
  // The selector holds the controller's labels; the role's own labels go on the pod template only.
  const deployment = (n: string, labels: StringMap, replicas: number | undefined, podSpec: PodSpec, extra: Record<string, unknown> = {}, annotations?: StringMap, podLabels?: StringMap): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: n, namespace: ns, labels, ownerReferences: owner },
    spec: { ...(replicas !== undefined ? { replicas } : {}), selector: { matchLabels: labels }, ...extra, template: { metadata: { labels: mergeMaps(labels, podLabels), ...(annotations ? { annotations } : {}) }, spec: podSpec } },
  });
  const lws = (n: string, w: WorkloadSpec, role: 'decode' | 'prefill', suffix: string): KubeObject => {
    const size = groupSize(w.parallelism);
    const workerLabels = workloadLabels(name, `llminferenceservice-workload-worker${suffix}`, w.labels);
    const leaderLabels = workloadLabels(name, `llminferenceservice-workload-leader${suffix}`, { ...w.labels, 'kserve.io/component': 'workload', 'llm-d.ai/role': role === 'decode' && !spec.prefill ? 'both' : role });
    const ann = mergeMaps(w.annotations, sim(isvc));
    return {
      apiVersion: 'leaderworkerset.x-k8s.io/v1',
      kind: 'LeaderWorkerSet',
      metadata: { name: n, namespace: ns, labels: workerLabels, ownerReferences: owner },
      spec: {
        replicas: replicasOf(w),
        startupPolicy: 'LeaderCreated',
        leaderWorkerTemplate: {
          size,
          restartPolicy: 'RecreateGroupOnPodRestart',
          // The well-known presets always give the leader a pod spec.
          leaderTemplate: { metadata: { labels: leaderLabels, ...(ann ? { annotations: ann } : {}) }, spec: servingPodSpec(isvc, w.template, { role, sidecar: role === 'decode' && !!spec.prefill, sa: n }) },
          workerTemplate: { metadata: { labels: workerLabels, ...(ann ? { annotations: ann } : {}) }, spec: servingPodSpec(isvc, w.worker, { role: 'worker', sidecar: false, sa: n }) },
        },
      },
    };
  };
  const want = (cond: boolean, apiVersion: string, kind: string, n: string, make: () => KubeObject, into: KubeObject[]): void => {
    if (cond && !stopped) into.push(make());
    else plan.absent.push({ apiVersion, kind, name: n });
  };
  const multi = !!spec.worker;
  const hasPrefill = !!spec.prefill;
  const prefillMulti = !!spec.prefill?.worker;
  const ann = mergeMaps(spec.annotations, sim(isvc));
  want(!multi, 'apps/v1', 'Deployment', `${name}-kserve`, () => {
    const labels = workloadLabels(name, 'llminferenceservice-workload', { 'kserve.io/component': 'workload', 'llm-d.ai/role': hasPrefill ? 'decode' : 'both' });
    return deployment(`${name}-kserve`, labels, spec.replicas ?? spec.scaling?.minReplicas, servingPodSpec(isvc, spec.template, { role: hasPrefill ? 'decode' : 'both', sidecar: hasPrefill, sa: hasPrefill ? `${name}-kserve` : 'default' }), {}, ann, spec.labels);
  }, plan.deployments);
  want(hasPrefill && !prefillMulti, 'apps/v1', 'Deployment', `${name}-kserve-prefill`, () => {
    const p = spec.prefill!;
    const labels = workloadLabels(name, 'llminferenceservice-workload-prefill', { 'kserve.io/component': 'workload', 'llm-d.ai/role': 'prefill' });
    return deployment(`${name}-kserve-prefill`, labels, p.replicas ?? p.scaling?.minReplicas, servingPodSpec(isvc, p.template, { role: 'prefill', sidecar: false, sa: 'default' }), {}, mergeMaps(p.annotations, sim(isvc)), p.labels);
  }, plan.deployments);
  want(multi, 'leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', `${name}-kserve-mn`, () => lws(`${name}-kserve-mn`, spec, 'decode', ''), plan.leaderWorkerSets);
  want(prefillMulti, 'leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', `${name}-kserve-mn-prefill`, () => lws(`${name}-kserve-mn-prefill`, spec.prefill!, 'prefill', '-prefill'), plan.leaderWorkerSets);
  const sched = spec.router?.scheduler;
  const managed = !!sched && !sched.pool?.ref?.name;
  const schedLabels = workloadLabels(name, 'llminferenceservice-router-scheduler');
  want(managed, 'apps/v1', 'Deployment', `${name}-kserve-router-scheduler`, () => deployment(`${name}-kserve-router-scheduler`, schedLabels, sched!.replicas, eppPodSpec(name, ns, sched!.template), { strategy: { type: 'Recreate' } }), plan.deployments);
  want(managed, 'v1', 'Service', `${name}-epp-service`, () => service({ name: `${name}-epp-service`, namespace: ns, owner: isvc, labels: schedLabels, selector: schedLabels, ports: [{ name: 'grpc-ext-proc', port: 9002, targetPort: 9002, appProtocol: 'http2' }] }), plan.services);
  want(true, 'v1', 'Service', `${name}-kserve-workload-svc`, () => service({
    name: `${name}-kserve-workload-svc`, namespace: ns, owner: isvc, labels: workloadLabels(name, 'llminferenceservice-workload'),
    selector: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'llminferenceservice', 'kserve.io/component': 'workload' }, ports: [{ name: 'https', port: 8000, targetPort: 8000 }],
  }), plan.services);
  for (const s of plan.services) s.metadata.ownerReferences = owner;
  return plan;
}

/** A sub-condition from a Deployment's conditions, as propagateWorkloadDeploymentStatus reads them. */
export function deploymentCondition(type: string, d: KubeObject | undefined): Condition {
  const available = d && getCondition(d, 'Available');
  if (!available) return { type, status: 'False', reason: 'Progressing' };
  return available.status === 'True' ? { type, status: 'True' } : { type, status: 'False', reason: available.reason, message: available.message };
}

/** A sub-condition from a LeaderWorkerSet's Available condition (propagateLeaderWorkerSetStatus). */
export function lwsCondition(type: string, l: KubeObject | undefined): Condition {
  const available = l && getCondition(l, 'Available');
  if (!available) return { type, status: 'False', reason: 'Progressing', message: 'LWS is progressing' };
  return available.status === 'True' ? { type, status: 'True' } : { type, status: 'False', reason: available.reason, message: available.message };
}

/**
 * The status conditions: sub-conditions present only where their workload is, WorkloadsReady / RouterReady
 * rolled up from them, Ready from PresetsCombined, WorkloadsReady and RouterReady in that order.
 */
export function llmisvcConditions(isvc: KubeObject, children: Map<string, KubeObject>, prev: Condition[] | undefined, now: string): Condition[] {
  const spec = isvc.spec as LLMInferenceServiceSpec;
  const name = isvc.metadata.name!;
  const stopped = isStopped(isvc);
  const stop = (type: string): Condition => ({ type, status: 'False', reason: 'Stopped', message: 'Service is stopped' });
  const subs: Condition[] = [];
  const drop = new Set<string>();
  const put = (on: boolean, type: string, make: () => Condition): void => {
    if (!on) drop.add(type);
    else subs.push(stopped ? stop(type) : make());
  };
  const multi = !!spec.worker;
  const managed = !!spec.router?.scheduler && !spec.router.scheduler.pool?.ref?.name;
  put(!multi, 'MainWorkloadReady', () => deploymentCondition('MainWorkloadReady', children.get(`Deployment/${name}-kserve`)));
  put(multi, 'WorkerWorkloadReady', () => lwsCondition('WorkerWorkloadReady', children.get(`LeaderWorkerSet/${name}-kserve-mn`)));
  put(!!spec.prefill && !spec.prefill.worker, 'PrefillWorkloadReady', () => deploymentCondition('PrefillWorkloadReady', children.get(`Deployment/${name}-kserve-prefill`)));
  put(!!spec.prefill?.worker, 'PrefillWorkerWorkloadReady', () => lwsCondition('PrefillWorkerWorkloadReady', children.get(`LeaderWorkerSet/${name}-kserve-mn-prefill`)));
  put(managed, 'SchedulerWorkloadReady', () => deploymentCondition('SchedulerWorkloadReady', children.get(`Deployment/${name}-kserve-router-scheduler`)));
  // No gateway, route or pool objects are simulated: their conditions read True unless stopped.
  const routed = !!spec.router;
  put(routed, 'GatewaysReady', () => ({ type: 'GatewaysReady', status: 'True' }));
  put(routed, 'HTTPRoutesReady', () => ({ type: 'HTTPRoutesReady', status: 'True' }));
  put(managed, 'InferencePoolReady', () => ({ type: 'InferencePoolReady', status: 'True' }));
  const firstFalse = (types: string[]): Condition | undefined => subs.find((c) => types.includes(c.type) && c.status === 'False');
  const rollup = (type: string, types: string[]): Condition => {
    const f = firstFalse(types);
    return f ? { type, status: 'False', reason: f.reason, message: f.message } : { type, status: 'True' };
  };
  const workloads = rollup('WorkloadsReady', ['MainWorkloadReady', 'WorkerWorkloadReady', 'PrefillWorkloadReady', 'PrefillWorkerWorkloadReady']);
  const router = rollup('RouterReady', ['GatewaysReady', 'HTTPRoutesReady', 'InferencePoolReady', 'SchedulerWorkloadReady']);
  const presets: Condition = { type: 'PresetsCombined', status: 'True' };
  const notTrue = [presets, workloads, router].find((c) => c.status !== 'True');
  const ready: Condition = notTrue ? { type: 'Ready', status: notTrue.status, reason: notTrue.reason, message: notTrue.message } : { type: 'Ready', status: 'True' };
  let out = (prev ?? []).filter((c) => !drop.has(c.type));
  for (const c of [...subs, presets, workloads, router, ready]) out = setCondition(out, c, now);
  return out.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

function readyReplicas(o: KubeObject | undefined): number | undefined {
  const n = (o?.status as { readyReplicas?: number } | undefined)?.readyReplicas;
  return n ? n : undefined;
}

export class LLMInferenceServiceController implements Controller {
  readonly name = 'llminferenceservice';
  readonly primary = 'serving.kserve.io/LLMInferenceService';
  readonly priority = 2;
  readonly owns = ['apps/Deployment', 'leaderworkerset.x-k8s.io/LeaderWorkerSet'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const isvc = rt.get(LLMISVC_API, 'LLMInferenceService', ns, name);
    if (!isvc || isvc.metadata.deletionTimestamp) return;
    const plan = planLLMInferenceService(isvc);
    const children = new Map<string, KubeObject>();
    for (const o of [...plan.deployments, ...plan.leaderWorkerSets]) children.set(`${o.kind}/${o.metadata.name}`, rt.apply(o));
    for (const s of plan.services) rt.applyService(s);
    for (const a of plan.absent) {
      const cur = rt.get(a.apiVersion, a.kind, ns, a.name);
      if (cur && cur.metadata.ownerReferences?.some((r) => r.uid === isvc.metadata.uid)) rt.delete(cur);
    }
    const spec = isvc.spec as LLMInferenceServiceSpec;
    const prev = (isvc.status ?? {}) as { conditions?: Condition[] };
    const conditions = llmisvcConditions(isvc, children, prev.conditions, rt.now());
    const url = `${GATEWAY_URL}/${ns}/${name}`;
    const stopped = isStopped(isvc);
    const ref = (kind: string, n: string): Record<string, unknown> => {
      const o = children.get(`${kind}/${n}`);
      return { apiGroup: kind === 'Deployment' ? 'apps' : 'leaderworkerset.x-k8s.io', kind, name: n, ...(readyReplicas(o) ? { readyReplicas: readyReplicas(o) } : {}) };
    };
    const primary = spec.worker ? ref('LeaderWorkerSet', `${name}-kserve-mn`) : ref('Deployment', `${name}-kserve`);
    const prefill = spec.prefill ? (spec.prefill.worker ? ref('LeaderWorkerSet', `${name}-kserve-mn-prefill`) : ref('Deployment', `${name}-kserve-prefill`)) : undefined;
    const sched = children.has(`Deployment/${name}-kserve-router-scheduler`) ? ref('Deployment', `${name}-kserve-router-scheduler`) : undefined;
    rt.setStatus(isvc, {
      ...(stopped || !spec.router ? {} : { url, addresses: [{ name: 'gateway-internal', url }] }),
      conditions,
      observedGeneration: isvc.metadata.generation ?? 1,
      ...(stopped ? {} : { workloads: { primary, ...(prefill ? { prefill } : {}), service: { kind: 'Service', name: `${name}-kserve-workload-svc` }, ...(sched ? { scheduler: sched } : {}) } }),
    });
  }
}
