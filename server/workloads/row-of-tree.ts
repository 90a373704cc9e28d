/** Turning a workload tree into the row the table shows. Pure. */
import type { TreeCondition, WorkloadTree } from '../engine/index.ts';
import { rowId, type WorkloadRow } from './row.ts';

function plural(name: string, n: number): string {
  if (n === 1 || name.endsWith('s')) return name;
  return `${name}s`;
}

export function rolesSummary(roles: WorkloadTree['roles']): string {
  return roles.map((r) => `${r.desiredPods} ${plural(r.name, r.desiredPods)}`).join(' · ');
}

const STATUS_CONDITION_HINTS: Record<string, string[]> = {
  Failed: ['Failed', 'Ready', 'Available'],
  Completed: ['Completed', 'Complete', 'Succeeded'],
  Suspended: ['Suspended'],
  Running: ['Running', 'Ready', 'Available'],
  Degraded: ['Ready', 'Available', 'Degraded'],
  Initializing: ['Ready', 'Available', 'Progressing', 'Initializing', 'Created'],
};

/** The native reason behind a status: the phase, else the deciding condition's reason and message. */
export function statusReason(tree: WorkloadTree): string | null {
  const primary = tree.status.matched[0];
  const conds = tree.status.conditions;
  const describe = (c: TreeCondition) => [`${c.type}=${c.status ?? '?'}`, c.reason, c.message].filter((x) => x).join(': ');
  for (const hint of STATUS_CONDITION_HINTS[primary] ?? []) {
    const c = conds.find((x) => x.type === hint);
    if (c && (c.reason || c.message)) return describe(c);
  }
  if (tree.status.phase) return tree.status.phase;
  const withReason = conds.find((c) => c.reason);
  return withReason ? describe(withReason) : null;
}

export function rowOfTree(tree: WorkloadTree, createdAt: string | null): WorkloadRow {
  const w = tree.workload;
  const allPods = [...tree.pods, ...tree.unmatchedPods];
  return {
    id: rowId(w),
    cluster: w.cluster,
    namespace: w.namespace,
    apiVersion: w.apiVersion,
    kind: w.kind,
    name: w.name,
    uid: w.uid,
    status: tree.status.matched[0],
    statuses: tree.status.matched,
    statusReason: statusReason(tree),
    gpus: {
      allocated: tree.gpus.allocated.total,
      requested: tree.gpus.requested.total,
      desired: tree.gpus.desired.total,
      byResource: { allocated: tree.gpus.allocated.byResource, requested: tree.gpus.requested.byResource, desired: tree.gpus.desired.byResource },
      // Without a definition no template says what the workload asks for; a replica count the API
      // server would refuse leaves it unknown too.
      unknown: tree.definition.source === 'none' || tree.errors.some((e) => e.code === 'object.replicas') ? ['desired'] : [],
    },
    pods: { ready: allPods.filter((p) => p.ready).length, total: allPods.length },
    roles: tree.roles.map((r) => ({ name: r.name, pods: r.livePods, desired: r.desiredPods })),
    rolesSummary: rolesSummary(tree.roles),
    createdAt,
    definition: tree.definition,
    ownership: { ownedBy: null, broken: null },
    errors: tree.errors.slice(0, 20).map((e) => e.message),
    stale: null,
  };
}
