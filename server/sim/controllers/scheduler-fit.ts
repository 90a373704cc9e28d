/**
 * The scheduler's pure part: what a node offers (NodeInfo), whether a pod fits it (the filter plugins the
 * simulated scheduler implements: unschedulable, readiness, taints, node selector and affinity, pod count
 * and resources), and the messages a pod that fits nowhere carries.
 */

import { isGpuResource, parseQuantity } from './quantity.ts';
import type { Resources } from './quantity.ts';
import type { Dict, KubeObject, Pod, StringMap, Taint, Toleration } from './types.ts';

export interface NodeInfo {
  name: string;
  allocatable: Resources;
  used: Resources;
  labels: StringMap;
  taints: Taint[];
  unschedulable: boolean;
  ready: boolean;
  hasGpu: boolean;
  pods: number;
}

/** Pure: why a node cannot run a pod (empty when it can). Filter order follows the default plugins. */
export function nodeRejects(node: NodeInfo, pod: Pod, req: Resources): string[] {
  if (node.unschedulable) return ['node(s) were unschedulable'];
  if (!node.ready) return ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }'];
  const placement = placementRejects(node, pod);
  if (placement) return [placement];
  const out: string[] = [];
  if (node.pods + 1 > (node.allocatable.pods ?? 110)) out.push('Too many pods');
  for (const r in req) {
    if (r === 'pods') continue;
    const free = (node.allocatable[r] ?? 0) - (node.used[r] ?? 0);
    if (req[r] > free + 1e-9) out.push(`Insufficient ${r}`);
  }
  return out;
}

/**
 * Pure: whether the pod may be placed on the node at all — taints it does not tolerate, its node selector
 * and required node affinity (labels and `metadata.name` fields) — whatever the node's free capacity.
 * The DaemonSet controller asks this to decide which nodes get a pod.
 */
export function placementRejects(node: Pick<NodeInfo, 'name' | 'labels' | 'taints'>, pod: Pod): string | undefined {
  for (const t of node.taints) {
    if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
    if (!tolerates(pod.spec.tolerations ?? [], t)) return `node(s) had untolerated taint {${t.key}: ${t.value ?? ''}}`;
  }
  if (!selectorMatches(node.labels, pod.spec.nodeSelector) || !affinityMatches(node.name, node.labels, pod.spec.affinity)) {
    return "node(s) didn't match Pod's node affinity/selector";
  }
  return undefined;
}

function tolerates(tols: Toleration[], t: Taint): boolean {
  return tols.some((x) => {
    if (x.effect && x.effect !== t.effect) return false;
    if (!x.key) return x.operator === 'Exists';
    if (x.key !== t.key) return false;
    return x.operator === 'Exists' || (x.value ?? '') === (t.value ?? '');
  });
}

function selectorMatches(labels: StringMap, sel: StringMap | undefined): boolean {
  if (!sel) return true;
  for (const k in sel) if (labels[k] !== sel[k]) return false;
  return true;
}

interface MatchExpression {
  key: string;
  operator: string;
  values?: string[];
}

interface NodeSelectorTerm {
  matchExpressions?: MatchExpression[];
  matchFields?: MatchExpression[];
}

function requiredTerms(affinity: Dict | undefined): NodeSelectorTerm[] | undefined {
  const req = (affinity?.nodeAffinity as Dict | undefined)?.requiredDuringSchedulingIgnoredDuringExecution as { nodeSelectorTerms?: NodeSelectorTerm[] } | undefined;
  return req?.nodeSelectorTerms;
}

/**
 * The only nodes a pod's required affinity can match when every term pins `metadata.name` (what the
 * DaemonSet controller writes): the scheduler's NodeAffinity PreFilter, which spares a scan of all nodes.
 */
export function pinnedNodeNames(affinity: Dict | undefined): string[] | undefined {
  const terms = requiredTerms(affinity);
  if (!terms || terms.length === 0) return undefined;
  const names: string[] = [];
  for (const t of terms) {
    const f = (t.matchFields ?? []).find((e) => e.key === 'metadata.name' && e.operator === 'In');
    if (!f) return undefined;
    names.push(...(f.values ?? []));
  }
  return names;
}

function expressionMatches(e: MatchExpression, v: string | undefined): boolean {
  switch (e.operator) {
    case 'In':
      return v !== undefined && (e.values ?? []).includes(v);
    case 'NotIn':
      return v === undefined || !(e.values ?? []).includes(v);
    case 'Exists':
      return v !== undefined;
    case 'DoesNotExist':
      return v === undefined;
    case 'Gt':
      return v !== undefined && Number(v) > Number(e.values?.[0]);
    case 'Lt':
      return v !== undefined && Number(v) < Number(e.values?.[0]);
    default:
      return false;
  }
}

function affinityMatches(name: string, labels: StringMap, affinity: Dict | undefined): boolean {
  const terms = requiredTerms(affinity);
  if (!terms || terms.length === 0) return true;
  return terms.some((term) => {
    const exprs = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    // An empty term matches no node, as in the API.
    if (exprs.length === 0 && fields.length === 0) return false;
    return exprs.every((e) => expressionMatches(e, labels[e.key])) && fields.every((e) => e.key === 'metadata.name' && expressionMatches(e, name));
  });
}

/** Pure: the scheduler's FitError message, e.g. "0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: …". */
export function unschedulableMessage(total: number, reasons: Map<string, number>, resourceNodes: number): string {
  if (total === 0) return 'no nodes available to schedule pods';
  // kube-scheduler sorts the "<count> <reason>" strings themselves (Go's byte order), count included.
  const parts = [...reasons.entries()].map(([r, n]) => `${n} ${r}`).sort();
  const pre: string[] = [];
  if (resourceNodes > 0) pre.push(`${resourceNodes} No preemption victims found for incoming pod`);
  if (total - resourceNodes > 0) pre.push(`${total - resourceNodes} Preemption is not helpful for scheduling`);
  pre.sort();
  return `0/${total} nodes are available: ${parts.join(', ')}. preemption: 0/${total} nodes are available: ${pre.join(', ')}.`;
}

/** A node as the scheduler sees it; `used` and the pod count carry over from `prev` (the same node before). */
export function nodeInfoFrom(node: KubeObject, prev: NodeInfo | undefined): NodeInfo {
  const status = (node.status ?? {}) as { allocatable?: Record<string, string>; capacity?: Record<string, string>; conditions?: Array<{ type: string; status: string }> };
  const spec = (node.spec ?? {}) as { taints?: Taint[]; unschedulable?: boolean };
  const alloc: Resources = {};
  const src = status.allocatable ?? status.capacity ?? {};
  for (const k in src) alloc[k] = parseQuantity(src[k]);
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  let hasGpu = false;
  for (const k in alloc) if (isGpuResource(k) && alloc[k] > 0) hasGpu = true;
  return {
    name: node.metadata.name!,
    allocatable: alloc,
    used: prev?.used ?? {},
    labels: node.metadata.labels ?? {},
    taints: spec.taints ?? [],
    unschedulable: !!spec.unschedulable,
    ready: !ready || ready.status === 'True',
    hasGpu,
    pods: prev?.pods ?? 0,
  };
}
