/**
 * The objects a root owns at any depth, by ownerReferences, under the garbage collector's rules
 * (owner-rules.ts: uid and kind, group and name, same namespace). Owners are found by uid; a
 * reference without a uid, or whose uid matches nothing, falls back to kind + name in the same
 * namespace among objects that carry no uid, so that hand-written object files still resolve.
 */
import { meta, objectName, objectNamespace, type KubeObject } from '../k8s.ts';
import { ownerRefsOf, validOwner } from '../owner-rules.ts';

function kindNameKey(kind: unknown, ns: string, name: unknown): string {
  return `${String(kind)}/${ns}/${String(name)}`;
}

/** Objects by kind/namespace/name, built only when some owner reference's uid matches nothing. */
class KindNameLookup {
  private map: Map<string, KubeObject> | null = null;
  constructor(private readonly objects: readonly KubeObject[]) {}
  get(key: string): KubeObject | undefined {
    if (!this.map) {
      this.map = new Map();
      for (const o of this.objects) this.map.set(kindNameKey(o.kind, objectNamespace(o), objectName(o)), o);
    }
    return this.map.get(key);
  }
}

export function ownedClosure(root: KubeObject, objects: readonly KubeObject[]): KubeObject[] {
  const byUid = new Map<string, KubeObject>();
  for (const o of objects) {
    const uid = meta(o).uid;
    if (typeof uid === 'string' && uid) byUid.set(uid, o);
  }
  const byKindName = new KindNameLookup(objects);
  const children = new Map<KubeObject, KubeObject[]>();
  for (const o of objects) {
    for (const ref of ownerRefsOf(o)) {
      const byId = typeof ref.uid === 'string' && ref.uid ? byUid.get(ref.uid) : undefined;
      const byName = byId ? undefined : byKindName.get(kindNameKey(ref.kind, objectNamespace(o), ref.name));
      // The name fallback is for objects without uids only: a uid that differs is another object.
      const owner = byId ?? (byName && !meta(byName).uid ? byName : undefined);
      if (!owner || !validOwner(ref, owner, o)) continue;
      const list = children.get(owner);
      if (list) list.push(o);
      else children.set(owner, [o]);
    }
  }
  const out: KubeObject[] = [];
  const seen = new Set<KubeObject>([root]);
  const queue: KubeObject[] = [root];
  // Also accept a root that is equal by identity fields but a different object instance in the list.
  const rootUid = meta(root).uid;
  const rootTwin = (typeof rootUid === 'string' && byUid.get(rootUid)) || byKindName.get(kindNameKey(root.kind, objectNamespace(root), objectName(root)));
  if (rootTwin && rootTwin !== root) {
    seen.add(rootTwin);
    queue.push(rootTwin);
  }
  for (let i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i]) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
