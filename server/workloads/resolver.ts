/**
 * Resolving one workload root of the live index: the definitions that serve its kind (quarantined
 * ones skipped), what it owns, the workload tree, and its row. Pure over the owner graph and the
 * definitions, except that how each definition did is noted in the definitions' health.
 */
import { emptyTree, engineError, type GpuResourceMatcher, isPod, refText, resolveWithoutDefinition, resolveWorkload, type KubeObject, type WorkloadTree } from '../engine/index.ts';
import { QUARANTINE_CODES, type DefinitionHealth, type Failure } from './definition-health.ts';
import type { DefinitionSet } from './definitions.ts';
import { groupKindOf } from './group-kind.ts';
import type { OwnerGraph } from './owner-graph.ts';
import { rowOfTree } from './row-of-tree.ts';
import type { RowOwnership, WorkloadRow } from './row.ts';
import type { MissingOwner } from './staleness.ts';

/** Errors that mean the definition does not fit the object's shape (not a pod or status detail). */
function isStructureError(e: { code: string; path: string }): boolean {
  return e.code.startsWith('expression.') && /\.(instanceIdPath|specDefinition\.|scaleDefinition\.)/.test(e.path);
}

export interface Resolved {
  tree: WorkloadTree;
  object: KubeObject;
  /** Everything the root owns at any depth (what the tree was built from, with the root). */
  owned: KubeObject[];
  ownership: RowOwnership;
  /** The owner the root names that is not in the index, when that is why its ownership is broken (its kind may be unreadable). */
  missingOwner: MissingOwner | null;
}

function ownershipOf(graph: OwnerGraph, root: KubeObject): Pick<Resolved, 'ownership' | 'missingOwner'> {
  const { ownedBy: o, broken, missingRef } = graph.ownershipOf(root);
  return {
    ownership: {
      ownedBy: o ? { apiVersion: String(o.apiVersion ?? ''), kind: String(o.kind ?? ''), namespace: String(o.metadata?.namespace ?? ''), name: String(o.metadata?.name ?? '') } : null,
      broken,
    },
    missingOwner: missingRef ? { gk: groupKindOf(missingRef), text: refText(missingRef) } : null,
  };
}

/**
 * The workload rooted at an object no definition serves: the pods for which `isOwnPod` holds (those
 * whose ownership walk ends here; served objects below it have rows of their own).
 */
export function resolveUnserved(cluster: string, graph: OwnerGraph, rootUid: string, isOwnPod: (pod: KubeObject) => boolean, isGpuResource?: GpuResourceMatcher): Resolved | null {
  const obj = graph.get(rootUid);
  if (!obj) return null;
  const owned = graph.ownedBy(rootUid);
  const pods = isPod(obj) ? [obj] : owned.filter((o) => isPod(o) && isOwnPod(o));
  // Only pods make a workload of an object nobody describes: an operator's bookkeeping object is no row.
  if (pods.length === 0) return null;
  return { tree: resolveWithoutDefinition(obj, pods, { cluster, isGpuResource, nodeGpus: (n) => graph.nodeGpu(n) }), object: obj, owned, ...ownershipOf(graph, obj) };
}

/** What counts against a definition on one workload: an evaluation problem first, else any error. */
function failureOf(tree: WorkloadTree): Failure | null {
  const e = tree.errors.find((x) => QUARANTINE_CODES.has(x.code)) ?? tree.errors[0];
  return e ? { code: e.code, message: e.message } : null;
}

/**
 * The tree of the workload rooted at `rootUid`, or null when no definition serves its kind.
 * Quarantined definitions are skipped; how each definition tried did is noted in `health`.
 */
export function resolveRoot(definitions: DefinitionSet, cluster: string, graph: OwnerGraph, rootUid: string, health?: DefinitionHealth, isGpuResource?: GpuResourceMatcher): Resolved | null {
  const obj = graph.get(rootUid);
  if (!obj) return null;
  const candidates = definitions.candidatesFor(cluster, groupKindOf(obj), obj.apiVersion);
  if (candidates.length === 0) return null;
  const owned = graph.ownedBy(rootUid);
  const usable = health ? candidates.filter((d) => !health.isQuarantined(cluster, d)) : candidates;
  if (usable.length === 0) {
    const d = candidates[0];
    const tree = emptyTree(d, obj, { cluster });
    tree.errors.push(engineError('definition.quarantined', `definition "${d.name}" is quarantined in cluster ${cluster} and not evaluated: ${health?.quarantineReason(cluster, d) ?? ''}`));
    return { tree, object: obj, owned, ...ownershipOf(graph, obj) };
  }
  let chosen = usable[0];
  const options = { cluster, ownedOnly: true, isGpuResource, nodeGpus: (n: string) => graph.nodeGpu(n) };
  let tree = resolveWorkload(chosen, obj, owned, options);
  // A CRD served at several versions without conversion (strategy None) hands out objects of the
  // other version's shape under the watched version's name: when the structure cannot be read,
  // a definition written for another version of the kind may fit.
  if (usable.length > 1 && tree.errors.some(isStructureError)) {
    for (const alt of usable.slice(1)) {
      const t = resolveWorkload(alt, obj, owned, options);
      if (t.errors.some(isStructureError)) continue;
      // The first one did not fit this workload: that counts against it (it is not "valid" here).
      health?.note(cluster, chosen, rootUid, failureOf(tree));
      chosen = alt;
      tree = t;
      break;
    }
  }
  health?.note(cluster, chosen, rootUid, failureOf(tree));
  return { tree, object: obj, owned, ...ownershipOf(graph, obj) };
}

/** The row of a resolved workload root. */
export function rowOfResolved(r: Resolved): WorkloadRow {
  const created = r.object.metadata?.creationTimestamp;
  return { ...rowOfTree(r.tree, typeof created === 'string' ? created : null), ownership: r.ownership };
}
