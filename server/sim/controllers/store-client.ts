/**
 * How the simulated controllers read and write the store, as controller-runtime's client does it for the
 * real operators: writes count themselves and skip no-op writes, names from generateName are seeded, and
 * the create-or-sync helpers never adopt an object another owner controls. The Runtime extends it.
 */

import type { KubeObject, ListOptions, ObjectStore } from '../store/object-store.ts';
import { StoreError } from '../store/object-store.ts';
import { deepEqual } from '../store/object-utils.ts';
import type { Rng } from './random.ts';

export class StoreClient {
  readonly store: ObjectStore;
  /** Names and other choices that must be reproducible for a seed. */
  readonly rng: Rng;
  /** Writes sent so far (for benchmarks). */
  writes = 0;

  constructor(store: ObjectStore, rng: Rng) {
    this.store = store;
    this.rng = rng;
  }

  // ------------------------------------------------------------------ reads

  get<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, ns: string | undefined, name: string): T | undefined {
    return this.store.get(apiVersion, kind, ns || undefined, name) as T | undefined;
  }

  list<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, opts?: ListOptions): T[] {
    return this.store.list(apiVersion, kind, opts) as T[];
  }

  // ------------------------------------------------------------------ writes

  /**
   * Creates an object. A `generateName` without a name gets a seeded suffix here (not in the store) so
   * that scenarios are reproducible; the object keeps its generateName like a real one.
   */
  create<T extends KubeObject>(obj: T): T {
    const meta = obj.metadata;
    this.writes++;
    if (meta.name || !meta.generateName) return this.store.create(obj) as T;
    // A seeded suffix (not the store's) keeps scenarios reproducible; a clash just draws again.
    for (let i = 0; ; i++) {
      const named = { ...obj, metadata: { ...meta, name: meta.generateName.slice(0, 58) + this.rng.suffix(5) } };
      try {
        return this.store.create(named) as T;
      } catch (e) {
        if (!(e instanceof StoreError && e.reason === 'AlreadyExists') || i > 20) throw e;
      }
    }
  }

  /** Replaces an object unless nothing would change; keeps optimistic concurrency. */
  update<T extends KubeObject>(next: T): T {
    this.writes++;
    return this.store.update(next) as T;
  }

  /** Writes `status` unless it equals the stored one. Returns the stored object. */
  setStatus<T extends KubeObject>(obj: T, status: unknown): T {
    if (deepEqual(obj.status, status)) return obj;
    this.writes++;
    return this.store.updateStatus({
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid },
      status,
    }) as T;
  }

  /** Deletes an object, ignoring "already gone". */
  delete(obj: KubeObject): void {
    this.writes++;
    try {
      this.store.delete(obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name!);
    } catch (e) {
      if (!(e instanceof StoreError && e.reason === 'NotFound')) throw e;
    }
  }

  /**
   * Makes `existing` (a child this controller owns) match `desired` in labels, annotations, ownerReferences
   * and every top-level field except metadata and status; returns the stored object.
   */
  syncObject<T extends KubeObject>(existing: T, desired: KubeObject): T {
    let changed = false;
    const meta = { ...existing.metadata };
    for (const k of ['labels', 'annotations', 'ownerReferences'] as const) {
      const want = desired.metadata[k];
      if (want !== undefined && !deepEqual(meta[k], want)) {
        (meta as Record<string, unknown>)[k] = want;
        changed = true;
      }
    }
    const next: KubeObject = { ...existing, metadata: meta };
    for (const k in desired) {
      if (k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind') continue;
      if (!deepEqual(existing[k], desired[k])) {
        next[k] = desired[k];
        changed = true;
      }
    }
    return changed ? this.update(next as T) : existing;
  }

  /** Creates `desired` if missing; an existing object is left as it is (Services keep their IP). */
  ensure<T extends KubeObject>(desired: T): T {
    return this.stored(desired) ?? this.create(desired);
  }

  /** Like apply, for Services: the allocated cluster IP of an existing Service is kept. */
  applyService<T extends KubeObject>(desired: T): T {
    return this.createOrSync(desired, (cur) => {
      const cs = (cur.spec ?? {}) as Record<string, unknown>;
      const ds = (desired.spec ?? {}) as Record<string, unknown>;
      return this.syncObject(cur, { ...desired, spec: { ...ds, clusterIP: cs.clusterIP, clusterIPs: cs.clusterIPs } });
    });
  }

  /**
   * Creates `desired` if missing, else syncs it. An object controlled by another owner (e.g. a child of a
   * deleted owner the garbage collector has not reached yet) is never adopted: it is left alone and
   * returned as it is, like controller-runtime refuses to take over objects with a foreign controller.
   */
  apply<T extends KubeObject>(desired: T): T {
    return this.createOrSync(desired, (cur) => this.syncObject(cur, desired));
  }

  /** apply's rules, with `sync` bringing an existing object this owner may control in line. */
  private createOrSync<T extends KubeObject>(desired: T, sync: (cur: T) => T): T {
    const cur = this.stored(desired);
    if (!cur) return this.create(desired);
    const want = desired.metadata.ownerReferences?.find((r) => r.controller);
    const have = cur.metadata.ownerReferences?.find((r) => r.controller);
    if (want && have && want.uid !== have.uid) return cur;
    return sync(cur);
  }

  /** The stored object of `desired`'s kind, namespace and name. */
  private stored<T extends KubeObject>(desired: T): T | undefined {
    return this.store.get(desired.apiVersion, desired.kind, desired.metadata.namespace, desired.metadata.name!) as T | undefined;
  }
}
