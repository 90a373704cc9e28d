/**
 * KubeRay RayCluster operator (ray.io/v1): head pod `<rc>-head-<rand5>`, worker pods
 * `<rc>-<group>-worker-<rand5>` (numOfHosts per replica), head Service `<rc>-head-svc` (headless), the
 * `ray.io/*` pod labels, the `wait-gcs-ready` init container on workers; status state ready/suspended,
 * desired/available/ready worker counts, desired CPU/memory/GPU, endpoints, head info and the
 * HeadPodReady / RayClusterProvisioned / RayClusterSuspending / RayClusterSuspended conditions.
 */

import { bounded } from './limits.ts';
import { byCreation, ctrlRef, isPodActive, isPodReady, isPodRunning, mergeMaps, setCondition } from './meta.ts';
import { buildPod } from './pods.ts';
import { formatBytes, formatCpu, podRequests } from './quantity.ts';
import { deepEqual } from './runtime.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, Container, KubeObject, Pod, PodTemplateSpec, StringMap } from './types.ts';

export interface WorkerGroupSpec {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  numOfHosts?: number;
  rayStartParams?: StringMap;
  template: PodTemplateSpec;
  scaleStrategy?: { workersToDelete?: string[] };
  suspend?: boolean;
}

export interface RayClusterSpec {
  rayVersion?: string;
  enableInTreeAutoscaling?: boolean;
  headGroupSpec: { rayStartParams?: StringMap; template: PodTemplateSpec; serviceType?: string; headService?: { metadata?: { name?: string } } };
  workerGroupSpecs?: WorkerGroupSpec[];
  suspend?: boolean;
}

export interface RayClusterStatus {
  state?: string;
  reason?: string;
  desiredWorkerReplicas?: number;
  availableWorkerReplicas?: number;
  readyWorkerReplicas?: number;
  minWorkerReplicas?: number;
  maxWorkerReplicas?: number;
  desiredCPU?: string;
  desiredMemory?: string;
  desiredGPU?: string;
  desiredTPU?: string;
  endpoints?: StringMap;
  head?: { podIP?: string; podName?: string; serviceIP?: string; serviceName?: string };
  lastUpdateTime?: string;
  stateTransitionTimes?: StringMap;
  observedGeneration?: number;
  conditions?: Condition[];
}

export const RAY = 'ray.io';
const DEFAULT_PORTS: Record<string, number> = { 'gcs-server': 6379, dashboard: 8265, client: 10001, metrics: 8080 };

export function headServiceName(rc: KubeObject): string {
  return (rc.spec as RayClusterSpec).headGroupSpec.headService?.metadata?.name ?? `${rc.metadata.name}-head-svc`;
}

function rayPodLabels(rc: KubeObject, type: 'head' | 'worker', group: string): StringMap {
  const name = rc.metadata.name!;
  const l = rc.metadata.labels ?? {};
  return {
    [`${RAY}/is-ray-node`]: 'yes',
    [`${RAY}/cluster`]: name,
    [`${RAY}/node-type`]: type,
    [`${RAY}/group`]: group,
    [`${RAY}/identifier`]: `${name}-${type}`,
    'app.kubernetes.io/name': 'kuberay',
    'app.kubernetes.io/created-by': 'kuberay-operator',
    ...(l[`${RAY}/originated-from-cr-name`] ? { [`${RAY}/originated-from-cr-name`]: l[`${RAY}/originated-from-cr-name`] } : {}),
    ...(l[`${RAY}/originated-from-crd`] ? { [`${RAY}/originated-from-crd`]: l[`${RAY}/originated-from-crd`] } : {}),
  };
}

function startCommand(type: 'head' | 'worker', params: StringMap | undefined, address: string): string {
  const args = Object.entries(params ?? {}).map(([k, v]) => `--${k}=${v}`);
  return type === 'head'
    ? ['ray start --head', '--dashboard-host=0.0.0.0', '--metrics-export-port=8080', '--block', ...args].join(' ')
    : ['ray start', `--address=${address}`, '--metrics-export-port=8080', '--block', ...args].join(' ');
}

export function rayPod(rc: KubeObject, type: 'head' | 'worker', group?: WorkerGroupSpec, replica?: { name: string; index: number; host: number }): Pod {
  const spec = rc.spec as RayClusterSpec;
  const name = rc.metadata.name!;
  const ns = rc.metadata.namespace!;
  const tmpl = type === 'head' ? spec.headGroupSpec.template : group!.template;
  const groupName = type === 'head' ? 'headgroup' : group!.groupName;
  const svc = `${headServiceName(rc)}.${ns}.svc.cluster.local`;
  const params = type === 'head' ? spec.headGroupSpec.rayStartParams : group!.rayStartParams;
  const env = [
    { name: 'RAY_CLUSTER_NAME', value: name },
    { name: 'RAY_CLOUD_INSTANCE_ID', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'RAY_NODE_TYPE_NAME', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${RAY}/group']` } } },
    { name: 'KUBERAY_GEN_RAY_START_CMD', value: startCommand(type, params, `${svc}:6379`) },
    ...(type === 'worker' ? [{ name: 'RAY_ADDRESS', value: `${svc}:6379` }, { name: 'FQ_RAY_IP', value: svc }] : [{ name: 'RAY_ADDRESS', value: '127.0.0.1:6379' }]),
    { name: 'RAY_USAGE_STATS_KUBERAY_IN_USE', value: '1' },
  ];
  const containers = tmpl.spec.containers.map((c: Container, i) => {
    if (i !== 0) return c;
    const own = new Set((c.env ?? []).map((e) => e.name));
    return { ...c, env: [...(c.env ?? []), ...env.filter((e) => !own.has(e.name))] };
  });
  const initContainers = [...(tmpl.spec.initContainers ?? [])];
  if (type === 'worker') {
    initContainers.push({
      name: 'wait-gcs-ready',
      image: tmpl.spec.containers[0]?.image,
      command: ['/bin/bash', '-lc', '--'],
      args: [`SECONDS=0; while true; do if (( SECONDS <= 120 )); then if ray health-check --address ${svc}:6379 > /dev/null 2>&1; then echo "GCS is ready."; break; fi; echo "$SECONDS seconds elapsed: Waiting for GCS to be ready."; else if ray health-check --address ${svc}:6379; then echo "GCS is ready. Any error messages above can be safely ignored."; break; fi; echo "$SECONDS seconds elapsed: Still waiting for GCS to be ready. For troubleshooting, refer to the FAQ at https://docs.ray.io/en/master/cluster/kubernetes/troubleshooting/troubleshooting.html."; fi; sleep 5; done`],
      resources: { limits: { cpu: '200m', memory: '256Mi' }, requests: { cpu: '200m', memory: '256Mi' } },
    });
  }
  const multi = replica && (group?.numOfHosts ?? 1) > 1
    ? { [`${RAY}/worker-group-replica-name`]: replica.name, [`${RAY}/worker-group-replica-index`]: String(replica.index), [`${RAY}/replica-host-index`]: String(replica.host) }
    : undefined;
  return buildPod({
    namespace: ns,
    generateName: type === 'head' ? `${name}-head-` : `${name}-${groupName}-worker-`,
    template: { ...tmpl, spec: { ...tmpl.spec, containers, ...(initContainers.length ? { initContainers } : {}) } },
    labels: mergeMaps(rayPodLabels(rc, type, groupName), multi),
    annotations: { [`${RAY}/ft-enabled`]: 'false' },
    ownerRef: ctrlRef(rc),
  });
}

export interface RayClusterPlan {
  create: Pod[];
  remove: Pod[];
  service?: KubeObject;
  status: RayClusterStatus;
}

function sumResources(pods: Pod[]): { cpu: number; memory: number; gpu: number } {
  let cpu = 0;
  let memory = 0;
  let gpu = 0;
  for (const p of pods) {
    const r = podRequests(p.spec);
    cpu += r.cpu ?? 0;
    memory += r.memory ?? 0;
    for (const k in r) if (k.endsWith('/gpu')) gpu += r[k];
  }
  return { cpu, memory, gpu };
}

function desiredResources(rc: KubeObject): { cpu: number; memory: number; gpu: number } {
  const spec = rc.spec as RayClusterSpec;
  const pods: Pod[] = [{ apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: spec.headGroupSpec.template.spec }];
  for (const g of spec.workerGroupSpecs ?? []) {
    const n = bounded((g.suspend ? 0 : g.replicas ?? 0) * (g.numOfHosts ?? 1));
    for (let i = 0; i < n; i++) pods.push({ apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: g.template.spec });
  }
  return sumResources(pods);
}

/** Pure reconcile of a RayCluster against its pods (`replicaName` names a multi-host replica). */
export function planRayCluster(rc: KubeObject, pods: Pod[], nowIso: string, replicaName: (group: string) => string): RayClusterPlan {
  const spec = rc.spec as RayClusterSpec;
  const name = rc.metadata.name!;
  const prev = (rc.status ?? {}) as RayClusterStatus;
  const plan: RayClusterPlan = { create: [], remove: [], status: {} };
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  const heads = live.filter((p) => p.metadata.labels?.[`${RAY}/node-type`] === 'head');
  const workers = live.filter((p) => p.metadata.labels?.[`${RAY}/node-type`] === 'worker');
  let conds = prev.conditions ? [...prev.conditions] : [];
  const groups = spec.workerGroupSpecs ?? [];
  let desiredWorkers = 0;
  let minWorkers = 0;
  let maxWorkers = 0;
  for (const g of groups) {
    const hosts = g.numOfHosts ?? 1;
    desiredWorkers += (g.suspend ? 0 : g.replicas ?? 0) * hosts;
    minWorkers += (g.minReplicas ?? 0) * hosts;
    maxWorkers += Math.min(g.maxReplicas ?? 2147483647, 2147483647) * hosts;
  }
  maxWorkers = Math.min(maxWorkers, 2147483647);
  const status: RayClusterStatus = {};

  if (spec.suspend) {
    plan.remove = live;
    if (live.length > 0) {
      conds = setCondition(conds, { type: 'RayClusterSuspending', status: 'True', reason: 'RayClusterSuspending', message: '' }, nowIso);
    } else {
      conds = setCondition(conds, { type: 'RayClusterSuspending', status: 'False', reason: 'RayClusterSuspending', message: '' }, nowIso);
      conds = setCondition(conds, { type: 'RayClusterSuspended', status: 'True', reason: 'RayClusterSuspended', message: '' }, nowIso);
      status.state = 'suspended';
    }
  } else {
    if (conds.some((c) => c.type === 'RayClusterSuspended' && c.status === 'True')) {
      conds = setCondition(conds, { type: 'RayClusterSuspended', status: 'False', reason: 'RayClusterSuspended', message: '' }, nowIso);
    }
    // Failed/Succeeded pods are replaced (the head restarts the cluster's GCS).
    for (const p of live) if (!isPodActive(p)) plan.remove.push(p);
    const activeHeads = heads.filter(isPodActive).sort(byCreation);
    if (activeHeads.length === 0) plan.create.push(rayPod(rc, 'head'));
    for (const extra of activeHeads.slice(1)) plan.remove.push(extra);
    for (const g of groups) {
      const hosts = g.numOfHosts ?? 1;
      const want = bounded((g.suspend ? 0 : g.replicas ?? 0) * hosts);
      const toDelete = new Set(g.scaleStrategy?.workersToDelete ?? []);
      const mine = workers.filter((p) => p.metadata.labels?.[`${RAY}/group`] === g.groupName && isPodActive(p));
      const keep = mine.filter((p) => !toDelete.has(p.metadata.name!));
      plan.remove.push(...mine.filter((p) => toDelete.has(p.metadata.name!)));
      if (keep.length < want) {
        for (let i = keep.length; i < want; i += hosts) {
          const rname = replicaName(g.groupName);
          for (let h = 0; h < hosts && i + h < want; h++) plan.create.push(rayPod(rc, 'worker', g, { name: rname, index: Math.floor(i / hosts), host: h }));
        }
      } else if (keep.length > want) {
        plan.remove.push(...[...keep].sort(byCreation).reverse().slice(0, keep.length - want));
      }
    }
  }
  const head = heads.filter(isPodActive)[0];
  const activeWorkers = workers.filter(isPodActive);
  const allRunning = !!head && isPodReady(head) && activeWorkers.length === desiredWorkers && activeWorkers.every((p) => isPodRunning(p) && isPodReady(p));
  const headReady = !!head && isPodReady(head);
  if (!spec.suspend) {
    conds = setCondition(
      conds,
      headReady
        ? { type: 'HeadPodReady', status: 'True', reason: 'HeadPodRunningAndReady', message: '' }
        : { type: 'HeadPodReady', status: 'False', reason: head ? 'HeadPodNotReady' : 'HeadPodNotFound', message: head ? 'Head Pod is not ready' : 'Head Pod not found' },
      nowIso,
    );
    const provisioned = conds.find((c) => c.type === 'RayClusterProvisioned');
    if (allRunning) {
      conds = setCondition(conds, { type: 'RayClusterProvisioned', status: 'True', reason: 'AllPodRunningAndReadyFirstTime', message: 'All Ray Pods are ready for the first time' }, nowIso);
    } else if (provisioned?.status !== 'True') {
      conds = setCondition(conds, { type: 'RayClusterProvisioned', status: 'False', reason: 'RayClusterPodsProvisioning', message: 'RayCluster Pods are being provisioned for first time' }, nowIso);
    }
  }
  const wanted = desiredResources(rc);
  let state = status.state ?? (prev.state === 'suspended' ? undefined : prev.state);
  if (!spec.suspend && allRunning) state = 'ready';
  if (state) status.state = state;
  status.desiredWorkerReplicas = desiredWorkers;
  status.availableWorkerReplicas = activeWorkers.filter(isPodRunning).length;
  status.readyWorkerReplicas = activeWorkers.filter(isPodReady).length;
  status.minWorkerReplicas = minWorkers;
  status.maxWorkerReplicas = maxWorkers;
  status.desiredCPU = formatCpu(wanted.cpu);
  status.desiredMemory = formatBytes(wanted.memory);
  status.desiredGPU = String(wanted.gpu);
  status.desiredTPU = '0';
  const ports: StringMap = {};
  for (const p of spec.headGroupSpec.template.spec.containers[0]?.ports ?? []) if (p.name) ports[p.name] = String(p.containerPort);
  for (const k in DEFAULT_PORTS) ports[k] ??= String(DEFAULT_PORTS[k]);
  status.endpoints = ports;
  if (head) {
    status.head = { podName: head.metadata.name, ...(head.status?.podIP ? { podIP: head.status.podIP, serviceIP: head.status.podIP } : {}), serviceName: headServiceName(rc) };
  }
  status.conditions = conds;
  status.observedGeneration = rc.metadata.generation ?? 1;
  if (state === 'ready' && prev.state !== 'ready') status.stateTransitionTimes = { ...(prev.stateTransitionTimes ?? {}), ready: nowIso };
  else if (state === 'suspended' && prev.state !== 'suspended') status.stateTransitionTimes = { ...(prev.stateTransitionTimes ?? {}), suspended: nowIso };
  else if (prev.stateTransitionTimes) status.stateTransitionTimes = prev.stateTransitionTimes;
  // lastUpdateTime moves only when something else moved.
  const { lastUpdateTime: _l, ...rest } = prev;
  status.lastUpdateTime = deepEqual(rest, status) && prev.lastUpdateTime ? prev.lastUpdateTime : nowIso;

  const headPorts = Object.entries(ports).map(([n, port]) => ({ name: n, port: Number(port), appProtocol: n === 'dashboard' || n === 'metrics' ? 'tcp' : undefined })).map((p) => (p.appProtocol ? p : { name: p.name, port: p.port }));
  plan.service = service({
    name: headServiceName(rc),
    namespace: rc.metadata.namespace!,
    owner: rc,
    headless: true,
    publishNotReadyAddresses: true,
    selector: { [`${RAY}/cluster`]: name, [`${RAY}/node-type`]: 'head' },
    labels: { [`${RAY}/cluster`]: name, [`${RAY}/node-type`]: 'head', [`${RAY}/identifier`]: `${name}-head`, 'app.kubernetes.io/name': 'kuberay', 'app.kubernetes.io/created-by': 'kuberay-operator' },
    ports: headPorts,
  });
  plan.status = status;
  return plan;
}

export class RayClusterController implements Controller {
  readonly name = 'raycluster';
  readonly primary = 'ray.io/RayCluster';
  readonly priority = 2;
  readonly owns = ['/Pod'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const rc = rt.get('ray.io/v1', 'RayCluster', ns, name);
    if (!rc || rc.metadata.deletionTimestamp) return;
    const pods = rt.children<Pod>(rc, '/Pod');
    const plan = planRayCluster(rc, pods, rt.now(), (g) => `${name}-${g}-${rt.rng.suffix(5)}`);
    for (const p of plan.remove) rt.delete(p);
    for (const p of plan.create) rt.createPod(p);
    if (plan.service && !(rc.spec as RayClusterSpec).suspend) rt.ensure(plan.service);
    rt.setStatus(rc, plan.status);
  }
}
