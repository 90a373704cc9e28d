/**
 * The storage layer under the store's registry: every kind's table, the one resourceVersion counter that
 * etcd's revision is to the real API server, and the indexes across kinds — objects by uid (owner
 * checks) and dependents by owner uid (the garbage collector's graph). No events and no rules here: the
 * registry (MemoryStore) decides what a write means, this keeps what it decided.
 */

import type { DeleteOptions, DeleteResult, KubeObject, OwnerReference } from './object-store.ts';
import { KindTable } from './kind-table.ts';

/** Where an object is stored: `group/Kind`, namespace ('' when cluster-scoped) and name. */
export interface Ref {
  gk: string;
  ns: string;
  name: string;
}

export class Storage {
  /** The last resourceVersion handed out. */
  rv: number;
  private readonly tables = new Map<string, KindTable>();
  private readonly byUid = new Map<string, Ref>();
  /** owner uid → dependents (`gk\x01ns\x01name`). */
  private readonly owners = new Map<string, Set<string>>();

  constructor(rv: number) {
    this.rv = rv;
  }

  /** The next resourceVersion, shared by every kind. */
  nextRv(): number {
    return ++this.rv;
  }

  /** The table of a kind, created on first use. */
  table(gk: string): KindTable {
    let t = this.tables.get(gk);
    if (!t) this.tables.set(gk, (t = new KindTable()));
    return t;
  }

  /** The table of a kind, if any object of it was ever stored. */
  existingTable(gk: string): KindTable | undefined {
    return this.tables.get(gk);
  }

  /** Every `group/Kind` with its table. */
  entries(): IterableIterator<[string, KindTable]> {
    return this.tables.entries();
  }

  get(gk: string, ns: string, name: string): KubeObject | undefined {
    return this.tables.get(gk)?.get(ns, name);
  }

  getByUid(uid: string): KubeObject | undefined {
    const ref = this.byUid.get(uid);
    return ref ? this.tables.get(ref.gk)?.get(ref.ns, ref.name) : undefined;
  }

  /** Where the object with this uid is stored. */
  refOf(uid: string): Ref | undefined {
    return this.byUid.get(uid);
  }

  /** Stores `obj` in place of `prev` (absent for a new object) and keeps the indexes in step. */
  put(gk: string, ns: string, name: string, obj: KubeObject, prev: KubeObject | undefined): void {
    this.table(gk).put(ns, name, obj, prev);
    const uid = obj.metadata.uid;
    if (uid && uid !== prev?.metadata.uid) this.byUid.set(uid, { gk, ns, name });
    this.indexOwners(gk, ns, name, prev?.metadata.ownerReferences, obj.metadata.ownerReferences);
  }

  /** Drops a stored object and its index entries; returns it. */
  delete(gk: string, ns: string, name: string): KubeObject {
    const current = this.table(gk).remove(ns, name)!;
    const uid = current.metadata.uid;
    if (uid) this.byUid.delete(uid);
    this.indexOwners(gk, ns, name, current.metadata.ownerReferences, undefined);
    return current;
  }

  hasDependents(ownerUid: string): boolean {
    return this.owners.has(ownerUid);
  }

  /** Objects with an ownerReference to `ownerUid`. */
  dependents(ownerUid: string): Ref[] {
    return [...(this.owners.get(ownerUid) ?? [])].map((key) => {
      const [gk, ns, name] = key.split('\x01');
      return { gk, ns, name };
    });
  }

  private indexOwners(gk: string, ns: string, name: string, before: OwnerReference[] | undefined, after: OwnerReference[] | undefined): void {
    if (before === after) return;
    const key = `${gk}\x01${ns}\x01${name}`;
    for (const r of before ?? []) {
      if (after?.some((a) => a.uid === r.uid)) continue;
      const s = this.owners.get(r.uid);
      if (s) {
        s.delete(key);
        if (s.size === 0) this.owners.delete(r.uid);
      }
    }
    for (const r of after ?? []) {
      let s = this.owners.get(r.uid);
      if (!s) this.owners.set(r.uid, (s = new Set()));
      s.add(key);
    }
  }
}

/**
 * What the controllers inside the store (garbage collector, namespace lifecycle) write through. `commit`
 * and `remove` are the registry's own steps (new resourceVersion, event, no admission checks), for the
 * edits the real controllers make with patches the checks let through; `delete` and `update` are the
 * public calls, for what they do through the API.
 */
export interface StoreWriter {
  readonly storage: Storage;
  /** Stores a new state of an existing object: new resourceVersion, MODIFIED event. */
  commit(gk: string, ns: string, name: string, next: KubeObject, current: KubeObject): KubeObject;
  /** Removes an object for good: DELETED event. */
  remove(gk: string, ns: string, name: string): KubeObject;
  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string, options?: DeleteOptions): DeleteResult;
  update(obj: KubeObject): KubeObject;
}
