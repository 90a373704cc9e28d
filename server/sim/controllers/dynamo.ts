/**
 * NVIDIA Dynamo operator (nvidia.com DynamoGraphDeployment, v1alpha1 `spec.services{}` and v1beta1
 * `spec.components[]`). Two pathways, recorded in the `nvidia.com/workload-provider` annotation:
 * - grove (operator with Grove, unless `nvidia.com/enable-grove: "false"`): a PodCliqueSet `<dgd>` with a
 *   standalone clique per single-node service and a scaling group `<svc>` with cliques `<svc>-ldr` /
 *   `<svc>-wkr` per multinode service (the Grove controllers do the rest);
 * - component: a DynamoComponentDeployment `<dgd>-<svc>` per service → Deployment, or LeaderWorkerSet for
 *   multinode services (pod label `role=leader|worker`).
 * Pods carry the `nvidia.com/dynamo-*` labels and a `main` container. Status: state initializing →
 * pending → successful (or failed), the Ready condition, per-service counts.
 */

import { ctrlRef, isPodActive, mergeMaps, setCondition } from './meta.ts';
import type { PodCliqueSetSpec } from './grove.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, Container, KubeObject, Pod, PodSpec, PodTemplateSpec, ResourceRequirements, StringMap } from './types.ts';

export const DYN = 'nvidia.com';

interface V1alpha1Service {
  componentType?: string;
  subComponentType?: string;
  replicas?: number;
  multinode?: { nodeCount?: number };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  envs?: Array<{ name: string; value?: string }>;
  extraPodSpec?: Partial<PodSpec> & { mainContainer?: Partial<Container> };
  extraPodMetadata?: { labels?: StringMap; annotations?: StringMap };
  labels?: StringMap;
  annotations?: StringMap;
  scalingAdapter?: { enabled?: boolean };
}

interface V1beta1Component {
  name: string;
  type?: string;
  subType?: string;
  replicas?: number;
  multinode?: { nodeCount?: number };
  podTemplate?: PodTemplateSpec;
}

/** One service of a graph, independent of the API version it came from. */
export interface DynamoService {
  name: string;
  type: string;
  subType?: string;
  replicas: number;
  nodeCount: number;
  podSpec: PodSpec;
  podLabels?: StringMap;
  podAnnotations?: StringMap;
  scalingAdapter: boolean;
}

function resources(r: V1alpha1Service['resources']): ResourceRequirements {
  const conv = (m: Record<string, string> | undefined): Record<string, string> | undefined => {
    if (!m) return undefined;
    const out: Record<string, string> = {};
    for (const k in m) out[k === 'gpu' ? 'nvidia.com/gpu' : k] = m[k];
    return out;
  };
  const limits = conv(r?.limits);
  const requests = conv(r?.requests);
  return { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) };
}

/** Normalises v1alpha1 services and v1beta1 components. */
export function dynamoServices(dgd: KubeObject): DynamoService[] {
  const spec = (dgd.spec ?? {}) as { services?: Record<string, V1alpha1Service>; components?: V1beta1Component[] };
  const ns = dgd.metadata.namespace!;
  const name = dgd.metadata.name!;
  const envBase = [
    { name: 'DYN_NAMESPACE', value: `${ns}-${name}` },
    { name: 'DYN_PARENT_DGD_K8S_NAME', value: name },
    { name: 'DYN_PARENT_DGD_K8S_NAMESPACE', value: ns },
  ];
  if (spec.components) {
    return spec.components.map((c) => {
      const t = c.podTemplate ?? { spec: { containers: [{ name: 'main' }] } };
      return {
        name: c.name,
        type: c.type ?? 'worker',
        subType: c.subType,
        replicas: c.replicas ?? 1,
        nodeCount: c.multinode?.nodeCount ?? 1,
        podSpec: { ...t.spec, containers: t.spec.containers.map((x) => (x.name === 'main' ? { ...x, env: [...envBase, ...(x.env ?? [])] } : x)) },
        podLabels: t.metadata?.labels,
        podAnnotations: t.metadata?.annotations,
        scalingAdapter: false,
      };
    });
  }
  return Object.entries(spec.services ?? {}).map(([svc, s]) => {
    const type = s.componentType ?? 'worker';
    const { mainContainer, ...extra } = s.extraPodSpec ?? {};
    const frontend = type === 'frontend';
    const main: Container = {
      name: 'main',
      image: mainContainer?.image ?? 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0',
      ...(mainContainer?.command ? { command: mainContainer.command } : frontend ? { command: ['python3', '-m', 'dynamo.frontend'] } : {}),
      ...(mainContainer?.args ? { args: mainContainer.args } : {}),
      ...(mainContainer?.workingDir ? { workingDir: mainContainer.workingDir } : {}),
      env: [...envBase, { name: 'DYN_SYSTEM_PORT', value: '9090' }, ...((s.envs ?? []) as Container['env'] & object)],
      ports: frontend ? [{ name: 'http', containerPort: 8000, protocol: 'TCP' }] : [{ name: 'system', containerPort: 9090, protocol: 'TCP' }],
      resources: resources(s.resources),
      readinessProbe: frontend ? { httpGet: { path: '/health', port: 'http' } } : { httpGet: { path: '/health', port: 'system' } },
    };
    return {
      name: svc,
      type,
      subType: s.subComponentType,
      replicas: s.replicas ?? 1,
      nodeCount: s.multinode?.nodeCount ?? 1,
      podSpec: { ...(extra as Partial<PodSpec>), containers: [main, ...((extra.containers as Container[] | undefined) ?? [])] },
      podLabels: mergeMaps(s.labels, s.extraPodMetadata?.labels),
      podAnnotations: mergeMaps(s.annotations, s.extraPodMetadata?.annotations),
      scalingAdapter: !!s.scalingAdapter?.enabled,
    };
  });
}

export function dynamoLabels(dgd: KubeObject, s: DynamoService, selector: string): StringMap {
  return {
    [`${DYN}/dynamo-graph-deployment-name`]: dgd.metadata.name!,
    [`${DYN}/dynamo-component`]: s.name,
    [`${DYN}/dynamo-component-type`]: s.type,
    ...(s.subType ? { [`${DYN}/dynamo-sub-component-type`]: s.subType } : {}),
    [`${DYN}/dynamo-namespace`]: `${dgd.metadata.namespace}-${dgd.metadata.name}`,
    [`${DYN}/metrics-enabled`]: 'true',
    [`${DYN}/selector`]: selector,
    [`${DYN}/dynamo-discovery-backend`]: 'kubernetes',
  };
}

function gpuPerPod(s: DynamoService): number {
  let n = 0;
  for (const c of s.podSpec.containers) n += Number(c.resources?.limits?.['nvidia.com/gpu'] ?? 0) || 0;
  return n;
}

export function usesGrove(dgd: KubeObject, groveEnabled: boolean): boolean {
  const a = dgd.metadata.annotations?.[`${DYN}/enable-grove`];
  return a === undefined ? groveEnabled : a === 'true';
}

/** The PodCliqueSet of the Grove pathway. */
export function dgdPodCliqueSet(dgd: KubeObject, services: DynamoService[]): KubeObject {
  const name = dgd.metadata.name!;
  const cliques: PodCliqueSetSpec['template']['cliques'] = [];
  const groups: NonNullable<PodCliqueSetSpec['template']['podCliqueScalingGroups']> = [];
  for (const s of services) {
    const lower = s.name.toLowerCase();
    const labels = mergeMaps(s.podLabels, dynamoLabels(dgd, s, `${name}-${lower}`));
    if (s.nodeCount > 1) {
      cliques.push({ name: `${lower}-ldr`, labels: mergeMaps(labels, { role: 'leader' }), ...(s.podAnnotations ? { annotations: s.podAnnotations } : {}), spec: { roleName: `${lower}-ldr`, replicas: 1, minAvailable: 1, podSpec: s.podSpec } });
      cliques.push({ name: `${lower}-wkr`, labels: mergeMaps(labels, { role: 'worker' }), ...(s.podAnnotations ? { annotations: s.podAnnotations } : {}), spec: { roleName: `${lower}-wkr`, replicas: s.nodeCount - 1, minAvailable: s.nodeCount - 1, podSpec: s.podSpec } });
      groups.push({ name: lower, cliqueNames: [`${lower}-ldr`, `${lower}-wkr`], replicas: s.replicas, minAvailable: 1 });
    } else {
      cliques.push({ name: lower, labels, ...(s.podAnnotations ? { annotations: s.podAnnotations } : {}), spec: { roleName: lower, replicas: s.replicas, minAvailable: Math.min(1, s.replicas), podSpec: s.podSpec } });
    }
  }
  return {
    apiVersion: 'grove.io/v1alpha1',
    kind: 'PodCliqueSet',
    metadata: { name, namespace: dgd.metadata.namespace, labels: { [`${DYN}/dynamo-graph-deployment-name`]: name }, ownerReferences: [ctrlRef(dgd)] },
    spec: { replicas: 1, template: { cliques, ...(groups.length ? { podCliqueScalingGroups: groups } : {}), cliqueStartupType: 'CliqueStartupTypeAnyOrder', headlessServiceConfig: { publishNotReadyAddresses: true } } },
  };
}

/** A DynamoComponentDeployment of the component pathway. */
export function dgdComponent(dgd: KubeObject, s: DynamoService): KubeObject {
  const name = `${dgd.metadata.name}-${s.name.toLowerCase()}`;
  const main = s.podSpec.containers.find((c) => c.name === 'main');
  return {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoComponentDeployment',
    metadata: { name, namespace: dgd.metadata.namespace, labels: dynamoLabels(dgd, s, name), ownerReferences: [ctrlRef(dgd)] },
    spec: {
      backendFramework: (dgd.spec as { backendFramework?: string }).backendFramework ?? 'vllm',
      dynamoNamespace: `${dgd.metadata.namespace}-${dgd.metadata.name}`,
      serviceName: s.name,
      componentType: s.type,
      ...(s.subType ? { subComponentType: s.subType } : {}),
      replicas: s.replicas,
      ...(s.nodeCount > 1 ? { multinode: { nodeCount: s.nodeCount } } : {}),
      extraPodSpec: { ...s.podSpec, containers: s.podSpec.containers.filter((c) => c.name !== 'main'), mainContainer: main },
      ...(s.podLabels || s.podAnnotations ? { extraPodMetadata: { labels: s.podLabels, annotations: s.podAnnotations } } : {}),
    },
  };
}

interface ServiceState {
  componentKind: string;
  componentName: string;
  componentNames: string[];
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  scheduledReplicas?: number;
  gpusPerReplica: number;
}

export class DynamoGraphDeploymentController implements Controller {
  readonly name = 'dynamographdeployment';
  readonly primary = 'nvidia.com/DynamoGraphDeployment';
  readonly priority = 2;
  readonly owns = ['grove.io/PodCliqueSet', 'nvidia.com/DynamoComponentDeployment'];
  readonly watches = [
    {
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const n = obj.metadata.labels?.[`${DYN}/dynamo-graph-deployment-name`];
        return n ? [[obj.metadata.namespace ?? '', n]] : [];
      },
    },
    {
      gk: 'grove.io/PodClique',
      map: (obj: KubeObject): Array<[string, string]> => {
        const n = obj.metadata.labels?.[`${DYN}/dynamo-graph-deployment-name`];
        return n ? [[obj.metadata.namespace ?? '', n]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    let dgd = rt.get(`${DYN}/v1alpha1`, 'DynamoGraphDeployment', ns, name);
    if (!dgd || dgd.metadata.deletionTimestamp) return;
    const services = dynamoServices(dgd);
    const grove = usesGrove(dgd, rt.options.dynamoGrove);
    const provider = grove ? 'grove' : 'component';
    if (dgd.metadata.annotations?.[`${DYN}/workload-provider`] !== provider) {
      dgd = rt.update({ ...dgd, metadata: { ...dgd.metadata, annotations: { ...(dgd.metadata.annotations ?? {}), [`${DYN}/workload-provider`]: provider } } });
    }
    const now = rt.now();
    const states: Record<string, ServiceState> = {};
    const notReady: string[] = [];
    let unschedulable = false;
    let crashing = false;
    const pods = rt.list<Pod>('v1', 'Pod', { namespace: ns, labels: { [`${DYN}/dynamo-graph-deployment-name`]: name } }).filter(isPodActive);
    for (const p of pods) {
      if (p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable')) unschedulable = true;
      if (p.status?.containerStatuses?.some((c) => c.restartCount >= 3 && c.state.waiting?.reason === 'CrashLoopBackOff')) crashing = true;
    }
    if (grove) {
      rt.apply(dgdPodCliqueSet(dgd, services));
      for (const s of services) {
        const lower = s.name.toLowerCase();
        if (s.nodeCount > 1) {
          const sgName = `${name}-0-${lower}`;
          const sg = rt.get('grove.io/v1alpha1', 'PodCliqueScalingGroup', ns, sgName);
          const st = (sg?.status ?? {}) as { replicas?: number; availableReplicas?: number; updatedReplicas?: number; scheduledReplicas?: number };
          states[s.name] = { componentKind: 'PodCliqueScalingGroup', componentName: sgName, componentNames: [sgName], replicas: s.replicas, updatedReplicas: st.updatedReplicas ?? 0, readyReplicas: st.availableReplicas ?? 0, availableReplicas: st.availableReplicas ?? 0, scheduledReplicas: st.scheduledReplicas ?? 0, gpusPerReplica: gpuPerPod(s) * s.nodeCount };
        } else {
          const cName = `${name}-0-${lower}`;
          const pc = rt.get('grove.io/v1alpha1', 'PodClique', ns, cName);
          const st = (pc?.status ?? {}) as { replicas?: number; readyReplicas?: number; updatedReplicas?: number; scheduledReplicas?: number };
          states[s.name] = { componentKind: 'PodClique', componentName: cName, componentNames: [cName], replicas: s.replicas, updatedReplicas: st.updatedReplicas ?? 0, readyReplicas: st.readyReplicas ?? 0, availableReplicas: st.readyReplicas ?? 0, scheduledReplicas: st.scheduledReplicas ?? 0, gpusPerReplica: gpuPerPod(s) };
        }
      }
      for (const d of rt.children(dgd, `${DYN}/DynamoComponentDeployment`)) rt.delete(d);
    } else {
      const want = new Set<string>();
      for (const s of services) {
        const dcd = rt.apply(dgdComponent(dgd, s));
        want.add(dcd.metadata.name!);
        const st = (dcd.status ?? {}) as { replicas?: number; readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number; componentKind?: string };
        states[s.name] = { componentKind: s.nodeCount > 1 ? 'LeaderWorkerSet' : 'Deployment', componentName: dcd.metadata.name!, componentNames: [dcd.metadata.name!], replicas: s.replicas, updatedReplicas: st.updatedReplicas ?? 0, readyReplicas: st.readyReplicas ?? 0, availableReplicas: st.availableReplicas ?? 0, gpusPerReplica: gpuPerPod(s) * s.nodeCount };
      }
      for (const d of rt.children(dgd, `${DYN}/DynamoComponentDeployment`)) if (!want.has(d.metadata.name!)) rt.delete(d);
      const pcs = rt.children(dgd, 'grove.io/PodCliqueSet')[0];
      if (pcs) rt.delete(pcs);
    }
    for (const s of services) {
      if (s.type === 'frontend') {
        const lower = s.name.toLowerCase();
        rt.ensure(service({ name: `${name}-${lower}`, namespace: ns, owner: dgd, rng: rt.rng, labels: dynamoLabels(dgd, s, `${name}-${lower}`), selector: { [`${DYN}/selector`]: `${name}-${lower}` }, ports: [{ name: 'http', port: 8000, targetPort: 'http' }] }));
      }
      if (s.scalingAdapter) {
        rt.ensure({ apiVersion: `${DYN}/v1alpha1`, kind: 'DynamoGraphDeploymentScalingAdapter', metadata: { name: `${name}-${s.name.toLowerCase()}`, namespace: ns, labels: { [`${DYN}/dynamo-graph-deployment-name`]: name, [`${DYN}/dynamo-component`]: s.name }, ownerReferences: [ctrlRef(dgd)] }, spec: { replicas: s.replicas, dgdRef: { name, serviceName: s.name } } });
      }
      const st = states[s.name];
      if (st.readyReplicas < s.replicas) notReady.push(s.name);
    }
    const prev = (dgd.status ?? {}) as { state?: string; conditions?: Condition[] };
    let state: string;
    let ready: Condition;
    if (notReady.length === 0) {
      state = 'successful';
      ready = { type: 'Ready', status: 'True', reason: 'all_resources_are_ready', message: 'All resources are ready' };
    } else if (crashing) {
      state = 'failed';
      ready = { type: 'Ready', status: 'False', reason: 'pods_not_ready', message: `Resources not ready: ${notReady.join(', ')}: containers are crash looping` };
    } else {
      state = prev.state === undefined || prev.state === 'initializing' ? (pods.length === 0 ? 'initializing' : 'pending') : 'pending';
      ready = unschedulable
        ? { type: 'Ready', status: 'False', reason: 'insufficient_capacity', message: `Resources not ready: ${notReady.join(', ')}: pods cannot be scheduled` }
        : { type: 'Ready', status: 'False', reason: 'some_resources_are_not_ready', message: `Resources not ready: ${notReady.join(', ')}` };
    }
    const isBeta = dgd.apiVersion.endsWith('/v1beta1');
    rt.setStatus(dgd, {
      state,
      conditions: setCondition(prev.conditions, ready, now),
      [isBeta ? 'components' : 'services']: states,
      observedGeneration: dgd.metadata.generation ?? 1,
    });
  }
}

export class DynamoComponentDeploymentController implements Controller {
  readonly name = 'dynamocomponentdeployment';
  readonly primary = 'nvidia.com/DynamoComponentDeployment';
  readonly priority = 2;
  readonly owns = ['apps/Deployment', 'leaderworkerset.x-k8s.io/LeaderWorkerSet'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const dcd = rt.get(`${DYN}/v1alpha1`, 'DynamoComponentDeployment', ns, name);
    if (!dcd || dcd.metadata.deletionTimestamp) return;
    const spec = dcd.spec as { replicas?: number; multinode?: { nodeCount?: number }; extraPodSpec?: Partial<PodSpec> & { mainContainer?: Container }; extraPodMetadata?: { labels?: StringMap; annotations?: StringMap } };
    const { mainContainer, ...extra } = spec.extraPodSpec ?? {};
    const podSpec: PodSpec = { ...(extra as Partial<PodSpec>), containers: [...(mainContainer ? [mainContainer] : []), ...((extra.containers as Container[] | undefined) ?? [])] };
    const labels = mergeMaps(spec.extraPodMetadata?.labels, dcd.metadata.labels)!;
    const replicas = spec.replicas ?? 1;
    const nodes = spec.multinode?.nodeCount ?? 1;
    const now = rt.now();
    let ready: number;
    let available: number;
    let updated: number;
    let kind: string;
    if (nodes > 1) {
      kind = 'LeaderWorkerSet';
      const lws = rt.apply<KubeObject>({
        apiVersion: 'leaderworkerset.x-k8s.io/v1',
        kind: 'LeaderWorkerSet',
        metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(dcd)] },
        spec: {
          replicas,
          startupPolicy: 'LeaderCreated',
          leaderWorkerTemplate: {
            size: nodes,
            restartPolicy: 'RecreateGroupOnPodRestart',
            leaderTemplate: { metadata: { labels: { ...labels, role: 'leader' }, annotations: spec.extraPodMetadata?.annotations }, spec: podSpec },
            workerTemplate: { metadata: { labels: { ...labels, role: 'worker' }, annotations: spec.extraPodMetadata?.annotations }, spec: podSpec },
          },
        },
      });
      const st = (lws.status ?? {}) as { readyReplicas?: number; updatedReplicas?: number };
      ready = available = st.readyReplicas ?? 0;
      updated = st.updatedReplicas ?? 0;
    } else {
      kind = 'Deployment';
      const d = rt.apply<KubeObject>({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: ns, labels, ownerReferences: [ctrlRef(dcd)] },
        spec: { replicas, selector: { matchLabels: { [`${DYN}/selector`]: labels[`${DYN}/selector`] ?? name } }, template: { metadata: { labels, annotations: spec.extraPodMetadata?.annotations }, spec: podSpec } },
      });
      const st = (d.status ?? {}) as { readyReplicas?: number; availableReplicas?: number; updatedReplicas?: number };
      ready = st.readyReplicas ?? 0;
      available = st.availableReplicas ?? 0;
      updated = st.updatedReplicas ?? 0;
    }
    const ok = available >= replicas;
    let conds = (dcd.status as { conditions?: Condition[] } | undefined)?.conditions;
    conds = setCondition(conds, ok ? { type: 'Available', status: 'True', reason: `${kind}IsReady`, message: `${kind} is ready` } : { type: 'Available', status: 'False', reason: `${kind}NotReady`, message: `${kind} is not ready` }, now);
    conds = setCondition(conds, ok ? { type: 'DynamoComponentReady', status: 'True', reason: 'ComponentReady', message: 'Component is ready' } : { type: 'DynamoComponentReady', status: 'False', reason: 'ComponentNotReady', message: `${ready}/${replicas} replicas ready` }, now);
    rt.setStatus(dcd, { conditions: conds, podSelector: { [`${DYN}/selector`]: labels[`${DYN}/selector`] ?? name }, replicas, readyReplicas: ready, availableReplicas: available, updatedReplicas: updated, componentKind: kind, observedGeneration: dcd.metadata.generation ?? 1 });
  }
}

export function dynamoControllers(): Controller[] {
  return [new DynamoGraphDeploymentController(), new DynamoComponentDeploymentController()];
}
