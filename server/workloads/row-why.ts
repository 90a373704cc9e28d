/**
 * The "why" of a row: among the workload's pods that are not running and ready, the most frequent
 * reason (the scheduler's, a container's, the pod's), with one pod's message and, when those pods
 * wait as a gang, how far their PodGroup is. Pure.
 */
import type { PodWhy, TreePod, WorkloadTree } from '../engine/index.ts';
import type { RowWhy } from './row.ts';

/** On a tie, the reason that tells more about what to do comes first. */
const WEIGHT: Record<PodWhy['kind'], number> = { failed: 6, unschedulable: 5, gated: 4, waiting: 3, unscheduled: 2, unready: 1 };

export function rowWhy(tree: WorkloadTree): RowWhy | null {
  const groups = new Map<string, { why: PodWhy; pods: TreePod[] }>();
  let total = 0;
  for (const list of [tree.pods, tree.unmatchedPods]) {
    for (const p of list) {
      if (!p.why) continue;
      total++;
      const key = `${p.why.kind}\u0000${p.why.reason}`;
      const g = groups.get(key);
      if (g) g.pods.push(p);
      else groups.set(key, { why: p.why, pods: [p] });
    }
  }
  let best: { why: PodWhy; pods: TreePod[] } | null = null;
  for (const g of groups.values()) {
    if (!best || g.pods.length > best.pods.length || (g.pods.length === best.pods.length && WEIGHT[g.why.kind] > WEIGHT[best.why.kind])) best = g;
  }
  if (!best) return null;
  const out: RowWhy = { kind: best.why.kind, reason: best.why.reason, message: best.why.message, pods: best.pods.length, otherPods: total - best.pods.length };
  const gang = waitingGang(tree, best);
  if (gang) out.gang = gang;
  return out;
}

/** The PodGroup that the first of these pods belongs to, when they have not been placed yet. */
function waitingGang(tree: WorkloadTree, best: { why: PodWhy; pods: TreePod[] }): RowWhy['gang'] | null {
  if (tree.gang.length === 0 || !['unschedulable', 'gated', 'unscheduled'].includes(best.why.kind)) return null;
  const name = best.pods[0].name;
  const group = tree.gang.find((g) => g.pods.includes(name));
  if (!group) return null;
  const members = new Set(group.pods);
  let scheduled = 0;
  for (const p of tree.pods) if (members.has(p.name) && p.node) scheduled++;
  return { name: group.name, scheduled, minMember: group.minMember };
}
