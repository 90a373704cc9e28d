/**
 * In-memory object store with the semantics the Kubernetes API server gets from etcd + its registry:
 * one global resourceVersion counter, no-op writes that change nothing, optimistic concurrency,
 * finalizers, ownerReference garbage collection and a bounded event history for watches.
 *
 * Objects are kept by group + kind. The version inside apiVersion is kept as written: a kind served in
 * two versions (e.g. Dynamo nvidia.com v1alpha1 and v1beta1) shares one storage and is not converted
 * (like a CRD with `conversion: None`); the API layer only rewrites apiVersion on the way out.
 *
 * This class is the registry (what a create, update or delete means, kind by kind: kind-policy.ts) and
 * the public facade. The other parts live apart as in Kubernetes: the kind tables and their indexes
 * (storage.ts, kind-table.ts), the event log that watches read (watch-history.ts), graceful deletion
 * (graceful-deletion.ts), and the controllers that run beside the registry from the store's work queue
 * (work-queue.ts): the garbage collector and the namespace lifecycle controller.
 */

import { randomUUID } from 'node:crypto';
import { GarbageCollector } from './garbage-collector.ts';
import { GracefulDeletion, markedForDeletion, propagationFinalizer } from './graceful-deletion.ts';
import type { KindPolicy } from './kind-policy.ts';
import { defaultPolicy } from './kind-policy.ts';
import type { PageOptions, PageResult } from './kind-table.ts';
import { NamespaceLifecycle } from './namespace-lifecycle.ts';
import type { DeleteOptions, DeleteResult, KubeObject, ListOptions, ObjectMeta, ObjectStore, WatchEvent } from './object-store.ts';
import { StoreError } from './object-store.ts';
import { clone, copyValue, deepEqual, deepFreeze, groupKind, groupOf, nextVersion, ownedCopy, rfc3339, specPart } from './object-utils.ts';
import { Storage } from './storage.ts';
import type { StoreWriter } from './storage.ts';
import type { HistoryEntry } from './watch-history.ts';
import { WatchHistory } from './watch-history.ts';
import { WorkQueue } from './work-queue.ts';

export type { KindPolicy } from './kind-policy.ts';
export type { PageOptions, PageResult } from './kind-table.ts';
export { compareBytes, keyOf } from './kind-table.ts';
export type { HistoryEntry } from './watch-history.ts';

export interface MemoryStoreOptions {
  /** First resourceVersion minus one. Default: time-based, so RVs never repeat across restarts. */
  initialResourceVersion?: number;
  /** Number of events kept for watch-from-resourceVersion; older versions answer 410. */
  historySize?: number;
  /** Clock for creationTimestamp/deletionTimestamp (the simulated clock when one runs). */
  now?: () => Date;
  /** Upper bound of a graceful deletion in real milliseconds, so pods do not stay Terminating for 30 s. */
  maxGraceMs?: number;
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export class MemoryStore implements ObjectStore {
  private readonly storage: Storage;
  private readonly history: WatchHistory;
  private readonly now: () => Date;
  private policy: (gk: string) => KindPolicy = defaultPolicy;
  private readonly queue = new WorkQueue();
  private readonly graceful: GracefulDeletion;
  private readonly gc: GarbageCollector;
  private readonly namespaces: NamespaceLifecycle;

  constructor(options: MemoryStoreOptions = {}) {
    // Seeded from the clock so that a client resuming after a simulator restart never hits a reused RV.
    const rv = options.initialResourceVersion ?? Math.floor(Date.now() / 1000) * 1000;
    this.storage = new Storage(rv);
    this.history = new WatchHistory(Math.max(1, options.historySize ?? 100_000), rv);
    this.now = options.now ?? (() => new Date());
    this.graceful = new GracefulDeletion(this.storage, this.now, options.maxGraceMs ?? 1000, (gk, ns, name) => this.remove(gk, ns, name));
    const writer: StoreWriter = {
      storage: this.storage,
      commit: (gk, ns, name, next, current) => this.commit(gk, ns, name, next, current),
      remove: (gk, ns, name) => this.remove(gk, ns, name),
      delete: (apiVersion, kind, namespace, name, opts) => this.delete(apiVersion, kind, namespace, name, opts),
      update: (obj) => this.update(obj),
    };
    this.gc = new GarbageCollector(writer, this.queue);
    this.namespaces = new NamespaceLifecycle(writer, this.queue, this.graceful, this.now);
  }

  /** Lets the API registry describe kinds (plural names, generation and status rules). */
  setKindPolicy(policy: (group: string, kind: string) => KindPolicy | undefined): void {
    this.policy = (gk) => {
      const i = gk.indexOf('/');
      return policy(gk.slice(0, i), gk.slice(i + 1)) ?? defaultPolicy(gk);
    };
  }

  resourceVersion(): string {
    return String(this.storage.rv);
  }

  /** The compaction floor: watching from a resourceVersion below this answers 410 Expired. */
  oldestResourceVersion(): string {
    return String(this.history.oldest());
  }

  // ---------------------------------------------------------------- reads

  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.storage.get(groupKind(apiVersion, kind), namespace ?? '', name);
  }

  list(apiVersion: string, kind: string, opts: ListOptions = {}): KubeObject[] {
    const t = this.storage.existingTable(groupKind(apiVersion, kind));
    return t ? t.list(opts.namespace, opts.labels) : [];
  }

  /** A page of a kind in key order (see KindTable.page). */
  listPage(apiVersion: string, kind: string, namespace: string | undefined, opts: PageOptions = {}): PageResult {
    const t = this.storage.existingTable(groupKind(apiVersion, kind));
    return t ? t.page(namespace, opts) : { items: [] };
  }

  /** A list and the resourceVersion it is consistent with (single-threaded: the current one). */
  listWithVersion(apiVersion: string, kind: string, opts: ListOptions = {}): { items: KubeObject[]; resourceVersion: string } {
    return { items: this.list(apiVersion, kind, opts), resourceVersion: this.resourceVersion() };
  }

  count(apiVersion: string, kind: string): number {
    return this.storage.existingTable(groupKind(apiVersion, kind))?.size ?? 0;
  }

  /** Every group/Kind with at least one object ever stored (for persistence and namespace cleanup). */
  kinds(): string[] {
    return [...this.storage.entries()].map(([gk]) => gk);
  }

  /** Looks an object up by uid (owner checks). */
  getByUid(uid: string): KubeObject | undefined {
    return this.storage.getByUid(uid);
  }

  /**
   * Events after `rv` (exclusive), oldest first. Throws StoreError 410 Expired when `rv` is older than
   * the retained history, with the message of the real watch cache.
   */
  historySince(rv: number): HistoryEntry[] {
    return this.history.since(rv);
  }

  /** Drops history up to `rv` (default: everything), so that older watches get 410 (tests, faults). */
  compact(rv: number = this.storage.rv): void {
    this.history.compact(Math.min(rv, this.storage.rv));
  }

  subscribe(handler: (event: WatchEvent) => void): () => void {
    return this.history.subscribe(handler);
  }

  // ---------------------------------------------------------------- writes

  create(input: KubeObject): KubeObject {
    this.checkShape(input);
    const obj = ownedCopy(input);
    const meta: ObjectMeta = obj.metadata;
    const gk = groupKind(obj.apiVersion, obj.kind);
    const ns = meta.namespace ?? '';
    const table = this.storage.table(gk);
    const policy = this.policy(gk);
    if (!meta.name) {
      if (!meta.generateName) {
        throw this.invalid(obj, 'metadata.name: Required value: name or generateName is required');
      }
      const prefix = meta.generateName.slice(0, 58);
      do meta.name = prefix + randomSuffix();
      while (table.get(ns, meta.name));
    } else if (table.get(ns, meta.name)) {
      throw new StoreError(409, 'AlreadyExists', `${this.resourceLabel(gk)} "${meta.name}" already exists`);
    }
    if (!meta.namespace) delete meta.namespace;
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(this.now());
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (policy.generation) meta.generation = 1;
    else delete meta.generation;
    const rv = this.storage.nextRv();
    meta.resourceVersion = String(rv);
    deepFreeze(obj);
    this.storage.put(gk, ns, meta.name, obj, undefined);
    this.history.emit({ type: 'ADDED', object: obj, rv, gk, namespace: ns });
    return obj;
  }

  update(input: KubeObject): KubeObject {
    return this.write(input, false);
  }

  updateStatus(input: KubeObject): KubeObject {
    return this.write(input, true);
  }

  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string, options: DeleteOptions = {}): DeleteResult {
    const gk = groupKind(apiVersion, kind);
    const ns = namespace ?? '';
    const current = this.storage.get(gk, ns, name);
    if (!current) throw this.notFound(gk, name);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw new StoreError(409, 'Conflict', `Operation cannot be fulfilled on ${this.resourceLabel(gk)} "${name}": Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw new StoreError(409, 'Conflict', `Operation cannot be fulfilled on ${this.resourceLabel(gk)} "${name}": Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`);
    }
    const finalizers = current.metadata.finalizers ?? [];
    if (current.metadata.deletionTimestamp) {
      // A second delete of an object already terminating: completes it when nothing holds it (the
      // kubelet finishing a graceful pod deletion does exactly this), otherwise changes nothing.
      if (finalizers.length === 0) return { object: this.remove(gk, ns, name), deleted: true };
      return { object: current, deleted: false };
    }
    if (gk === '/Namespace') return { object: this.namespaces.terminate(current), deleted: false };

    const add = propagationFinalizer(options.propagationPolicy);
    const grace = options.gracePeriodSeconds ?? 0;
    if (finalizers.length === 0 && !add && grace <= 0) return { object: this.remove(gk, ns, name), deleted: true };

    const next = markedForDeletion(current, add, grace, this.now());
    const marked = this.commit(gk, ns, name, next, current);
    if (add) this.gc.deleting({ gk, ns, name });
    if (grace > 0 && (next.metadata.finalizers ?? []).length === 0) this.graceful.scheduleEnd(gk, ns, name, marked.metadata.uid!, grace);
    return { object: marked, deleted: false };
  }

  /** Resolves when the garbage collector has nothing left to do (tests; shutdown). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops timers; the store stays readable. */
  close(): void {
    this.graceful.close();
    this.queue.close();
  }

  /** Everything for a state file: objects of every kind, and the counter. */
  snapshot(): { resourceVersion: string; objects: KubeObject[] } {
    const objects: KubeObject[] = [];
    for (const [, t] of this.storage.entries()) objects.push(...t.list(undefined, undefined));
    return { resourceVersion: this.resourceVersion(), objects };
  }

  /**
   * Loads objects as they were stored (uids, timestamps and resourceVersions kept), without events.
   * The counter continues above both the saved one and the current one.
   */
  restore(state: { resourceVersion: string; objects: KubeObject[] }): void {
    for (const input of state.objects) {
      const obj = deepFreeze(clone(input));
      const gk = groupKind(obj.apiVersion, obj.kind);
      const ns = obj.metadata.namespace ?? '';
      const name = obj.metadata.name!;
      this.storage.put(gk, ns, name, obj, this.storage.get(gk, ns, name));
    }
    this.storage.rv = Math.max(this.storage.rv, Number(state.resourceVersion) || 0);
    // Nothing before now can be replayed: a client resuming from an old RV relists.
    this.compact(this.storage.rv);
  }

  // ---------------------------------------------------------------- internals

  private write(input: KubeObject, statusOnly: boolean): KubeObject {
    this.checkShape(input);
    const gk = groupKind(input.apiVersion, input.kind);
    const ns = input.metadata.namespace ?? '';
    const name = input.metadata.name;
    if (!name) throw this.invalid(input, 'metadata.name: Required value: name is required');
    const current = this.storage.get(gk, ns, name);
    if (!current) throw this.notFound(gk, name);
    const rv = input.metadata.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion) throw this.conflict(gk, name);
    if (input.metadata.uid && input.metadata.uid !== current.metadata.uid) {
      throw this.invalid(input, `metadata.uid: Invalid value: "${input.metadata.uid}": field is immutable`);
    }
    const policy = this.policy(gk);
    let next: KubeObject;
    if (statusOnly) {
      // Only .status changes; everything else stays as stored (ResetObjectMetaForStatus).
      next = nextVersion(current);
      if (input.status === undefined) delete next.status;
      else next.status = copyValue(input.status);
    } else {
      next = ownedCopy(input);
      const m = next.metadata;
      const c = current.metadata;
      m.uid = c.uid;
      m.creationTimestamp = c.creationTimestamp;
      if (c.deletionTimestamp) m.deletionTimestamp = c.deletionTimestamp;
      else delete m.deletionTimestamp;
      if (c.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = c.deletionGracePeriodSeconds;
      else delete m.deletionGracePeriodSeconds;
      if (c.generation !== undefined) m.generation = c.generation;
      else delete m.generation;
      if (!m.namespace) delete m.namespace;
      if (c.deletionTimestamp) {
        const added = (m.finalizers ?? []).filter((f) => !(c.finalizers ?? []).includes(f));
        if (added.length > 0) {
          throw this.invalid(input, `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`);
        }
      }
      if (policy.generation && typeof c.generation === 'number') {
        const withStatus = !policy.statusSubresource;
        if (!deepEqual(specPart(next, withStatus), specPart(current, withStatus))) m.generation = c.generation + 1;
      }
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    if (deepEqual(next, current)) return current;
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0 && !this.graceful.isGraceful(current)) {
      // The last finalizer is gone: the deletion completes now. The stored state is swapped without an
      // event (the DELETED event that follows carries it).
      this.storage.put(gk, ns, name, deepFreeze(next), current);
      return this.remove(gk, ns, name);
    }
    return this.commit(gk, ns, name, next, current);
  }

  /** Stores a new state of an existing object: new RV, MODIFIED event. */
  private commit(gk: string, ns: string, name: string, next: KubeObject, current: KubeObject): KubeObject {
    const rv = this.storage.nextRv();
    next.metadata.resourceVersion = String(rv);
    deepFreeze(next);
    this.storage.put(gk, ns, name, next, current);
    this.history.emit({ type: 'MODIFIED', object: next, previous: current, rv, gk, namespace: ns });
    return next;
  }

  /** Removes an object for good: DELETED event at a new RV; its dependents go to the GC. */
  private remove(gk: string, ns: string, name: string): KubeObject {
    const current = this.storage.get(gk, ns, name)!;
    const last = nextVersion(current);
    const rv = this.storage.nextRv();
    last.metadata.resourceVersion = String(rv);
    deepFreeze(last);
    this.storage.delete(gk, ns, name);
    this.history.emit({ type: 'DELETED', object: last, previous: current, rv, gk, namespace: ns });
    this.gc.removed(current);
    return last;
  }

  private checkShape(obj: KubeObject): void {
    if (!obj || typeof obj !== 'object' || !obj.apiVersion || !obj.kind || typeof obj.metadata !== 'object' || obj.metadata === null) {
      throw new StoreError(400, 'BadRequest', 'Object must have apiVersion, kind and metadata');
    }
  }

  resourceLabel(gk: string): string {
    const group = gk.slice(0, gk.indexOf('/'));
    const resource = this.policy(gk).resource;
    return group ? `${resource}.${group}` : resource;
  }

  private notFound(gk: string, name: string): StoreError {
    return new StoreError(404, 'NotFound', `${this.resourceLabel(gk)} "${name}" not found`);
  }

  private conflict(gk: string, name: string): StoreError {
    return new StoreError(409, 'Conflict', `Operation cannot be fulfilled on ${this.resourceLabel(gk)} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
  }

  private invalid(obj: KubeObject, detail: string): StoreError {
    const group = groupOf(obj.apiVersion ?? '');
    return new StoreError(422, 'Invalid', `${obj.kind}${group ? `.${group}` : ''} "${obj.metadata?.name ?? ''}" is invalid: ${detail}`);
  }
}

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)];
  return s;
}
