/**
 * ReplicaSet controller: keeps `spec.replicas` active pods `<rs>-<rand5>` (ctrlRef → ReplicaSet) and
 * reports replicas / fullyLabeledReplicas / readyReplicas / availableReplicas / observedGeneration.
 */

import { bounded } from './limits.ts';
import { byCreation, ctrlRef, isPodActive, isPodReady, labelsMatch } from './meta.ts';
import { buildPod } from './pods.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { KubeObject, LabelSelector, Pod, PodTemplateSpec } from './types.ts';

export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template: PodTemplateSpec;
}

/** Ready for at least minReadySeconds (the "available" of ReplicaSets and Deployments). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (!minReadySeconds) return true;
  const t = pod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime;
  return !!t && Date.parse(t) + minReadySeconds * 1000 <= nowMs;
}

/** Which pods to delete when scaling down: unscheduled, then pending, then not ready, then newest first. */
export function rankForDeletion(pods: Pod[]): Pod[] {
  const score = (p: Pod): number => (!p.spec.nodeName ? 0 : p.status?.phase === 'Pending' ? 1 : !isPodReady(p) ? 2 : 3);
  return [...pods].sort((a, b) => score(a) - score(b) || -byCreation(a, b));
}

export interface ReplicaSetPlan {
  create: number;
  remove: Pod[];
  status: Record<string, unknown>;
  /** Recheck after this many ms (minReadySeconds). */
  recheckMs?: number;
}

/** Pure reconcile of one ReplicaSet against its pods. */
export function planReplicaSet(rs: KubeObject, pods: Pod[], nowMs: number): ReplicaSetPlan {
  const spec = rs.spec as ReplicaSetSpec;
  const want = spec.replicas ?? 1;
  const active = pods.filter(isPodActive);
  const minReady = spec.minReadySeconds ?? 0;
  const diff = want - active.length;
  const remove = diff < 0 ? rankForDeletion(active).slice(0, -diff) : [];
  const keep = active.filter((p) => !remove.includes(p));
  const ready = keep.filter(isPodReady).length;
  const available = keep.filter((p) => isPodAvailable(p, minReady, nowMs)).length;
  const selector = spec.selector?.matchLabels;
  const fully = keep.filter((p) => labelsMatch(p.metadata.labels, spec.template.metadata?.labels ?? selector)).length;
  // Counts other than `replicas` are omitempty in the API, so zero means absent.
  const status: Record<string, unknown> = { replicas: keep.length };
  if (fully > 0) status.fullyLabeledReplicas = fully;
  if (ready > 0) status.readyReplicas = ready;
  if (available > 0) status.availableReplicas = available;
  status.observedGeneration = rs.metadata.generation ?? 1;
  const plan: ReplicaSetPlan = { create: bounded(diff), remove, status };
  if (minReady > 0 && ready > available) plan.recheckMs = minReady * 1000;
  return plan;
}

export class ReplicaSetController implements Controller {
  readonly name = 'replicaset';
  readonly primary = 'apps/ReplicaSet';
  readonly priority = 1;
  readonly owns = ['/Pod'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const rs = rt.get('apps/v1', 'ReplicaSet', ns, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = rt.children<Pod>(rs, '/Pod');
    const plan = planReplicaSet(rs, pods, rt.nowMs());
    const spec = rs.spec as ReplicaSetSpec;
    for (let i = 0; i < plan.create; i++) {
      rt.createPod(
        buildPod({
          namespace: ns,
          generateName: `${name}-`,
          template: spec.template,
          ownerRef: ctrlRef(rs),
        }),
      );
    }
    for (const p of plan.remove) rt.delete(p);
    rt.setStatus(rs, plan.status);
    if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }
}
