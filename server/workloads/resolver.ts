/**
 * Resolving one workload root of the live index: the definitions that serve its kind, what it
 * owns, the workload tree, and its row. Pure over the owner graph and the definitions.
 */
import { resolveWorkload, type KubeObject, type WorkloadTree } from '../engine/index.ts';
import type { DefinitionSet } from './definitions.ts';
import { groupKindOf } from './group-kind.ts';
import type { OwnerGraph } from './owner-graph.ts';
import { rowOfTree } from './row-of-tree.ts';
import type { WorkloadRow } from './row.ts';

/** Errors that mean the definition does not fit the object's shape (not a pod or status detail). */
function isStructureError(e: { code: string; path: string }): boolean {
  return e.code.startsWith('expression.') && /\.(instanceIdPath|specDefinition\.|scaleDefinition\.)/.test(e.path);
}

/** The tree of the workload rooted at `rootUid`, or null when no definition serves its kind. */
export interface Resolved {
  tree: WorkloadTree;
  object: KubeObject;
  /** Everything the root owns at any depth (what the tree was built from, with the root). */
  owned: KubeObject[];
}

export function resolveRoot(definitions: DefinitionSet, cluster: string, graph: OwnerGraph, rootUid: string): Resolved | null {
  const obj = graph.get(rootUid);
  if (!obj) return null;
  const candidates = definitions.candidatesFor(cluster, groupKindOf(obj), obj.apiVersion);
  if (candidates.length === 0) return null;
  const owned = graph.ownedBy(rootUid);
  const first = resolveWorkload(candidates[0], obj, owned, { cluster, ownedOnly: true });
  // A CRD served at several versions without conversion (strategy None) hands out objects of the
  // other version's shape under the watched version's name: when the structure cannot be read,
  // a definition written for another version of the kind may fit.
  if (candidates.length > 1 && first.errors.some(isStructureError)) {
    for (const alt of candidates.slice(1)) {
      const t = resolveWorkload(alt, obj, owned, { cluster, ownedOnly: true });
      if (!t.errors.some(isStructureError)) return { tree: t, object: obj, owned };
    }
  }
  return { tree: first, object: obj, owned };
}

/** The row of a resolved workload root. */
export function rowOfResolved(r: Resolved): WorkloadRow {
  const created = r.object.metadata?.creationTimestamp;
  return rowOfTree(r.tree, typeof created === 'string' ? created : null);
}
