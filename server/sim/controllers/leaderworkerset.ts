/**
 * LeaderWorkerSet operator (leaderworkerset.x-k8s.io/v1): a leader StatefulSet `<lws>` (one leader pod
 * `<lws>-<g>` per group), per leader a worker StatefulSet `<lws>-<g>` owned by the leader pod (workers
 * `<lws>-<g>-<w>`, ordinals from 1), a headless Service, ControllerRevisions; the pod webhook's labels
 * (`group-index`, `worker-index`, `group-key`), annotations (`size`, `leader-name`) and LWS_* env;
 * RecreateGroupOnPodRestart; status replicas / readyReplicas / updatedReplicas and the Available /
 * Progressing / UpdateInProgress conditions (only the current one True).
 */

import { ctrlRef, isPodReady, mergeMaps, podRestarts, setCondition } from './meta.ts';
import { sha1Hex, templateHash } from './random.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { StatefulSetSpec } from './statefulset.ts';
import type { Condition, EnvVar, KubeObject, Pod, PodTemplateSpec, StringMap } from './types.ts';

export const LWS = 'leaderworkerset.sigs.k8s.io';

export interface LeaderWorkerSetSpec {
  replicas?: number;
  leaderWorkerTemplate: {
    size?: number;
    leaderTemplate?: PodTemplateSpec;
    workerTemplate: PodTemplateSpec;
    restartPolicy?: 'RecreateGroupOnPodRestart' | 'RecreateGroupAfterStart' | 'None' | 'Default';
  };
  startupPolicy?: 'LeaderCreated' | 'LeaderReady';
  networkConfig?: { subdomainPolicy?: 'Shared' | 'UniquePerReplica' };
}

export interface LeaderWorkerSetStatus {
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  hpaPodSelector?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

export function lwsRevisionHash(lws: KubeObject): string {
  const t = (lws.spec as LeaderWorkerSetSpec).leaderWorkerTemplate;
  return templateHash({ leader: t.leaderTemplate ?? null, worker: t.workerTemplate, size: t.size ?? 1 });
}

export function groupKey(ns: string, leaderPod: string): string {
  return sha1Hex(`${ns}/${leaderPod}`);
}

function withLabels(t: PodTemplateSpec, labels: StringMap, annotations: StringMap): PodTemplateSpec {
  return { ...t, metadata: { ...(t.metadata ?? {}), labels: mergeMaps(t.metadata?.labels, labels), annotations: mergeMaps(t.metadata?.annotations, annotations) } };
}

/** The leader StatefulSet `<lws>`. */
export function leaderStatefulSet(lws: KubeObject): KubeObject {
  const spec = lws.spec as LeaderWorkerSetSpec;
  const name = lws.metadata.name!;
  const size = spec.leaderWorkerTemplate.size ?? 1;
  const hash = lwsRevisionHash(lws);
  const tmpl = spec.leaderWorkerTemplate.leaderTemplate ?? spec.leaderWorkerTemplate.workerTemplate;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name,
      namespace: lws.metadata.namespace,
      labels: { [`${LWS}/name`]: name, [`${LWS}/template-revision-hash`]: hash },
      annotations: { [`${LWS}/replicas`]: String(spec.replicas ?? 1) },
      ownerReferences: [ctrlRef(lws)],
    },
    spec: {
      replicas: spec.replicas ?? 1,
      podManagementPolicy: 'Parallel',
      serviceName: name,
      selector: { matchLabels: { [`${LWS}/name`]: name, [`${LWS}/worker-index`]: '0' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } },
      template: withLabels(
        tmpl,
        { [`${LWS}/name`]: name, [`${LWS}/worker-index`]: '0', [`${LWS}/template-revision-hash`]: hash },
        { [`${LWS}/size`]: String(size), ...(spec.networkConfig?.subdomainPolicy ? { [`${LWS}/subdomainPolicy`]: spec.networkConfig.subdomainPolicy } : {}) },
      ),
    } satisfies StatefulSetSpec,
  };
}

/** The worker StatefulSet of one group, named after (and owned by) its leader pod. */
export function workerStatefulSet(lws: KubeObject, leader: Pod): KubeObject {
  const spec = lws.spec as LeaderWorkerSetSpec;
  const name = lws.metadata.name!;
  const size = spec.leaderWorkerTemplate.size ?? 1;
  const g = leader.metadata.labels![`${LWS}/group-index`];
  const key = leader.metadata.labels![`${LWS}/group-key`];
  const hash = leader.metadata.labels![`${LWS}/template-revision-hash`];
  const unique = spec.networkConfig?.subdomainPolicy === 'UniquePerReplica';
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: leader.metadata.name,
      namespace: lws.metadata.namespace,
      labels: { [`${LWS}/name`]: name, [`${LWS}/group-index`]: g, [`${LWS}/group-key`]: key, [`${LWS}/template-revision-hash`]: hash },
      ownerReferences: [ctrlRef(leader)],
    },
    spec: {
      replicas: size - 1,
      ordinals: { start: 1 },
      podManagementPolicy: 'Parallel',
      serviceName: unique ? leader.metadata.name : name,
      selector: { matchLabels: { [`${LWS}/name`]: name, [`${LWS}/group-index`]: g, [`${LWS}/group-key`]: key } },
      template: withLabels(
        spec.leaderWorkerTemplate.workerTemplate,
        { [`${LWS}/name`]: name, [`${LWS}/group-index`]: g, [`${LWS}/group-key`]: key, [`${LWS}/template-revision-hash`]: hash },
        { [`${LWS}/size`]: String(size), [`${LWS}/leader-name`]: leader.metadata.name! },
      ),
    } satisfies StatefulSetSpec,
  };
}

/** The LWS pod webhook: group/worker indexes from the StatefulSet ordinal, the group key, LWS_* env. */
export function lwsPodWebhook(pod: Pod): Pod {
  const l = pod.metadata.labels;
  const lwsName = l?.[`${LWS}/name`];
  if (!lwsName) return pod;
  const ns = pod.metadata.namespace!;
  const podName = pod.metadata.name!;
  const ordinal = l['apps.kubernetes.io/pod-index'] ?? podName.slice(podName.lastIndexOf('-') + 1);
  const labels = { ...l };
  const size = pod.metadata.annotations?.[`${LWS}/size`] ?? '1';
  let leaderName: string;
  if (labels[`${LWS}/worker-index`] === '0' && labels[`${LWS}/group-index`] === undefined) {
    labels[`${LWS}/group-index`] = ordinal;
    labels[`${LWS}/group-key`] = groupKey(ns, podName);
    leaderName = podName;
  } else {
    labels[`${LWS}/worker-index`] = ordinal;
    leaderName = pod.metadata.annotations?.[`${LWS}/leader-name`] ?? `${lwsName}-${labels[`${LWS}/group-index`]}`;
  }
  const env: EnvVar[] = [
    { name: 'LWS_LEADER_ADDRESS', value: `${leaderName}.${lwsName}.${ns}` },
    { name: 'LWS_GROUP_SIZE', value: size },
    { name: 'LWS_WORKER_INDEX', value: labels[`${LWS}/worker-index`] },
  ];
  const addEnv = (c: Pod['spec']['containers'][number]): Pod['spec']['containers'][number] => {
    const own = new Set((c.env ?? []).map((e) => e.name));
    return { ...c, env: [...(c.env ?? []), ...env.filter((e) => !own.has(e.name))] };
  };
  return {
    ...pod,
    metadata: { ...pod.metadata, labels },
    spec: { ...pod.spec, containers: pod.spec.containers.map(addEnv), ...(pod.spec.initContainers ? { initContainers: pod.spec.initContainers.map(addEnv) } : {}) },
  };
}

export interface LwsPlan {
  leaderSts: KubeObject;
  workerSets: KubeObject[];
  /** Leader pods to delete so their whole group is recreated. */
  recreate: Pod[];
  service: KubeObject;
  revision: KubeObject;
  status: LeaderWorkerSetStatus;
}

/** Pure reconcile of a LeaderWorkerSet against its leader pods, worker StatefulSets and worker pods. */
export function planLeaderWorkerSet(lws: KubeObject, leaders: Pod[], workerSets: Map<string, KubeObject>, workersOf: (leader: string) => Pod[], nowIso: string): LwsPlan {
  const spec = lws.spec as LeaderWorkerSetSpec;
  const name = lws.metadata.name!;
  const ns = lws.metadata.namespace!;
  const size = spec.leaderWorkerTemplate.size ?? 1;
  const replicas = spec.replicas ?? 1;
  const hash = lwsRevisionHash(lws);
  const prev = (lws.status ?? {}) as LeaderWorkerSetStatus;
  const plan: LwsPlan = {
    leaderSts: leaderStatefulSet(lws),
    workerSets: [],
    recreate: [],
    service: service({ name, namespace: ns, owner: lws, headless: true, publishNotReadyAddresses: true, selector: { [`${LWS}/name`]: name } }),
    revision: {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: `${name}-${hash}`, namespace: ns, labels: { [`${LWS}/name`]: name, [`${LWS}/template-revision-hash`]: hash }, ownerReferences: [ctrlRef(lws)] },
      data: { spec: { leaderWorkerTemplate: spec.leaderWorkerTemplate } },
      revision: 1,
    },
    status: {},
  };
  const policy = spec.leaderWorkerTemplate.restartPolicy ?? 'RecreateGroupOnPodRestart';
  let ready = 0;
  let updated = 0;
  for (const leader of leaders) {
    if (leader.metadata.deletionTimestamp || !leader.metadata.labels?.[`${LWS}/group-index`]) continue;
    const workers = size > 1 ? workersOf(leader.metadata.name!) : [];
    if (size > 1) {
      const startOk = (spec.startupPolicy ?? 'LeaderCreated') === 'LeaderCreated' || isPodReady(leader);
      if (startOk) plan.workerSets.push(workerStatefulSet(lws, leader));
    }
    // A restarted or failed member takes the whole group down (the leader's deletion cascades).
    const broken = [leader, ...workers].some((p) => podRestarts(p) > 0 || p.status?.phase === 'Failed');
    if (broken && size > 1 && (policy === 'RecreateGroupOnPodRestart' || (policy === 'RecreateGroupAfterStart' && isPodReady(leader)))) {
      plan.recreate.push(leader);
      continue;
    }
    const wsts = workerSets.get(leader.metadata.name!);
    const workersReady = size === 1 || (((wsts?.status ?? {}) as { readyReplicas?: number }).readyReplicas ?? 0) >= size - 1;
    if (isPodReady(leader) && workersReady) ready++;
    if (leader.metadata.labels?.[`${LWS}/template-revision-hash`] === hash) updated++;
  }
  const groups = leaders.filter((p) => !p.metadata.deletionTimestamp).length;
  let conds = prev.conditions ? [...prev.conditions] : [];
  const updating = updated < Math.min(groups, replicas) && groups > 0 && leaders.some((p) => p.metadata.labels?.[`${LWS}/template-revision-hash`] !== hash);
  const available = ready >= replicas;
  const cur = updating ? 'UpdateInProgress' : available ? 'Available' : 'Progressing';
  const text: Record<string, [string, string]> = {
    Available: ['AllGroupsReady', 'All replicas are ready'],
    Progressing: ['GroupsProgressing', 'Replicas are progressing'],
    UpdateInProgress: ['GroupsUpdating', 'Rolling Upgrade is in progress'],
  };
  for (const t of ['Available', 'Progressing', 'UpdateInProgress']) {
    const existing = conds.find((c) => c.type === t);
    if (t !== cur && !existing) continue;
    const [reason, message] = text[t];
    conds = setCondition(conds, { type: t, status: t === cur ? 'True' : 'False', reason, message, observedGeneration: lws.metadata.generation ?? 1 }, nowIso);
  }
  plan.status = {
    replicas: groups,
    readyReplicas: ready,
    updatedReplicas: updated,
    hpaPodSelector: `${LWS}/name=${name},${LWS}/worker-index=0`,
    observedGeneration: lws.metadata.generation ?? 1,
    conditions: conds,
  };
  return plan;
}

export class LeaderWorkerSetController implements Controller {
  readonly name = 'leaderworkerset';
  readonly primary = 'leaderworkerset.x-k8s.io/LeaderWorkerSet';
  readonly priority = 2;
  readonly owns = ['apps/StatefulSet'];
  readonly watches = [
    { gk: '/Pod', map: (obj: KubeObject): Array<[string, string]> => lwsKey(obj) },
    { gk: 'apps/StatefulSet', map: (obj: KubeObject): Array<[string, string]> => lwsKey(obj) },
  ];

  init(rt: Runtime): void {
    rt.podWebhooks.push((pod) => lwsPodWebhook(pod));
  }

  reconcile(rt: Runtime, ns: string, name: string): void {
    const lws = rt.get('leaderworkerset.x-k8s.io/v1', 'LeaderWorkerSet', ns, name);
    if (!lws || lws.metadata.deletionTimestamp) return;
    const leaderSts = rt.get('apps/v1', 'StatefulSet', ns, name);
    const leaders = leaderSts ? rt.children<Pod>(leaderSts, '/Pod') : [];
    const workerSets = new Map<string, KubeObject>();
    for (const l of leaders) for (const s of rt.children(l, 'apps/StatefulSet')) workerSets.set(l.metadata.name!, s);
    const plan = planLeaderWorkerSet(lws, leaders, workerSets, (leader) => {
      const s = workerSets.get(leader);
      return s ? rt.children<Pod>(s, '/Pod') : [];
    }, rt.now());
    rt.ensure(plan.revision);
    rt.ensure(plan.service);
    rt.apply(plan.leaderSts);
    for (const w of plan.workerSets) rt.apply(w);
    for (const l of plan.recreate) rt.delete(l);
    rt.setStatus(lws, plan.status);
  }
}

function lwsKey(obj: KubeObject): Array<[string, string]> {
  const n = obj.metadata.labels?.[`${LWS}/name`];
  return n ? [[obj.metadata.namespace ?? '', n]] : [];
}
