/**
 * StatefulSet controller: pods `<sts>-<ordinal>` (ordinals from `spec.ordinals.start`), OrderedReady or
 * Parallel, labels `controller-revision-hash`, `statefulset.kubernetes.io/pod-name`,
 * `apps.kubernetes.io/pod-index`, hostname = pod name and subdomain = serviceName; a ControllerRevision
 * `<sts>-<hash>` per template; rolling update from the highest ordinal; failed pods are recreated.
 */

import { bounded } from './limits.ts';
import { ctrlRef, isPodReady, mergeMaps } from './meta.ts';
import { buildPod } from './pods.ts';
import { templateHash } from './random.ts';
import { isPodAvailable } from './replicaset.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { KubeObject, LabelSelector, Pod, PodTemplateSpec } from './types.ts';

export interface StatefulSetSpec {
  replicas?: number;
  selector?: LabelSelector;
  serviceName?: string;
  template: PodTemplateSpec;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { partition?: number; maxUnavailable?: number } };
  ordinals?: { start?: number };
  minReadySeconds?: number;
}

export function ordinalOf(stsName: string, podName: string): number | undefined {
  if (!podName.startsWith(`${stsName}-`)) return undefined;
  const rest = podName.slice(stsName.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : undefined;
}

export interface StatefulSetPlan {
  revision: { name: string; hash: string };
  create: number[];
  remove: Pod[];
  status: Record<string, unknown>;
}

/** Pure reconcile of a StatefulSet against its pods. */
export function planStatefulSet(sts: KubeObject, pods: Pod[], nowMs: number): StatefulSetPlan {
  const spec = sts.spec as StatefulSetSpec;
  const name = sts.metadata.name!;
  const replicas = bounded(spec.replicas ?? 1);
  const start = spec.ordinals?.start ?? 0;
  const hash = templateHash(spec.template);
  const updateRevision = `${name}-${hash}`;
  const parallel = spec.podManagementPolicy === 'Parallel';
  const byOrdinal = new Map<number, Pod>();
  for (const p of pods) {
    const o = ordinalOf(name, p.metadata.name!);
    if (o !== undefined) byOrdinal.set(o, p);
  }
  const create: number[] = [];
  const remove: Pod[] = [];
  let blocked = false;
  for (let o = start; o < start + replicas; o++) {
    const p = byOrdinal.get(o);
    if (!p) {
      if (!blocked) create.push(o);
      if (!parallel) blocked = true;
      continue;
    }
    const phase = p.status?.phase;
    if ((phase === 'Failed' || phase === 'Succeeded') && !p.metadata.deletionTimestamp) {
      remove.push(p);
      if (!parallel) blocked = true;
      continue;
    }
    if (!parallel && (p.metadata.deletionTimestamp || !isPodReady(p))) blocked = true;
  }
  // Scale down from the highest ordinal (OrderedReady: one at a time).
  const extra = [...byOrdinal.entries()].filter(([o, p]) => (o < start || o >= start + replicas) && !p.metadata.deletionTimestamp).sort((a, b) => b[0] - a[0]);
  for (const [, p] of parallel ? extra : extra.slice(0, 1)) remove.push(p);

  const inRange = [...byOrdinal.entries()].filter(([o]) => o >= start && o < start + replicas).map(([, p]) => p);
  const live = inRange.filter((p) => !p.metadata.deletionTimestamp);
  const rev = (p: Pod): string | undefined => p.metadata.labels?.['controller-revision-hash'];
  // Rolling update: replace the highest outdated pod once everything else is ready.
  const strategy = spec.updateStrategy?.type ?? 'RollingUpdate';
  const partition = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (strategy === 'RollingUpdate' && create.length === 0 && remove.length === 0 && live.length === replicas && live.every(isPodReady)) {
    const outdated = live.filter((p) => rev(p) !== updateRevision && (ordinalOf(name, p.metadata.name!) ?? 0) >= partition);
    outdated.sort((a, b) => (ordinalOf(name, b.metadata.name!) ?? 0) - (ordinalOf(name, a.metadata.name!) ?? 0));
    if (outdated.length > 0) remove.push(outdated[0]);
  }
  const prevStatus = (sts.status ?? {}) as { currentRevision?: string };
  const updated = live.filter((p) => rev(p) === updateRevision).length;
  const currentRevision = updated === replicas || !prevStatus.currentRevision ? updateRevision : prevStatus.currentRevision;
  const current = live.filter((p) => rev(p) === currentRevision).length;
  const status: Record<string, unknown> = {
    observedGeneration: sts.metadata.generation ?? 1,
    replicas: live.length,
    readyReplicas: live.filter(isPodReady).length,
    currentReplicas: current,
    updatedReplicas: updated,
    availableReplicas: live.filter((p) => isPodAvailable(p, spec.minReadySeconds ?? 0, nowMs)).length,
    currentRevision,
    updateRevision,
    collisionCount: 0,
  };
  return { revision: { name: updateRevision, hash }, create, remove, status };
}

export function statefulSetPod(sts: KubeObject, ordinal: number, revisionName: string): Pod {
  const spec = sts.spec as StatefulSetSpec;
  const podName = `${sts.metadata.name}-${ordinal}`;
  return buildPod({
    namespace: sts.metadata.namespace!,
    name: podName,
    template: spec.template,
    labels: mergeMaps(spec.template.metadata?.labels, {
      'controller-revision-hash': revisionName,
      'statefulset.kubernetes.io/pod-name': podName,
      'apps.kubernetes.io/pod-index': String(ordinal),
    }),
    ownerRef: ctrlRef(sts),
    hostname: podName,
    ...(spec.serviceName ? { subdomain: spec.serviceName } : {}),
  });
}

export class StatefulSetController implements Controller {
  readonly name = 'statefulset';
  readonly primary = 'apps/StatefulSet';
  readonly priority = 1;
  readonly owns = ['/Pod'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const sts = rt.get('apps/v1', 'StatefulSet', ns, name);
    if (!sts || sts.metadata.deletionTimestamp) return;
    const pods = rt.children<Pod>(sts, '/Pod');
    const plan = planStatefulSet(sts, pods, rt.nowMs());
    const spec = sts.spec as StatefulSetSpec;
    if (!rt.get('apps/v1', 'ControllerRevision', ns, plan.revision.name)) {
      const revisions = rt.children(sts, 'apps/ControllerRevision');
      rt.create({
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: plan.revision.name,
          namespace: ns,
          labels: mergeMaps(spec.template.metadata?.labels, { 'controller.kubernetes.io/hash': plan.revision.hash }),
          ownerReferences: [ctrlRef(sts)],
        },
        data: { spec: { template: { ...spec.template, $patch: 'replace' } } },
        revision: revisions.length + 1,
      });
    }
    for (const o of plan.create) {
      if (rt.get('v1', 'Pod', ns, `${name}-${o}`)) continue;
      rt.createPod(statefulSetPod(sts, o, plan.revision.name));
    }
    for (const p of plan.remove) rt.delete(p);
    rt.setStatus(sts, plan.status);
  }
}
