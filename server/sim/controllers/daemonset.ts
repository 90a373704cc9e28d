/**
 * DaemonSet controller: one pod per node the template may be placed on (its node selector, required node
 * affinity and tolerated taints), created as the real controller does since 1.12 — `generateName`
 * `<ds>-`, pinned to its node by a required `matchFields metadata.name In [<node>]` affinity that the
 * scheduler then honours, with the DaemonSet tolerations (not-ready, unreachable, the pressure taints,
 * unschedulable), labels `controller-revision-hash` and `pod-template-generation`, and a
 * ControllerRevision per template. Pods on nodes that no longer qualify (or are gone) are deleted, failed
 * pods are replaced, and an outdated template rolls one pod at a time (maxUnavailable 1).
 */

import { ctrlRef, isPodActive, isPodReady, mergeMaps } from './meta.ts';
import { buildPod } from './pods.ts';
import { templateHash } from './random.ts';
import { isPodAvailable } from './replicaset.ts';
import type { Controller, Runtime } from './runtime.ts';
import { placementRejects } from './scheduler-fit.ts';
import type { Dict, KubeObject, Pod, PodTemplateSpec, Taint, Toleration } from './types.ts';

interface DaemonSetSpec {
  selector?: { matchLabels?: Record<string, string> };
  template: PodTemplateSpec;
  minReadySeconds?: number;
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { maxUnavailable?: number } };
}

/** The tolerations the DaemonSet controller adds to every pod it creates (pkg/controller/daemon/util). */
const DAEMON_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** The template's affinity with every required term pinned to `node` (as the controller rewrites it). */
function pinnedAffinity(affinity: Dict | undefined, node: string): Dict {
  const na = (affinity?.nodeAffinity ?? {}) as Dict;
  const req = na.requiredDuringSchedulingIgnoredDuringExecution as { nodeSelectorTerms?: Array<Record<string, unknown>> } | undefined;
  const pin = [{ key: 'metadata.name', operator: 'In', values: [node] }];
  const terms = req?.nodeSelectorTerms?.length ? req.nodeSelectorTerms.map((t) => ({ ...t, matchFields: pin })) : [{ matchFields: pin }];
  return { ...(affinity ?? {}), nodeAffinity: { ...na, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } };
}

/** Pure: the pod the DaemonSet runs on `node`. */
export function daemonPod(ds: KubeObject, node: string, revisionHash: string): Pod {
  const spec = ds.spec as DaemonSetSpec;
  const t = spec.template;
  const tolerations = [...(t.spec.tolerations ?? [])];
  for (const tol of DAEMON_TOLERATIONS) if (!tolerations.some((x) => x.key === tol.key && x.effect === tol.effect)) tolerations.push(tol);
  const pod = buildPod({
    namespace: ds.metadata.namespace!,
    generateName: `${ds.metadata.name}-`,
    template: { ...t, spec: { ...t.spec, tolerations, affinity: pinnedAffinity(t.spec.affinity, node) } },
    labels: mergeMaps(t.metadata?.labels, { 'controller-revision-hash': revisionHash, 'pod-template-generation': String(ds.metadata.generation ?? 1) }),
    ownerRef: ctrlRef(ds),
  });
  return pod;
}

/** The node a DaemonSet pod is pinned to (its binding, else its affinity). */
function nodeOfPod(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  const terms = ((pod.spec.affinity?.nodeAffinity as Dict | undefined)?.requiredDuringSchedulingIgnoredDuringExecution as { nodeSelectorTerms?: Array<{ matchFields?: Array<{ key: string; values?: string[] }> }> } | undefined)?.nodeSelectorTerms;
  return terms?.[0]?.matchFields?.find((f) => f.key === 'metadata.name')?.values?.[0];
}

export class DaemonSetController implements Controller {
  readonly name = 'daemonset';
  readonly primary = 'apps/DaemonSet';
  readonly priority = 1;
  readonly owns = ['/Pod'];
  /** Any node change may add or remove a daemon pod: every DaemonSet looks again. */
  readonly watches = [{ gk: '/Node', map: (_: KubeObject, rt: Runtime): Array<[string, string]> => rt.list('apps/v1', 'DaemonSet').map((d) => [d.metadata.namespace!, d.metadata.name!]) }];

  reconcile(rt: Runtime, ns: string, name: string): void {
    const ds = rt.get('apps/v1', 'DaemonSet', ns, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const spec = ds.spec as DaemonSetSpec;
    const hash = templateHash(spec.template);
    const revision = `${name}-${hash}`;
    if (!rt.get('apps/v1', 'ControllerRevision', ns, revision)) {
      rt.create({
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: { name: revision, namespace: ns, labels: mergeMaps(spec.template.metadata?.labels, { 'controller-revision-hash': hash }), ownerReferences: [ctrlRef(ds)] },
        data: { spec: { template: { ...spec.template, $patch: 'replace' } } },
        revision: rt.children(ds, 'apps/ControllerRevision').length + 1,
      });
    }
    // Which nodes qualify: the template's selector, affinity and tolerations plus the daemon tolerations.
    const probe = daemonPod(ds, '', hash);
    const asTemplate = { ...probe, spec: { ...probe.spec, affinity: spec.template.spec.affinity } };
    const wanted = new Set<string>();
    for (const n of rt.list('v1', 'Node')) {
      const node = { name: n.metadata.name!, labels: n.metadata.labels ?? {}, taints: ((n.spec ?? {}) as { taints?: Taint[] }).taints ?? [] };
      if (!placementRejects(node, asTemplate)) wanted.add(node.name);
    }
    const pods = rt.children<Pod>(ds, '/Pod');
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) {
      const node = nodeOfPod(p);
      if (!node) continue;
      const list = byNode.get(node);
      if (list) list.push(p);
      else byNode.set(node, [p]);
    }
    let misscheduled = 0;
    for (const [node, list] of byNode) {
      const live = list.filter((p) => !p.metadata.deletionTimestamp);
      if (!wanted.has(node)) {
        misscheduled += live.filter((p) => !!p.spec.nodeName).length;
        for (const p of live) rt.delete(p);
        continue;
      }
      // Failed pods are replaced; of several, the oldest stays.
      for (const p of live.filter((x) => x.status?.phase === 'Failed' || x.status?.phase === 'Succeeded')) rt.delete(p);
      for (const p of live.filter(isPodActive).slice(1)) rt.delete(p);
    }
    for (const node of [...wanted].sort()) {
      const active = (byNode.get(node) ?? []).filter(isPodActive);
      if (active.length === 0) rt.createPod(daemonPod(ds, node, hash));
    }
    const current = pods.filter((p) => isPodActive(p) && wanted.has(nodeOfPod(p) ?? ''));
    const outdated = current.filter((p) => p.metadata.labels?.['controller-revision-hash'] !== hash);
    if ((spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && outdated.length > 0) {
      const maxUnavailable = spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
      const unavailable = current.filter((p) => !isPodReady(p)).length;
      for (const p of outdated.slice(0, Math.max(0, maxUnavailable - unavailable))) rt.delete(p);
    }
    const scheduled = current.filter((p) => !!p.spec.nodeName);
    const ready = scheduled.filter(isPodReady).length;
    const available = scheduled.filter((p) => isPodAvailable(p, spec.minReadySeconds ?? 0, rt.nowMs())).length;
    const status: Record<string, unknown> = {
      currentNumberScheduled: scheduled.length,
      desiredNumberScheduled: wanted.size,
      numberMisscheduled: misscheduled,
      numberReady: ready,
      observedGeneration: ds.metadata.generation ?? 1,
      updatedNumberScheduled: scheduled.filter((p) => p.metadata.labels?.['controller-revision-hash'] === hash).length,
    };
    // Zero counts other than the required ones are omitempty in the API.
    if (available > 0) status.numberAvailable = available;
    if (wanted.size - available > 0) status.numberUnavailable = wanted.size - available;
    rt.setStatus(ds, status);
  }
}
