import type { KubeObject, WatchEvent } from '../store/object-store.ts';

/** Children by owner uid, kept from the event stream (the store's own index is private). */
export class OwnerIndex {
  private readonly byOwner = new Map<string, Map<string, KubeObject>>();

  apply(event: WatchEvent): void {
    const obj = event.object;
    const uid = obj.metadata.uid;
    if (!uid) return;
    const before = event.previous?.metadata.ownerReferences;
    const after = event.type === 'DELETED' ? undefined : obj.metadata.ownerReferences;
    if (before && before !== after) {
      for (const r of before) {
        if (after?.some((a) => a.uid === r.uid)) continue;
        const m = this.byOwner.get(r.uid);
        if (m) {
          m.delete(uid);
          if (m.size === 0) this.byOwner.delete(r.uid);
        }
      }
    }
    if (after) {
      for (const r of after) {
        let m = this.byOwner.get(r.uid);
        if (!m) this.byOwner.set(r.uid, (m = new Map()));
        m.set(uid, obj);
      }
    }
  }

  children(ownerUid: string): Iterable<KubeObject> {
    return this.byOwner.get(ownerUid)?.values() ?? [];
  }
}
