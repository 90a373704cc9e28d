/** Turning a workload tree into the row the table shows. Pure. */
import type { TreeCondition, TreePod, WorkloadTree } from '../engine/index.ts';
import { rowId, type WorkloadRow } from './row.ts';
import { rowWhy } from './row-why.ts';

/**
 * The word for `n` of a role's pods, in English: `leader`, `workers`, `proxies`, `indexes`; a role named
 * after an object kind counts pods (`pods`, never `statefulsets`), and so does one whose name is no noun
 * to count (`gpu-group pods`, `worker-0 pods`); a name that already ends in `s` stays as it is.
 */
function plural(name: string, n: number): string {
  // Kinds (lower case) a definition names the role of its pods after: the count is pods, not objects.
  const podKinds = ['pod', 'deployment', 'statefulset', 'replicaset', 'daemonset', 'job', 'cronjob', 'replicatedjob', 'revision', 'leaderworkerset', 'podclique', 'podcliqueset'];
  const last = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  const pods = n === 1 ? 'pod' : 'pods';
  if (podKinds.includes(last)) return pods;
  if (!/[a-z]$/i.test(name) || /(group|set|pool|gang)$/.test(last)) return `${name} ${pods}`;
  if (n === 1 || /s$/i.test(name)) return name;
  const upper = /[A-Z]$/.test(name) && !/[a-z]/.test(name.slice(-2));
  const add = (suffix: string) => (upper ? suffix.toUpperCase() : suffix);
  if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}${add('ies')}`;
  if (/(x|z|ch|sh)$/i.test(name)) return `${name}${add('es')}`;
  return `${name}${add('s')}`;
}

/**
 * The row's roles in a line, each as the pods it asks for: `1 leader · 2 workers`, `3 pods`. Roles that
 * are plain pods (named after their kind) count together, in the place of the first.
 */
export function rolesSummary(roles: WorkloadTree['roles']): string {
  const parts: Array<{ name: string | null; pods: number }> = [];
  let plain: { name: null; pods: number } | null = null;
  for (const r of roles) {
    if (plural(r.name, 1) !== 'pod') parts.push({ name: r.name, pods: r.desiredPods });
    else if (plain) plain.pods += r.desiredPods;
    else parts.push((plain = { name: null, pods: r.desiredPods }));
  }
  return parts.map((p) => `${p.pods} ${p.name === null ? (p.pods === 1 ? 'pod' : 'pods') : plural(p.name, p.pods)}`).join(' · ');
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

/** The amounts whose devices' worth is unknown, by figure, when there are any. */
function apartOf(tree: WorkloadTree): { apart?: WorkloadRow['gpus']['apart'] } {
  const apart: NonNullable<WorkloadRow['gpus']['apart']> = {};
  for (const f of ['allocated', 'requested', 'desired'] as const) if (tree.gpus[f].apart) apart[f] = tree.gpus[f].apart;
  return Object.keys(apart).length > 0 ? { apart } : {};
}

/** Ready and total pods; `done` (finished successfully) only when there are some, so rows stay small. */
function podCounts(pods: readonly TreePod[]): WorkloadRow['pods'] {
  let ready = 0;
  let done = 0;
  for (const p of pods) {
    if (p.ready) ready++;
    else if (p.phase === 'Succeeded') done++;
  }
  return done > 0 ? { ready, total: pods.length, done } : { ready, total: pods.length };
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
      ...apartOf(tree),
    },
    pods: podCounts(allPods),
    why: rowWhy(tree),
    roles: tree.roles.map((r) => ({ name: r.name, pods: r.livePods, desired: r.desiredPods })),
    rolesSummary: rolesSummary(tree.roles),
    createdAt,
    definition: tree.definition,
    ownership: { ownedBy: null, broken: null },
    errors: tree.errors.slice(0, 20).map((e) => e.message),
    stale: null,
    usage: null,
  };
}
