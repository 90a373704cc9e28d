/**
 * The garbage collector, a controller as in Kubernetes (not part of storage): it follows ownerReferences
 * by uid. When an owner is gone, each dependent without another live owner is deleted (in the foreground
 * when the owner was), else its dangling references are dropped. An owner deleted in the foreground
 * waits for its blocking dependents; one deleted with the orphan policy first loses its dependents'
 * references to it. It runs from the store's work queue, after the change that caused the work.
 */

import type { KubeObject } from './object-store.ts';
import { nextVersion } from './object-utils.ts';
import type { Ref, StoreWriter } from './storage.ts';
import type { WorkQueue } from './work-queue.ts';

const NAME = 'garbage-collector';

export class GarbageCollector {
  constructor(
    private readonly store: StoreWriter,
    private readonly queue: WorkQueue,
  ) {}

  /** An object was removed: its dependents get collected, and owners deleting in the foreground look again. */
  removed(obj: KubeObject): void {
    const uid = obj.metadata.uid;
    const storage = this.store.storage;
    if (uid && storage.hasDependents(uid)) this.queue.add(NAME, () => this.collectDependents(uid));
    // Owners deleted in the foreground wait for this one.
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const owner = storage.refOf(ref.uid);
      if (owner) this.queue.add(NAME, () => this.settleOwner(owner));
    }
  }

  /** An owner was marked for deletion with the foreground or orphan policy. */
  deleting(ref: Ref): void {
    this.queue.add(NAME, () => this.settleOwner(ref));
  }

  /** An owner is gone: each dependent without a remaining live owner is deleted, else its dangling refs are dropped. */
  private collectDependents(ownerUid: string): void {
    const storage = this.store.storage;
    for (const ref of storage.dependents(ownerUid)) {
      const dep = storage.get(ref.gk, ref.ns, ref.name);
      if (!dep || dep.metadata.deletionTimestamp && (dep.metadata.finalizers ?? []).length === 0) continue;
      const refs = dep.metadata.ownerReferences ?? [];
      let solid = false;
      let foreground = false;
      for (const r of refs) {
        const owner = storage.getByUid(r.uid);
        if (!owner) continue;
        if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes('foregroundDeletion')) foreground = true;
        else solid = true;
      }
      if (solid) {
        this.dropOwnerRefs(ref, dep, (r) => storage.refOf(r) !== undefined);
      } else if (!dep.metadata.deletionTimestamp) {
        this.store.delete(dep.apiVersion, dep.kind, ref.ns || undefined, ref.name, { propagationPolicy: foreground ? 'Foreground' : 'Background' });
      }
    }
  }

  /** Foreground: delete dependents, finish when none blocks. Orphan: strip the refs, then finish. */
  private settleOwner(ref: Ref): void {
    const storage = this.store.storage;
    const owner = storage.get(ref.gk, ref.ns, ref.name);
    if (!owner?.metadata.deletionTimestamp) return;
    const fins = owner.metadata.finalizers ?? [];
    const uid = owner.metadata.uid!;
    if (fins.includes('orphan')) {
      for (const d of storage.dependents(uid)) {
        const dep = storage.get(d.gk, d.ns, d.name);
        if (dep) this.dropOwnerRefs(d, dep, (r) => r !== uid);
      }
      this.dropFinalizer(ref, 'orphan');
      return;
    }
    if (!fins.includes('foregroundDeletion')) return;
    let blocking = 0;
    for (const d of storage.dependents(uid)) {
      const dep = storage.get(d.gk, d.ns, d.name);
      if (!dep) continue;
      if (!dep.metadata.deletionTimestamp) {
        this.store.delete(dep.apiVersion, dep.kind, d.ns || undefined, d.name, { propagationPolicy: 'Foreground' });
      }
      const still = storage.get(d.gk, d.ns, d.name);
      if (still && (still.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion)) blocking++;
    }
    if (blocking === 0) this.dropFinalizer(ref, 'foregroundDeletion');
  }

  /** Keeps the ownerReferences of `dep` whose uid passes `keep` (none left: the field goes). */
  private dropOwnerRefs(ref: Ref, dep: KubeObject, keep: (ownerUid: string) => boolean): void {
    const next = nextVersion(dep);
    next.metadata.ownerReferences = (dep.metadata.ownerReferences ?? []).filter((r) => keep(r.uid));
    if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
    this.store.commit(ref.gk, ref.ns, ref.name, next, dep);
  }

  private dropFinalizer(ref: Ref, finalizer: string): void {
    const obj = this.store.storage.get(ref.gk, ref.ns, ref.name);
    if (!obj) return;
    const next = nextVersion(obj);
    next.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.store.update(next);
  }
}
