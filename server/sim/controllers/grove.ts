/**
 * Grove operator (grove.io/v1alpha1) and the PodGang status its scheduler backend reports:
 * - PodCliqueSet → per replica i: standalone PodCliques `<pcs>-<i>-<clique>`, PodCliqueScalingGroups
 *   `<pcs>-<i>-<sg>`, a headless Service `<pcs>-<i>`, the base PodGang `<pcs>-<i>` and scaled PodGangs
 *   `<pcsg>-<k>` for scaling-group replicas beyond minAvailable; per PCS a ServiceAccount, Role,
 *   RoleBinding and the `<pcs>-ic-sat` Secret.
 * - PodCliqueScalingGroup → PodCliques `<pcsg>-<j>-<clique>`.
 * - PodClique → pods `<pclq>-<rand5>` (hostname `<pclq>-<index>`, subdomain `<pcs>-<i>`), created with the
 *   `grove.io/podgang-pending-creation` scheduling gate, removed once their PodGang exists; the
 *   `grove.io/*` pod labels and GROVE_* env. Pods of a PodGang are placed all-or-nothing (scheduler).
 */

import { bounded } from './limits.ts';
import { byCreation, ctrlRef, isPodActive, isPodReady, mergeMaps, setCondition } from './meta.ts';
import { buildPod } from './pods.ts';
import { templateHash } from './random.ts';
import type { Controller, Runtime } from './runtime.ts';
import { service } from './services.ts';
import type { Condition, KubeObject, Pod, PodSpec, StringMap } from './types.ts';

export const GROVE = 'grove.io';
export const GATE = 'grove.io/podgang-pending-creation';

export interface CliqueTemplate {
  name: string;
  labels?: StringMap;
  annotations?: StringMap;
  spec: { roleName?: string; replicas?: number; minAvailable?: number; startsAfter?: string[]; podSpec: PodSpec; autoScalingConfig?: Record<string, unknown> };
}

export interface ScalingGroupTemplate {
  name: string;
  cliqueNames: string[];
  replicas?: number;
  minAvailable?: number;
}

export interface PodCliqueSetSpec {
  replicas?: number;
  template: {
    cliques: CliqueTemplate[];
    podCliqueScalingGroups?: ScalingGroupTemplate[];
    cliqueStartupType?: string;
    priorityClassName?: string;
    terminationDelay?: string;
    headlessServiceConfig?: { publishNotReadyAddresses?: boolean };
  };
}

interface PodCliqueStatus {
  replicas?: number;
  readyReplicas?: number;
  scheduledReplicas?: number;
  scheduleGatedReplicas?: number;
}

function managed(pcs: string, component: string): StringMap {
  return { 'app.kubernetes.io/managed-by': 'grove-operator', 'app.kubernetes.io/part-of': pcs, 'app.kubernetes.io/component': component };
}

function cliqueObject(owner: KubeObject, pcs: string, replica: number, name: string, t: CliqueTemplate, gang: string, sg?: { name: string; index: number }): KubeObject {
  return {
    apiVersion: 'grove.io/v1alpha1',
    kind: 'PodClique',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: mergeMaps(t.labels, managed(pcs, sg ? 'pcsg-podclique' : 'pcs-podclique'), {
        'app.kubernetes.io/name': name,
        [`${GROVE}/podcliqueset-replica-index`]: String(replica),
        [`${GROVE}/podgang`]: gang,
        ...(sg ? { [`${GROVE}/podcliquescalinggroup`]: sg.name, [`${GROVE}/podcliquescalinggroup-replica-index`]: String(sg.index) } : {}),
      }),
      ...(t.annotations ? { annotations: t.annotations } : {}),
      ownerReferences: [ctrlRef(owner)],
    },
    spec: { ...t.spec, roleName: t.spec.roleName ?? t.name, replicas: t.spec.replicas ?? 1, minAvailable: t.spec.minAvailable ?? t.spec.replicas ?? 1 },
  };
}

/** Which PodGang a scaling-group replica belongs to: the base gang below minAvailable, else its own. */
export function gangOf(pcs: string, replica: number, pcsg: string, j: number, minAvailable: number): string {
  return j < minAvailable ? `${pcs}-${replica}` : `${pcsg}-${j - minAvailable}`;
}

// ------------------------------------------------------------------ PodCliqueSet

export class PodCliqueSetController implements Controller {
  readonly name = 'podcliqueset';
  readonly primary = 'grove.io/PodCliqueSet';
  readonly priority = 2;
  readonly owns = ['grove.io/PodClique', 'grove.io/PodCliqueScalingGroup', 'scheduler.grove.io/PodGang'];
  readonly watches = [
    {
      // Pods carry the PCS name only in a label; their scheduling decides PodGang creation and phase.
      gk: '/Pod',
      map: (obj: KubeObject): Array<[string, string]> => {
        const l = obj.metadata.labels;
        return l?.[`${GROVE}/podclique`] && l['app.kubernetes.io/part-of'] ? [[obj.metadata.namespace ?? '', l['app.kubernetes.io/part-of']]] : [];
      },
    },
    {
      gk: 'grove.io/PodClique',
      map: (obj: KubeObject): Array<[string, string]> => {
        const p = obj.metadata.labels?.['app.kubernetes.io/part-of'];
        return p ? [[obj.metadata.namespace ?? '', p]] : [];
      },
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const pcs = rt.get('grove.io/v1alpha1', 'PodCliqueSet', ns, name);
    if (!pcs || pcs.metadata.deletionTimestamp) return;
    const spec = pcs.spec as PodCliqueSetSpec;
    const replicas = bounded(spec.replicas ?? 0);
    const genHash = templateHash(spec.template);
    const groups = spec.template.podCliqueScalingGroups ?? [];
    const inGroup = new Set(groups.flatMap((g) => g.cliqueNames));
    const now = rt.now();
    rt.ensure({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns, labels: managed(name, 'pcs-service-account'), ownerReferences: [ctrlRef(pcs)] } });
    rt.ensure({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: `grove.io:pcs:${name}`, namespace: ns, labels: managed(name, 'pcs-role'), ownerReferences: [ctrlRef(pcs)] }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] });
    rt.ensure({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: `grove.io:pcs:${name}`, namespace: ns, labels: managed(name, 'pcs-role-binding'), ownerReferences: [ctrlRef(pcs)] }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `grove.io:pcs:${name}` }, subjects: [{ kind: 'ServiceAccount', name, namespace: ns }] });
    rt.ensure({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-ic-sat`, namespace: ns, labels: managed(name, 'pcs-initc-sa-token-secret'), annotations: { 'kubernetes.io/service-account.name': name }, ownerReferences: [ctrlRef(pcs)] }, type: 'kubernetes.io/service-account-token' });

    const wantCliques = new Set<string>();
    const wantGroups = new Set<string>();
    const wantGangs = new Set<string>();
    const gangStatuses: Array<Record<string, unknown>> = [];
    let available = 0;
    for (let i = 0; i < replicas; i++) {
      rt.ensure(service({ name: `${name}-${i}`, namespace: ns, owner: pcs, headless: true, publishNotReadyAddresses: spec.template.headlessServiceConfig?.publishNotReadyAddresses ?? true, labels: managed(name, 'pcs-headless-service'), selector: { 'app.kubernetes.io/part-of': name, [`${GROVE}/podcliqueset-replica-index`]: String(i) } }));
      let replicaOk = true;
      // Gang membership: PodClique names of the base gang and of the scaled gangs.
      const gangs = new Map<string, Array<{ clique: string; min: number; replicas: number }>>();
      const addToGang = (g: string, clique: string, min: number, n: number): void => {
        if (!gangs.has(g)) gangs.set(g, []);
        gangs.get(g)!.push({ clique, min, replicas: n });
      };
      for (const t of spec.template.cliques) {
        if (inGroup.has(t.name)) continue;
        const pclq = `${name}-${i}-${t.name}`;
        wantCliques.add(pclq);
        const obj = rt.apply(cliqueObject(pcs, name, i, pclq, t, `${name}-${i}`));
        const st = (obj.status ?? {}) as PodCliqueStatus;
        if ((st.readyReplicas ?? 0) < (t.spec.minAvailable ?? t.spec.replicas ?? 1)) replicaOk = false;
        addToGang(`${name}-${i}`, pclq, t.spec.minAvailable ?? t.spec.replicas ?? 1, t.spec.replicas ?? 1);
      }
      for (const g of groups) {
        const pcsg = `${name}-${i}-${g.name}`;
        wantGroups.add(pcsg);
        const sg = rt.apply<KubeObject>({
          apiVersion: 'grove.io/v1alpha1',
          kind: 'PodCliqueScalingGroup',
          metadata: { name: pcsg, namespace: ns, labels: mergeMaps(managed(name, 'pcs-podcliquescalinggroup'), { 'app.kubernetes.io/name': pcsg, [`${GROVE}/podcliqueset-replica-index`]: String(i) }), ownerReferences: [ctrlRef(pcs)] },
          spec: { replicas: g.replicas ?? 1, minAvailable: g.minAvailable ?? 1, cliqueNames: g.cliqueNames },
        });
        const sst = (sg.status ?? {}) as { availableReplicas?: number };
        if ((sst.availableReplicas ?? 0) < (g.minAvailable ?? 1)) replicaOk = false;
        const min = g.minAvailable ?? 1;
        for (let j = 0, n = bounded(g.replicas ?? 1); j < n; j++) {
          for (const c of g.cliqueNames) {
            const t = spec.template.cliques.find((x) => x.name === c);
            if (t) addToGang(gangOf(name, i, pcsg, j, min), `${pcsg}-${j}-${c}`, t.spec.minAvailable ?? t.spec.replicas ?? 1, t.spec.replicas ?? 1);
          }
        }
      }
      if (replicaOk) available++;
      // A PodGang is created once all its pods exist; the scheduler backend reports its phase.
      for (const [gang, members] of gangs) {
        wantGangs.add(gang);
        const pods = rt.list<Pod>('v1', 'Pod', { namespace: ns, labels: { [`${GROVE}/podgang`]: gang } }).filter(isPodActive);
        const expected = members.reduce((n, m) => n + m.replicas, 0);
        const existing = rt.get('scheduler.grove.io/v1alpha1', 'PodGang', ns, gang);
        if (!existing && pods.length < expected) {
          gangStatuses.push({ name: gang, phase: 'Pending' });
          continue;
        }
        const podgroups = members.map((m) => ({
          name: m.clique,
          podReferences: pods.filter((p) => p.metadata.labels?.[`${GROVE}/podclique`] === m.clique).map((p) => ({ namespace: ns, name: p.metadata.name! })).sort((a, b) => (a.name < b.name ? -1 : 1)),
          minReplicas: m.min,
        }));
        const pg = rt.apply<KubeObject>({
          apiVersion: 'scheduler.grove.io/v1alpha1',
          kind: 'PodGang',
          metadata: { name: gang, namespace: ns, labels: mergeMaps(managed(name, 'podgang'), { [`${GROVE}/podcliqueset-replica-index`]: String(i) }), ownerReferences: [ctrlRef(pcs)] },
          spec: { podgroups, ...(spec.template.priorityClassName ? { priorityClassName: spec.template.priorityClassName } : {}) },
        });
        const scheduled = pods.length >= expected && pods.every((p) => !!p.spec.nodeName);
        const ready = scheduled && pods.every(isPodReady);
        const phase = ready ? 'Running' : scheduled ? 'Starting' : 'Pending';
        const conds = setCondition((pg.status as { conditions?: Condition[] } | undefined)?.conditions, scheduled ? { type: 'Scheduled', status: 'True', reason: 'PodGangScheduled', message: 'All pods of the gang are scheduled' } : { type: 'Scheduled', status: 'False', reason: 'PodGangPending', message: 'Waiting for enough resources to schedule the gang' }, now);
        rt.setStatus(pg, { phase, conditions: conds });
        gangStatuses.push({ name: gang, phase, conditions: conds });
      }
    }
    // Scale-in: children beyond the wanted set go.
    for (const c of rt.children(pcs, 'grove.io/PodClique')) if (!wantCliques.has(c.metadata.name!)) rt.delete(c);
    for (const g of rt.children(pcs, 'grove.io/PodCliqueScalingGroup')) if (!wantGroups.has(g.metadata.name!)) rt.delete(g);
    for (const g of rt.children(pcs, 'scheduler.grove.io/PodGang')) if (!wantGangs.has(g.metadata.name!)) rt.delete(g);
    rt.setStatus(pcs, {
      observedGeneration: pcs.metadata.generation ?? 1,
      replicas,
      availableReplicas: available,
      updatedReplicas: replicas,
      currentGenerationHash: genHash,
      podGangStatuses: gangStatuses,
    });
  }
}

// ------------------------------------------------------------------ PodCliqueScalingGroup

export class PodCliqueScalingGroupController implements Controller {
  readonly name = 'podcliquescalinggroup';
  readonly primary = 'grove.io/PodCliqueScalingGroup';
  readonly priority = 2;
  readonly owns = ['grove.io/PodClique'];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const sg = rt.get('grove.io/v1alpha1', 'PodCliqueScalingGroup', ns, name);
    if (!sg || sg.metadata.deletionTimestamp) return;
    const pcsName = sg.metadata.labels?.['app.kubernetes.io/part-of'];
    const pcs = pcsName ? rt.get('grove.io/v1alpha1', 'PodCliqueSet', ns, pcsName) : undefined;
    if (!pcs) return;
    const spec = sg.spec as { replicas?: number; minAvailable?: number; cliqueNames: string[] };
    const replica = Number(sg.metadata.labels?.[`${GROVE}/podcliqueset-replica-index`] ?? 0);
    const templates = (pcs.spec as PodCliqueSetSpec).template.cliques;
    const min = spec.minAvailable ?? 1;
    const want = new Set<string>();
    let scheduled = 0;
    let availableCount = 0;
    for (let j = 0, n = bounded(spec.replicas ?? 1); j < n; j++) {
      let allScheduled = true;
      let allAvailable = true;
      for (const c of spec.cliqueNames) {
        const t = templates.find((x) => x.name === c);
        if (!t) continue;
        const pclq = `${name}-${j}-${c}`;
        want.add(pclq);
        const obj = rt.apply(cliqueObject(sg, pcs.metadata.name!, replica, pclq, t, gangOf(pcs.metadata.name!, replica, name, j, min), { name, index: j }));
        const st = (obj.status ?? {}) as PodCliqueStatus;
        const need = t.spec.minAvailable ?? t.spec.replicas ?? 1;
        if ((st.scheduledReplicas ?? 0) < need) allScheduled = false;
        if ((st.readyReplicas ?? 0) < need) allAvailable = false;
      }
      if (allScheduled) scheduled++;
      if (allAvailable) availableCount++;
    }
    for (const c of rt.children(sg, 'grove.io/PodClique')) if (!want.has(c.metadata.name!)) rt.delete(c);
    const now = rt.now();
    const conds = setCondition(
      (sg.status as { conditions?: Condition[] } | undefined)?.conditions,
      availableCount < min
        ? { type: 'MinAvailableBreached', status: 'True', reason: 'InsufficientAvailablePodCliqueScalingGroupReplicas', message: `Insufficient PodCliqueScalingGroup ready replicas, expected at least: ${min}, found: ${availableCount}` }
        : { type: 'MinAvailableBreached', status: 'False', reason: 'SufficientAvailablePodCliqueScalingGroupReplicas', message: `Sufficient PodCliqueScalingGroup ready replicas, expected at least: ${min}, found: ${availableCount}` },
      now,
    );
    rt.setStatus(sg, {
      observedGeneration: sg.metadata.generation ?? 1,
      replicas: spec.replicas ?? 1,
      scheduledReplicas: scheduled,
      availableReplicas: availableCount,
      updatedReplicas: spec.replicas ?? 1,
      selector: `app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=${pcs.metadata.name},${GROVE}/podcliquescalinggroup=${name}`,
      conditions: conds,
    });
  }
}

// ------------------------------------------------------------------ PodClique

export class PodCliqueController implements Controller {
  readonly name = 'podclique';
  readonly primary = 'grove.io/PodClique';
  readonly priority = 2;
  readonly owns = ['/Pod'];
  readonly watches = [
    {
      // A new PodGang releases the scheduling gates of its cliques' pods.
      gk: 'scheduler.grove.io/PodGang',
      map: (obj: KubeObject): Array<[string, string]> => ((obj.spec as { podgroups?: Array<{ name: string }> } | undefined)?.podgroups ?? []).map((g) => [obj.metadata.namespace ?? '', g.name]),
    },
  ];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const pclq = rt.get('grove.io/v1alpha1', 'PodClique', ns, name);
    if (!pclq || pclq.metadata.deletionTimestamp) return;
    const spec = pclq.spec as CliqueTemplate['spec'];
    const L = pclq.metadata.labels ?? {};
    const pcs = L['app.kubernetes.io/part-of'];
    const replica = L[`${GROVE}/podcliqueset-replica-index`] ?? '0';
    const gang = L[`${GROVE}/podgang`];
    const sg = L[`${GROVE}/podcliquescalinggroup`];
    const sgIndex = L[`${GROVE}/podcliquescalinggroup-replica-index`];
    const want = bounded(spec.replicas ?? 1);
    const hash = templateHash(spec.podSpec);
    const pods = rt.children<Pod>(pclq, '/Pod');
    // Failed pods are replaced.
    for (const p of pods) if (!isPodActive(p) && !p.metadata.deletionTimestamp) rt.delete(p);
    const active = pods.filter(isPodActive).sort(byCreation);
    const used = new Set(active.map((p) => Number(p.metadata.labels?.[`${GROVE}/podclique-pod-index`])));
    const gangExists = !!(gang && rt.get('scheduler.grove.io/v1alpha1', 'PodGang', ns, gang));
    for (let idx = 0, n = active.length; n < want; idx++) {
      if (used.has(idx)) continue;
      n++;
      const env = [
        { name: 'GROVE_PCS_NAME', value: pcs },
        { name: 'GROVE_PCS_INDEX', value: replica },
        { name: 'GROVE_PCLQ_NAME', value: name },
        { name: 'GROVE_HEADLESS_SERVICE', value: `${pcs}-${replica}.${ns}.svc.cluster.local` },
        { name: 'GROVE_PCLQ_POD_INDEX', value: String(idx) },
        ...(sg ? [{ name: 'GROVE_PCSG_NAME', value: sg }, { name: 'GROVE_PCSG_INDEX', value: sgIndex ?? '0' }, { name: 'GROVE_PCSG_TEMPLATE_NUM_PODS', value: String(want) }] : []),
      ];
      rt.createPod(
        buildPod({
          namespace: ns,
          generateName: `${name}-`,
          template: { metadata: { labels: templateLabels(L), annotations: pclq.metadata.annotations }, spec: spec.podSpec },
          labels: {
            'app.kubernetes.io/managed-by': 'grove-operator',
            'app.kubernetes.io/part-of': pcs,
            [`${GROVE}/podclique`]: name,
            [`${GROVE}/podcliqueset-replica-index`]: replica,
            ...(gang ? { [`${GROVE}/podgang`]: gang } : {}),
            [`${GROVE}/podclique-pod-index`]: String(idx),
            [`${GROVE}/pod-template-hash`]: hash,
            ...(sg ? { [`${GROVE}/podcliquescalinggroup`]: sg, [`${GROVE}/podcliquescalinggroup-replica-index`]: sgIndex ?? '0' } : {}),
          },
          ownerRef: ctrlRef(pclq),
          hostname: `${name}-${idx}`,
          subdomain: `${pcs}-${replica}`,
          env,
          schedulingGates: [GATE],
        }),
      );
    }
    for (const extra of active.slice(want)) rt.delete(extra);
    if (gangExists) {
      for (const p of rt.children<Pod>(pclq, '/Pod')) {
        const gates = p.spec.schedulingGates ?? [];
        if (!gates.some((g) => g.name === GATE)) continue;
        const rest = gates.filter((g) => g.name !== GATE);
        const next: Pod = { ...p, spec: { ...p.spec, schedulingGates: rest } };
        if (rest.length === 0) delete next.spec.schedulingGates;
        rt.update(next);
      }
    }
    const live = rt.children<Pod>(pclq, '/Pod').filter(isPodActive);
    const ready = live.filter(isPodReady).length;
    const scheduled = live.filter((p) => !!p.spec.nodeName).length;
    const gated = live.filter((p) => (p.spec.schedulingGates ?? []).length > 0).length;
    const min = spec.minAvailable ?? want;
    const now = rt.now();
    let conds = (pclq.status as { conditions?: Condition[] } | undefined)?.conditions;
    conds = setCondition(conds, ready < min ? { type: 'MinAvailableBreached', status: 'True', reason: scheduled < min ? 'ScheduledReplicasBelowMinAvailable' : 'InsufficientReadyPods', message: `Insufficient ready pods. expected at least: ${min}, found: ${ready}` } : { type: 'MinAvailableBreached', status: 'False', reason: 'SufficientReadyPods', message: `Sufficient ready pods found. expected at least: ${min}, found: ${ready}` }, now);
    conds = setCondition(conds, scheduled < min ? { type: 'PodCliqueScheduled', status: 'False', reason: 'InsufficientScheduledPods', message: `Insufficient scheduled pods. expected at least: ${min}, found: ${scheduled}` } : { type: 'PodCliqueScheduled', status: 'True', reason: 'SufficientScheduledPods', message: `Sufficient scheduled pods found. expected at least: ${min}, found: ${scheduled}` }, now);
    rt.setStatus(pclq, {
      observedGeneration: pclq.metadata.generation ?? 1,
      replicas: live.length,
      readyReplicas: ready,
      scheduledReplicas: scheduled,
      scheduleGatedReplicas: gated,
      updatedReplicas: live.filter((p) => p.metadata.labels?.[`${GROVE}/pod-template-hash`] === hash).length,
      hpaPodSelector: `app.kubernetes.io/managed-by=grove-operator,app.kubernetes.io/part-of=${pcs},${GROVE}/podclique=${name}`,
      conditions: conds,
      currentPodTemplateHash: hash,
      currentPodCliqueSetGenerationHash: hash,
    });
  }
}

/** Template labels of a PodClique that pass to its pods (the user's clique labels, not Grove's own). */
function templateLabels(l: StringMap): StringMap | undefined {
  const out: StringMap = {};
  for (const k in l) if (!k.startsWith('app.kubernetes.io/') && !k.startsWith(`${GROVE}/`)) out[k] = l[k];
  return Object.keys(out).length ? out : undefined;
}

export function groveControllers(): Controller[] {
  return [new PodCliqueSetController(), new PodCliqueScalingGroupController(), new PodCliqueController()];
}
