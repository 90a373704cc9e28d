/** `group/Kind` keys for objects and owner references, and the kinds the live index always watches. */
import { apiGroupOf } from '../engine/index.ts';

/** The definition kinds: objects of these kinds are definitions, not workloads. */
export const DEFINITION_KINDS = new Set(['run.ai/Karta', 'optimization.nvidia.com/ResourceInterface']);

/**
 * Kinds that own pods in every framework; watched whether or not a definition mentions them. Nodes
 * too, for GPU capacity (they own nothing and are no workload: no row without pods).
 */
export const CORE_KINDS = new Map<string, string>([
  ['/Pod', 'v1'],
  ['/Node', 'v1'],
  ['batch/Job', 'v1'],
  ['batch/CronJob', 'v1'],
  ['apps/ReplicaSet', 'v1'],
  ['apps/Deployment', 'v1'],
  ['apps/StatefulSet', 'v1'],
]);

/** apiVersion → kind → `group/Kind`: asked for every object and owner reference, so built once per pair. */
const groupKinds = new Map<unknown, Map<unknown, string>>();

/** `group/Kind` of an object or of an owner reference (both carry apiVersion and kind). */
export function groupKindOf(o: { apiVersion?: unknown; kind?: unknown }): string {
  let byKind = groupKinds.get(o.apiVersion);
  if (!byKind) {
    // Only strings are cached: anything else is malformed input and must not grow the cache.
    if (typeof o.apiVersion !== 'string') return `${apiGroupOf(o.apiVersion)}/${String(o.kind)}`;
    groupKinds.set(o.apiVersion, (byKind = new Map()));
  }
  let gk = byKind.get(o.kind);
  if (gk === undefined) {
    gk = `${apiGroupOf(o.apiVersion)}/${String(o.kind)}`;
    if (typeof o.kind === 'string') byKind.set(o.kind, gk);
  }
  return gk;
}
