/**
 * Who owns an object, read as the garbage collector reads ownerReferences: a reference names its
 * owner by uid, and the object with that uid is the owner only if it also has the reference's kind,
 * API group and name, and — when the owner is namespaced — lives in the dependent's namespace (a
 * cluster-scoped object may own anything; a namespaced one only objects of its own namespace).
 * Anything else is a broken reference and the owner is treated as absent: a hostile pod cannot
 * join another namespace's workload, nor claim a workload by its uid under another name.
 */
import { apiGroupOf, meta, objectName, objectNamespace, type KubeObject } from './k8s.ts';

export type OwnerReference = NonNullable<NonNullable<KubeObject['metadata']>['ownerReferences']>[number];

/** Why `owner` does not own `dependent` through `ref`, or null when it does. */
export function ownerMismatch(ref: OwnerReference, owner: KubeObject, dependent: KubeObject): string | null {
  if (owner === dependent || (typeof ref?.uid === 'string' && ref.uid !== '' && ref.uid === meta(dependent).uid)) return 'it names itself as its owner';
  if (ref.kind !== owner.kind || apiGroupOf(ref.apiVersion) !== apiGroupOf(owner.apiVersion) || ref.name !== objectName(owner)) {
    return `its owner reference ${refText(ref)} has the uid of ${String(owner.kind)} ${objectName(owner)} (${String(owner.apiVersion)})`;
  }
  const ownerNs = objectNamespace(owner);
  if (ownerNs !== '' && ownerNs !== objectNamespace(dependent)) return `its owner ${String(owner.kind)} ${objectName(owner)} is in namespace ${ownerNs}, not ${objectNamespace(dependent) || 'cluster scope'}`;
  return null;
}

export function validOwner(ref: OwnerReference, owner: KubeObject, dependent: KubeObject): boolean {
  return ownerMismatch(ref, owner, dependent) === null;
}

/** `Job train-0 (batch/v1)`, for messages. */
export function refText(ref: OwnerReference): string {
  return `${String(ref?.kind)} ${String(ref?.name)}${ref?.apiVersion ? ` (${ref.apiVersion})` : ''}`;
}

/** The owner references of an object that are objects (a malformed entry is no reference). */
export function ownerRefsOf(o: KubeObject): OwnerReference[] {
  const refs = meta(o).ownerReferences;
  return Array.isArray(refs) ? refs.filter((r): r is OwnerReference => !!r && typeof r === 'object') : [];
}
