/**
 * The gang-scheduling preview as the workload page shows it: one row per PodGroup, and a summary
 * (count, sizes, members scheduled) that stands in for the list when there are many groups — a
 * workload of 1,945 one-pod gangs gets three lines and a list on demand, not 1,945 boxes.
 */
import type { GangPodGroup, WorkloadTree } from '../../contract/index.ts';

/** Up to this many PodGroups are listed as they are; more are summarised and listed on demand. */
export const GANG_LIST_LIMIT = 5;

export interface GangRow {
  name: string;
  namespace: string;
  /** What the group waits for: minMember, or the sum of its sub-groups' minMember; null when neither is set. */
  size: number | null;
  /** Pods that would carry the group, and how many of them are bound to a node. */
  pods: number;
  scheduled: number;
  /** Scheduled pods reach the size (every pod when the size is unknown). */
  satisfied: boolean;
  group: GangPodGroup;
}

export interface GangSummary {
  groups: number;
  /** Distinct sizes, smallest first (unknown last), with how many groups have each. */
  sizes: Array<{ size: number | null; groups: number }>;
  pods: number;
  scheduled: number;
  satisfied: number;
  /** True when there are more groups than GANG_LIST_LIMIT: show the summary, list on demand. */
  collapsed: boolean;
}

export function gangSize(g: GangPodGroup): number | null {
  if (g.minMember !== null) return g.minMember;
  return g.subGroups.length > 0 ? g.subGroups.reduce((s, x) => s + x.minMember, 0) : null;
}

export function gangRows(tree: WorkloadTree): GangRow[] {
  const bound = new Set<string>();
  for (const p of [...tree.pods, ...tree.unmatchedPods]) if (p.node !== null) bound.add(p.name);
  return tree.gang.map((g) => {
    const size = gangSize(g);
    const scheduled = g.pods.reduce((n, name) => n + (bound.has(name) ? 1 : 0), 0);
    return { name: g.name, namespace: g.namespace, size, pods: g.pods.length, scheduled, satisfied: scheduled >= (size ?? g.pods.length), group: g };
  });
}

export function summariseGangs(rows: readonly GangRow[], limit = GANG_LIST_LIMIT): GangSummary {
  const bySize = new Map<number | null, number>();
  let pods = 0;
  let scheduled = 0;
  let satisfied = 0;
  for (const r of rows) {
    bySize.set(r.size, (bySize.get(r.size) ?? 0) + 1);
    pods += r.pods;
    scheduled += r.scheduled;
    if (r.satisfied) satisfied++;
  }
  const sizes = [...bySize].map(([size, groups]) => ({ size, groups })).sort((a, b) => (a.size ?? Infinity) - (b.size ?? Infinity));
  return { groups: rows.length, sizes, pods, scheduled, satisfied, collapsed: rows.length > limit };
}

const count = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** `size 1 × 1,945`, or `sizes 1 × 1,900, 4 × 45` (at most `max` sizes, then how many more). */
export function sizesText(sizes: GangSummary['sizes'], max = 6): string {
  const shown = sizes.slice(0, max).map((s) => `${s.size ?? 'unset'} × ${count(s.groups)}`);
  const more = sizes.length > max ? `, ${plural(sizes.length - max, 'more size')}` : '';
  return `${sizes.length === 1 ? 'size' : 'sizes'} ${shown.join(', ')}${more}`;
}

/** In words: `1,945 PodGroups · size 1 × 1,945 · 1,940 of 1,945 pods scheduled · 1,940 of 1,945 groups fully scheduled`. */
export function summaryText(s: GangSummary): string {
  return [plural(s.groups, 'PodGroup'), sizesText(s.sizes), `${count(s.scheduled)} of ${plural(s.pods, 'pod')} scheduled`, `${count(s.satisfied)} of ${plural(s.groups, 'group')} fully scheduled`].join(' · ');
}
