/**
 * The objects a root owns at any depth, by ownerReferences. Owners are found by uid; an owner
 * reference whose uid matches nothing falls back to kind + name in the same namespace, so that
 * hand-written object files without uids still resolve.
 */
import { meta, objectName, objectNamespace, type KubeObject } from '../k8s.ts';

export function ownedClosure(root: KubeObject, objects: readonly KubeObject[]): KubeObject[] {
  const byUid = new Map<string, KubeObject>();
  const byKindName = new Map<string, KubeObject>();
  for (const o of objects) {
    const uid = meta(o).uid;
    if (typeof uid === 'string' && uid) byUid.set(uid, o);
    byKindName.set(`${String(o.kind)}/${objectNamespace(o)}/${objectName(o)}`, o);
  }
  const children = new Map<KubeObject, KubeObject[]>();
  for (const o of objects) {
    const refs = meta(o).ownerReferences;
    if (!Array.isArray(refs)) continue;
    for (const ref of refs) {
      if (!ref || typeof ref !== 'object') continue;
      const owner = (typeof ref.uid === 'string' && byUid.get(ref.uid)) || byKindName.get(`${String(ref.kind)}/${objectNamespace(o)}/${String(ref.name)}`);
      if (!owner || owner === o) continue;
      const list = children.get(owner);
      if (list) list.push(o);
      else children.set(owner, [o]);
    }
  }
  const out: KubeObject[] = [];
  const seen = new Set<KubeObject>([root]);
  const queue: KubeObject[] = [root];
  // Also accept a root that is equal by identity fields but a different object instance in the list.
  const rootTwin = byUid.get(meta(root).uid ?? '') ?? byKindName.get(`${String(root.kind)}/${objectNamespace(root)}/${objectName(root)}`);
  if (rootTwin && rootTwin !== root) {
    seen.add(rootTwin);
    queue.push(rootTwin);
  }
  while (queue.length > 0) {
    const cur = queue.shift()!;
    for (const child of children.get(cur) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
