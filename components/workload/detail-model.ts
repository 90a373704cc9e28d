/** Tables of the workload page, derived from the tree: GPUs by resource, roles, pods. */
import type { GpuAmounts, TreePod, WorkloadTree } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { describeResource } from '../workloads/format.ts';
import { emptyParts } from '../graph/build-graph.ts';

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
}

export function roleRows(tree: WorkloadTree): RoleRow[] {
  const empty = emptyParts(tree);
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

/** Pods by role, then name; unmatched pods last. */
export function podRows(tree: WorkloadTree): PodRow[] {
  const role = (p: TreePod) => (p.instance ? p.instance : (p.component ?? ''));
  const rows = tree.pods.map((pod) => ({ pod, role: role(pod), gpus: perPodText(pod.gpus), unmatched: false }));
  rows.sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : a.pod.name < b.pod.name ? -1 : a.pod.name > b.pod.name ? 1 : 0));
  for (const pod of [...tree.unmatchedPods].sort((a, b) => (a.name < b.name ? -1 : 1))) rows.push({ pod, role: '(unmatched)', gpus: perPodText(pod.gpus), unmatched: true });
  return rows;
}
