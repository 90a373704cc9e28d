/**
 * The workload page's utilization rows, from `detail.usage`: one per role (in the tree's order),
 * with its instances when it has several, so that an imbalance between roles stands out. Pure.
 */
import type { UsageFigures, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';

export interface InstanceUsageRow {
  component: string;
  instance: string;
  figures: UsageFigures;
}

export interface RoleUsageRow {
  name: string;
  figures: UsageFigures;
  /** The role's instances, listed only when there are several. */
  instances: InstanceUsageRow[];
}

export function roleUsageRows(tree: Pick<WorkloadTree, 'roles'>, usage: WorkloadUsage): RoleUsageRow[] {
  const instanceFigures = new Map(usage.instances.map((i) => [`${i.component}\u0000${i.instance}`, i]));
  return usage.roles.map((r) => {
    // A role's instances are the (component, instance) pairs the tree names it for.
    const seen = new Set<string>();
    const instances: InstanceUsageRow[] = [];
    for (const tr of tree.roles) {
      if (tr.name !== r.name) continue;
      const k = `${tr.component}\u0000${tr.instance}`;
      const f = instanceFigures.get(k);
      if (f && !seen.has(k)) {
        seen.add(k);
        instances.push(f);
      }
    }
    return { name: r.name, figures: r.figures, instances: instances.length > 1 ? instances : [] };
  });
}

/** Used GPUs' worth out of allocated (or measured, when not every GPU has readings): `3.2 / 4`. */
export function usedOfText(f: UsageFigures, format: (n: number) => string): string {
  if (f.used === null) return 'n/a';
  return f.measured < f.allocated ? `${format(f.used)} / ${format(f.measured)} measured of ${format(f.allocated)}` : `${format(f.used)} / ${format(f.allocated)}`;
}
