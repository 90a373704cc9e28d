/**
 * Deployment controller: Deployment `<d>` → ReplicaSet `<d>-<pod-template-hash>` (ctrlRef, label and
 * selector `pod-template-hash`) → pods. Rolling updates respect maxSurge / maxUnavailable, Recreate
 * scales old sets to zero first; status carries the counts and the Available / Progressing conditions,
 * including ProgressDeadlineExceeded when pods never become available (e.g. Pending for lack of GPUs).
 */

import { byCreation, ctrlRef, mergeMaps, setCondition } from './meta.ts';
import { templateHash } from './random.ts';
import type { Controller, Runtime } from './runtime.ts';
import type { ReplicaSetSpec } from './replicaset.ts';
import type { Condition, KubeObject, LabelSelector, PodTemplateSpec } from './types.ts';

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template: PodTemplateSpec;
  strategy?: { type?: 'RollingUpdate' | 'Recreate'; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  minReadySeconds?: number;
  progressDeadlineSeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
}

interface RsCounts {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
}

const REVISION = 'deployment.kubernetes.io/revision';

function intOrPercent(v: number | string | undefined, total: number, roundUp: boolean, dflt: string): number {
  const x = v ?? dflt;
  if (typeof x === 'number') return x;
  if (x.endsWith('%')) {
    const f = (Number(x.slice(0, -1)) / 100) * total;
    return roundUp ? Math.ceil(f) : Math.floor(f);
  }
  return Number(x) || 0;
}

export function podTemplateHash(template: PodTemplateSpec, collisionCount = 0): string {
  return templateHash(template, collisionCount ? String(collisionCount) : '');
}

export interface DeploymentPlan {
  createRs?: KubeObject;
  scale: Array<{ rs: KubeObject; replicas: number }>;
  deleteRs: KubeObject[];
  status: Record<string, unknown>;
  recheckMs?: number;
}

/** Pure reconcile of a Deployment against the ReplicaSets it owns. */
export function planDeployment(d: KubeObject, sets: KubeObject[], nowIso: string): DeploymentPlan {
  const spec = d.spec as DeploymentSpec;
  const name = d.metadata.name!;
  const desired = spec.replicas ?? 1;
  const hash = podTemplateHash(spec.template);
  const rsName = `${name}-${hash}`;
  const sorted = [...sets].sort(byCreation);
  let newRs = sorted.find((s) => s.metadata.labels?.['pod-template-hash'] === hash);
  const old = sorted.filter((s) => s !== newRs);
  const repl = (s: KubeObject): number => (s.spec as ReplicaSetSpec).replicas ?? 0;
  const st = (s: KubeObject): RsCounts => (s.status ?? {}) as RsCounts;
  const plan: DeploymentPlan = { scale: [], deleteRs: [], status: {} };
  const strategy = spec.strategy?.type ?? 'RollingUpdate';
  let maxSurge = intOrPercent(spec.strategy?.rollingUpdate?.maxSurge, desired, true, '25%');
  let maxUnavailable = intOrPercent(spec.strategy?.rollingUpdate?.maxUnavailable, desired, false, '25%');
  if (strategy === 'Recreate') {
    maxSurge = 0;
    maxUnavailable = desired;
  } else if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;

  const maxRevision = Math.max(0, ...sets.map((s) => Number(s.metadata.annotations?.[REVISION] ?? 0)));
  const oldTotal = old.reduce((n, s) => n + repl(s), 0);
  let createdNow = false;

  // Scale the new set up within the surge budget (Recreate: only once old pods are gone).
  let newTarget: number;
  if (strategy === 'Recreate') {
    const oldPods = old.reduce((n, s) => n + (st(s).replicas ?? 0), 0);
    newTarget = oldTotal === 0 && oldPods === 0 ? desired : 0;
  } else {
    const current = oldTotal + (newRs ? repl(newRs) : 0);
    const room = desired + maxSurge - current;
    newTarget = Math.min(desired, (newRs ? repl(newRs) : 0) + Math.max(0, room));
    if (newRs && repl(newRs) > desired) newTarget = desired;
  }
  if (!newRs) {
    const labels = mergeMaps(spec.template.metadata?.labels, { 'pod-template-hash': hash })!;
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: rsName,
        namespace: d.metadata.namespace,
        labels,
        annotations: {
          'deployment.kubernetes.io/desired-replicas': String(desired),
          'deployment.kubernetes.io/max-replicas': String(desired + maxSurge),
          [REVISION]: String(maxRevision + 1),
        },
        ownerReferences: [ctrlRef(d)],
      },
      spec: {
        replicas: newTarget,
        minReadySeconds: spec.minReadySeconds ?? 0,
        selector: { matchLabels: mergeMaps(spec.selector?.matchLabels, { 'pod-template-hash': hash }) },
        template: { ...spec.template, metadata: { ...(spec.template.metadata ?? {}), labels } },
      },
    };
    plan.createRs = rs;
    newRs = rs;
    createdNow = true;
  } else if (repl(newRs) !== newTarget) plan.scale.push({ rs: newRs, replicas: newTarget });

  // Scale old sets down: unavailable old pods may always go; available ones down to minAvailable.
  const minAvailable = desired - maxUnavailable;
  const allAvailable = sets.reduce((n, s) => n + (st(s).availableReplicas ?? 0), 0);
  let budget = Math.max(0, allAvailable - minAvailable);
  for (const s of old) {
    const r = repl(s);
    if (r === 0) continue;
    const unavailable = Math.max(0, r - (st(s).availableReplicas ?? 0));
    const cut = Math.min(r, unavailable + budget);
    budget -= Math.max(0, cut - unavailable);
    if (cut > 0) plan.scale.push({ rs: s, replicas: r - cut });
  }

  // History: keep revisionHistoryLimit old sets that are scaled to zero.
  const limit = spec.revisionHistoryLimit ?? 10;
  const idle = old.filter((s) => repl(s) === 0 && (st(s).replicas ?? 0) === 0);
  if (idle.length > limit) plan.deleteRs.push(...idle.slice(0, idle.length - limit));

  // Status from the sets' own status (as the real controller does).
  const all = createdNow ? old : sorted;
  const specTotal = all.reduce((n, s) => n + repl(s), 0);
  const replicas = all.reduce((n, s) => n + (st(s).replicas ?? 0), 0);
  const ready = all.reduce((n, s) => n + (st(s).readyReplicas ?? 0), 0);
  const available = all.reduce((n, s) => n + (st(s).availableReplicas ?? 0), 0);
  const updated = createdNow ? 0 : st(newRs).replicas ?? 0;
  const prev = (d.status ?? {}) as { conditions?: Condition[]; replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number };
  const status: Record<string, unknown> = { observedGeneration: d.metadata.generation ?? 1 };
  if (replicas) status.replicas = replicas;
  if (updated) status.updatedReplicas = updated;
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  const unavailable = Math.max(0, Math.max(specTotal, desired) - available);
  if (unavailable) status.unavailableReplicas = unavailable;

  let conds = prev.conditions ? [...prev.conditions] : [];
  conds = setCondition(
    conds,
    available >= desired - (strategy === 'Recreate' ? 0 : maxUnavailable)
      ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.', lastUpdateTime: nowIso }
      : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.', lastUpdateTime: nowIso },
    nowIso,
  );
  const rsn = newRs.metadata.name!;
  const complete = !createdNow && updated === desired && available >= desired && replicas === desired && old.every((s) => (st(s).replicas ?? 0) === 0);
  const progressed =
    createdNow ||
    (prev.replicas ?? 0) !== replicas ||
    (prev.updatedReplicas ?? 0) !== updated ||
    (prev.readyReplicas ?? 0) !== ready ||
    (prev.availableReplicas ?? 0) !== available;
  const cur = conds.find((c) => c.type === 'Progressing');
  const deadline = (spec.progressDeadlineSeconds ?? 600) * 1000;
  let progressing: Condition | undefined;
  if (complete) {
    progressing = { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsn}" has successfully progressed.` };
  } else if (createdNow) {
    progressing = { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${rsn}"` };
  } else if (progressed) {
    progressing = { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsn}" is progressing.` };
  } else if (cur?.reason === 'ProgressDeadlineExceeded') {
    progressing = cur;
  } else if (cur && cur.status === 'True' && cur.reason !== 'NewReplicaSetAvailable') {
    const since = Date.parse(cur.lastUpdateTime ?? cur.lastTransitionTime ?? nowIso);
    if (Date.parse(nowIso) - since >= deadline) {
      progressing = { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rsn}" has timed out progressing.` };
    } else {
      plan.recheckMs = since + deadline - Date.parse(nowIso) + 1000;
    }
  } else if (!cur) {
    progressing = { type: 'Progressing', status: 'True', reason: 'FoundNewReplicaSet', message: `Found new replica set "${rsn}"` };
  }
  if (progressing) {
    const keepUpdate = cur && cur.reason === progressing.reason && cur.status === progressing.status && !progressed;
    conds = setCondition(conds, { ...progressing, lastUpdateTime: keepUpdate ? cur!.lastUpdateTime : nowIso }, nowIso);
    const c = conds.find((x) => x.type === 'Progressing')!;
    if (!keepUpdate) c.lastUpdateTime = nowIso;
    if (progressing.status === 'True' && progressing.reason !== 'NewReplicaSetAvailable') plan.recheckMs = deadline + 1000;
  }
  // Available first, then Progressing, as the real controller leaves them.
  conds.sort((a, b) => order(a.type) - order(b.type));
  status.conditions = conds;
  plan.status = status;
  return plan;
}

function order(t: string): number {
  return t === 'Available' ? 0 : t === 'Progressing' ? 1 : 2;
}

export class DeploymentController implements Controller {
  readonly name = 'deployment';
  readonly primary = 'apps/Deployment';
  readonly priority = 1;
  readonly owns = ['apps/ReplicaSet'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const d = rt.get('apps/v1', 'Deployment', ns, name);
    if (!d || d.metadata.deletionTimestamp) return;
    if ((d.spec as DeploymentSpec).paused) return;
    const sets = rt.children(d, 'apps/ReplicaSet');
    const plan = planDeployment(d, sets, rt.now());
    if (plan.createRs) rt.create(plan.createRs);
    for (const s of plan.scale) rt.update({ ...s.rs, spec: { ...(s.rs.spec as object), replicas: s.replicas } });
    for (const s of plan.deleteRs) rt.delete(s);
    rt.setStatus(d, plan.status);
    if (plan.recheckMs) rt.after(this, ns, name, plan.recheckMs);
  }
}
