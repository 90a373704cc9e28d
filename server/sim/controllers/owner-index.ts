import type { KubeObject, WatchEvent } from '../store/object-store.ts';

/** Children by owner uid, kept from the event stream (the store's own index is private). */
export class OwnerIndex {
  private readonly byOwner = new Map<string, Map<string, KubeObject>>();
  /** Children per owner and child kind (`uid\x01apiVersion\x01kind`). */
  private readonly counts = new Map<string, number>();

  private bump(ownerUid: string, obj: KubeObject, by: number): void {
    const key = `${ownerUid}\x01${obj.apiVersion}\x01${obj.kind}`;
    const n = (this.counts.get(key) ?? 0) + by;
    if (n <= 0) this.counts.delete(key);
    else this.counts.set(key, n);
  }

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
          if (m.delete(uid)) this.bump(r.uid, obj, -1);
          if (m.size === 0) this.byOwner.delete(r.uid);
        }
      }
    }
    if (after) {
      for (const r of after) {
        let m = this.byOwner.get(r.uid);
        if (!m) this.byOwner.set(r.uid, (m = new Map()));
        if (!m.has(uid)) this.bump(r.uid, obj, 1);
        m.set(uid, obj);
      }
    }
  }

  /** How many objects of one kind reference `ownerUid`. */
  count(ownerUid: string, apiVersion: string, kind: string): number {
    return this.counts.get(`${ownerUid}\x01${apiVersion}\x01${kind}`) ?? 0;
  }

  children(ownerUid: string): Iterable<KubeObject> {
    return this.byOwner.get(ownerUid)?.values() ?? [];
  }
}
