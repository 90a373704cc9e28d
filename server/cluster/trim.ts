/**
 * Objects are trimmed on arrival to what the engine and the UI read: no managed fields, no
 * last-applied annotations (often larger than the object itself). Secrets never arrive: we do not watch them.
 */
import type { ClusterObject } from './types.ts';

const DROP_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration'];

export function trimObject(o: ClusterObject): ClusterObject {
  const m = o.metadata;
  if (!m) return o;
  const { managedFields: _managed, ...rest } = m as Record<string, unknown>;
  const meta = rest as NonNullable<ClusterObject['metadata']>;
  if (meta.annotations) {
    let copy: Record<string, string> | null = null;
    for (const k of DROP_ANNOTATIONS) {
      if (k in meta.annotations) {
        copy ??= { ...meta.annotations };
        delete copy[k];
      }
    }
    if (copy) meta.annotations = copy;
  }
  return { ...o, metadata: meta };
}
