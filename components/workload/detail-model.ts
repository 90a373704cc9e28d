/** Tables of the workload page, derived from the tree: GPUs by resource, roles, pods. */
import type { GpuAmounts, TreePod, WorkloadTree } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { describeResource } from '../workloads/format.ts';
import { emptyParts } from '../graph/build-graph.ts';
import { naturalCompare, roleCompare } from '../../lib/format/natural-order.ts';

export interface GpuResourceRow {
  resource: string;
  label: string;
  mig: boolean;
  desired: number;
  requested: number;
  allocated: number;
}

export function gpuByResource(tree: WorkloadTree): GpuResourceRow[] {
  const names = new Set<string>([...Object.keys(tree.gpus.desired.byResource), ...Object.keys(tree.gpus.requested.byResource), ...Object.keys(tree.gpus.allocated.byResource)]);
  return [...names].sort().map((resource) => ({
    resource,
    ...describeResource(resource),
    desired: tree.gpus.desired.byResource[resource] ?? 0,
    requested: tree.gpus.requested.byResource[resource] ?? 0,
    allocated: tree.gpus.allocated.byResource[resource] ?? 0,
  }));
}

export function perPodText(a: GpuAmounts): string {
  const parts = Object.entries(a)
    .filter(([, n]) => n > 0)
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([r, n]) => `${formatGpus(n)} ${describeResource(r).label}`);
  return parts.length ? parts.join(' + ') : '—';
}

export interface RoleRow {
  name: string;
  component: string;
  instance: string;
  instances: number;
  desired: number;
  live: number;
  ready: number;
  gpusPerPod: string;
  /** The role's instance's GPUs as the tree reports them (null when the tree has no such instance). */
  gpus: { allocated: number; requested: number; desired: number } | null;
  /** No pod and none asked for (the graph's empty components): hidden unless the user asks. */
  empty: boolean;
  /** The most frequent reason its pods are not running and ready, with how many say it. */
  why: { reason: string; message: string; pods: number } | null;
}

/** The most frequent `why` among pods (null when none has one). */
export function commonWhy(pods: readonly TreePod[]): RoleRow['why'] {
  const counts = new Map<string, { reason: string; message: string; pods: number }>();
  for (const p of pods) {
    if (!p.why) continue;
    const c = counts.get(p.why.reason);
    if (c) c.pods++;
    else counts.set(p.why.reason, { reason: p.why.reason, message: p.why.message, pods: 1 });
  }
  let best: RoleRow['why'] = null;
  for (const c of counts.values()) if (!best || c.pods > best.pods) best = c;
  return best;
}

export function roleRows(tree: WorkloadTree): RoleRow[] {
  const empty = emptyParts(tree);
  const podsOf = new Map<string, TreePod[]>();
  for (const p of tree.pods) {
    const key = `${p.component}\u0000${p.instance ?? ''}`;
    const list = podsOf.get(key);
    if (list) list.push(p);
    else podsOf.set(key, [p]);
  }
  return tree.roles.map((r) => {
    const c = tree.components.find((x) => x.name === r.component);
    const g = c?.instances.find((i) => i.id === r.instance)?.gpus;
    return {
      name: r.name,
      component: r.component,
      instance: r.instance,
      instances: c ? Math.max(1, c.instances.length) : 1,
      desired: r.desiredPods,
      live: r.livePods,
      ready: r.readyPods,
      gpusPerPod: perPodText(r.gpusPerPod),
      gpus: g ? { allocated: g.allocated.total, requested: g.requested.total, desired: g.desired.total } : null,
      empty: empty.components.has(r.component) || empty.instances.has(`${r.component}\u0000${r.instance}`),
      why: commonWhy(podsOf.get(`${r.component}\u0000${r.instance}`) ?? []),
    };
  });
}

/** The roles to list (the empty ones only when asked for) and how many empty ones there are. */
export function visibleRoles(rows: readonly RoleRow[], showEmpty: boolean): { rows: RoleRow[]; hidden: number; empty: number } {
  const empty = rows.filter((r) => r.empty).length;
  const shown = showEmpty ? [...rows] : rows.filter((r) => !r.empty);
  return { rows: shown, hidden: rows.length - shown.length, empty };
}

export interface PodRow {
  pod: TreePod;
  role: string;
  gpus: string;
  unmatched: boolean;
}

/** Pods by role (leader first), then name in natural order (worker-2 before worker-10); unmatched pods last. */
export function podRows(tree: WorkloadTree): PodRow[] {
  const role = (p: TreePod) => (p.instance ? p.instance : (p.component ?? ''));
  const rows = tree.pods.map((pod) => ({ pod, role: role(pod), gpus: perPodText(pod.gpus), unmatched: false }));
  rows.sort((a, b) => roleCompare(a.role, b.role) || naturalCompare(a.pod.name, b.pod.name));
  for (const pod of [...tree.unmatchedPods].sort((a, b) => naturalCompare(a.name, b.name))) rows.push({ pod, role: '(unmatched)', gpus: perPodText(pod.gpus), unmatched: true });
  return rows;
}
