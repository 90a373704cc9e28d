/**
 * Which rows a user may see in shared mode: those whose root kind they may list in the row's
 * namespace. Asked once per cluster and kind cluster-wide (a ClusterRoleBinding answers for every
 * namespace at once) and, where that is denied, once per namespace that has such rows — never per
 * row. The check itself (a cached access review) is the caller's; this module only knows rows and
 * the clusters' discovery (which plural a kind is served as).
 */
import { groupOfApiVersion } from '../../lib/rows/identity.ts';
import type { LiveWorkloads } from './live.ts';
import type { WorkloadRow } from './row.ts';

export interface ListQuestion {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
}

export type MayCheck = (cluster: string, q: ListQuestion) => Promise<{ allowed: boolean }>;

export interface RowScope {
  test(row: WorkloadRow): boolean;
  /** Whether this scope has decided on the row's namespace and kind (a row of a new namespace has not). */
  knows(row: WorkloadRow): boolean;
  /** What is visible, as one string: two scopes with the same key show the same rows. */
  key: string;
}

/** Everything (local mode, the server's own identity). */
export const ALL_ROWS: RowScope = { test: () => true, knows: () => true, key: '*' };

const CONCURRENCY = 16;

async function inBatches<T>(items: T[], fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}


/** `cluster\0group\0kind` → the namespaces (''= cluster-scoped) its rows are in. */
function kindsAndNamespaces(rows: readonly WorkloadRow[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    const k = `${r.cluster}\u0000${groupOfApiVersion(r.apiVersion)}\u0000${r.kind}`;
    let s = out.get(k);
    if (!s) out.set(k, (s = new Set()));
    s.add(r.namespace);
  }
  return out;
}

/** The rows `may` lets the user list, decided for the rows there are now (new namespaces are asked on the next scope). */
/** The kinds and namespaces of every row, kept while the index has not changed (many users ask at once). */
const shapes = new WeakMap<object, { seq: number; groups: Map<string, Set<string>> }>();

function indexShape(live: LiveWorkloads): Map<string, Set<string>> {
  const seq = live.index.currentSeq;
  const hit = shapes.get(live.index);
  if (hit && hit.seq === seq) return hit.groups;
  const groups = kindsAndNamespaces(live.index.allRows());
  shapes.set(live.index, { seq, groups });
  return groups;
}

export async function rowScope(live: LiveWorkloads, may: MayCheck, rows?: readonly WorkloadRow[]): Promise<RowScope> {
  const visible = new Set<string>();
  const everywhere = new Set<string>();
  const decided = new Set<string>();
  const groups = [...(rows ? kindsAndNamespaces(rows) : indexShape(live))];
  await inBatches(groups, async ([k, namespaces]) => {
    const [cluster, group, kind] = k.split('\u0000');
    const served = live.connection(cluster)?.servedResources().find((r) => r.group === group && r.kind === kind);
    // A kind the cluster does not serve (any more) cannot be listed: its rows are nobody's to see.
    if (!served || (await may(cluster, { verb: 'list', group, resource: served.resource })).allowed) {
      decided.add(k);
      if (served) everywhere.add(k);
      return;
    }
    if (!served.namespaced) {
      decided.add(k);
      return;
    }
    await inBatches([...namespaces], async (ns) => {
      decided.add(`${k}\u0000${ns}`);
      if ((await may(cluster, { verb: 'list', group, resource: served.resource, namespace: ns })).allowed) visible.add(`${k}\u0000${ns}`);
    });
  });
  const keyOf = (r: WorkloadRow) => `${r.cluster}\u0000${groupOfApiVersion(r.apiVersion)}\u0000${r.kind}`;
  const test = (r: WorkloadRow) => {
    const k = keyOf(r);
    return everywhere.has(k) || visible.has(`${k}\u0000${r.namespace}`);
  };
  const knows = (r: WorkloadRow) => {
    const k = keyOf(r);
    return decided.has(k) || decided.has(`${k}\u0000${r.namespace}`);
  };
  return { test, knows, key: `${[...everywhere].sort().join('|')}#${[...visible].sort().join('|')}` };
}

/** One row's visibility, by the same rule as rowScope (for a page or an API path that names one workload). */
export async function mayListRow(live: LiveWorkloads, may: MayCheck, row: WorkloadRow): Promise<boolean> {
  return (await rowScope(live, may, [row])).test(row);
}
