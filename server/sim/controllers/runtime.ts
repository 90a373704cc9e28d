/**
 * The wiring shared by every simulated controller: one store subscription feeding an owner index and a
 * de-duplicating work queue (like client-go informers + workqueues), delayed requeues on the simulated
 * clock, and write helpers that skip no-op writes. Controllers themselves are small: they declare which
 * kinds they reconcile and own, and implement `reconcile(ns, name)` by reading the store and the index.
 */

import type { SimClock } from '../clock.ts';
import type { KubeObject, ListOptions, ObjectStore, WatchEvent } from '../store/object-store.ts';
import { StoreError } from '../store/object-store.ts';
import { controllerRefOf, gkOf, objGk } from './meta.ts';
import { Rng } from './random.ts';
import type { ResolvedOptions } from './options.ts';
import type { Pod } from './types.ts';
import { deepEqual } from '../store/object-utils.ts';

export interface Controller {
  /** Unique name, also the prefix of its queue keys. */
  readonly name: string;
  /** `group/Kind` of the objects this controller reconciles. */
  readonly primary: string;
  /** `group/Kind`s of children: a change to one requeues its controller owner when that is a primary. */
  readonly owns?: readonly string[];
  /** Other kinds whose changes requeue primaries (by reference, label, name …). */
  readonly watches?: ReadonlyArray<{ gk: string; map: (obj: KubeObject, rt: Runtime) => Array<[string, string]> }>;
  /**
   * Queue level: lower levels run first. Pods (scheduler, kubelet) are 0, core controllers 1, operators 2,
   * so an owner reconciles once its children have settled instead of once per child change.
   */
  readonly priority?: number;
  /** Called once before the first event (controllers with in-memory state seed it here). */
  init?(rt: Runtime): void;
  /** Called for every store event, synchronously, before any reconcile (for in-memory bookkeeping). */
  observe?(event: WatchEvent, rt: Runtime): void;
  reconcile(rt: Runtime, namespace: string, name: string): void;
  /** Called whenever the queue has run dry (e.g. the scheduler retries pods after capacity changed). */
  onIdle?(rt: Runtime): void;
  stop?(): void;
}

interface QueueItem {
  ctrl: Controller;
  ns: string;
  name: string;
}

/** FIFO with an advancing head (no per-item shifting). */
class Fifo {
  items: QueueItem[] = [];
  head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: QueueItem): void {
    this.items.push(item);
  }

  shift(): QueueItem | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

const LEVELS = 3;

/** Children by owner uid, kept from the event stream (the store's own index is private). */
class OwnerIndex {
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

export class Runtime {
  readonly store: ObjectStore;
  readonly clock: SimClock;
  readonly options: ResolvedOptions;
  /** Names and other choices that must be reproducible for a seed. */
  readonly rng: Rng;
  private readonly index = new OwnerIndex();
  private readonly controllers: Controller[] = [];
  private readonly byName = new Map<string, Controller>();
  private readonly primaries = new Map<string, Controller[]>();
  private readonly owners = new Map<string, Controller[]>();
  private readonly watchers = new Map<string, Array<{ ctrl: Controller; map: (obj: KubeObject, rt: Runtime) => Array<[string, string]> }>>();
  private readonly queues: Fifo[] = Array.from({ length: LEVELS }, () => new Fifo());
  private readonly queued = new Set<string>();
  private readonly delayed = new Map<string, { id: number; due: number }>();
  private unsubscribe: (() => void) | undefined;
  private unhook: (() => void) | undefined;
  private drainScheduled = false;
  private draining = false;
  private stopped = false;
  private readonly conflicts = new Map<string, number>();
  /** Reconciles run so far (for benchmarks and loop diagnostics). */
  reconciles = 0;
  writes = 0;

  constructor(store: ObjectStore, clock: SimClock, options: ResolvedOptions) {
    this.store = store;
    this.clock = clock;
    this.options = options;
    this.rng = new Rng(options.seed);
  }

  register(ctrl: Controller): void {
    this.controllers.push(ctrl);
    this.byName.set(ctrl.name, ctrl);
    push(this.primaries, ctrl.primary, ctrl);
    for (const gk of ctrl.owns ?? []) push(this.owners, `${ctrl.primary}|${gk}`, ctrl);
    for (const w of ctrl.watches ?? []) push(this.watchers, w.gk, { ctrl, map: w.map });
  }

  /** Subscribes, seeds the index from what the store already holds and queues every primary. */
  start(): void {
    for (const obj of existingObjects(this.store, this.knownKinds())) this.index.apply({ type: 'ADDED', object: obj });
    for (const c of this.controllers) c.init?.(this);
    this.observers = this.controllers.filter((c) => typeof c.observe === 'function');
    this.unsubscribe = this.store.subscribe((e) => this.onEvent(e));
    for (const obj of existingObjects(this.store, [...this.primaries.keys()])) {
      for (const c of this.primaries.get(objGk(obj)) ?? []) this.enqueue(c, obj.metadata.namespace ?? '', obj.metadata.name!);
    }
    // Manual clock: whatever a timer caused is reconciled before the next timer fires.
    this.unhook = this.clock.onAfterTimers(() => {
      if (this.clock.mode === 'manual') this.settle();
      else this.scheduleDrain();
    });
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unhook?.();
    for (const d of this.delayed.values()) this.clock.clearTimeout(d.id);
    this.delayed.clear();
    for (const c of this.controllers) c.stop?.();
    for (const q of this.queues) q.clear();
    this.queued.clear();
  }

  private knownKinds(): string[] {
    const s = new Set<string>(this.primaries.keys());
    for (const k of this.owners.keys()) s.add(k.split('|')[1]);
    for (const k of this.watchers.keys()) s.add(k);
    return [...s];
  }

  private observers: Controller[] = [];
  private readonly gkCache = new Map<string, string>();

  /** `group/Kind` of an apiVersion + kind, memoised (called for every event). */
  private gk(apiVersion: string, kind: string): string {
    const k = `${apiVersion}\x00${kind}`;
    let v = this.gkCache.get(k);
    if (v === undefined) {
      v = gkOf(apiVersion, kind);
      this.gkCache.set(k, v);
    }
    return v;
  }

  private onEvent(event: WatchEvent): void {
    if (this.stopped) return;
    this.index.apply(event);
    const obj = event.object;
    const gk = this.gk(obj.apiVersion, obj.kind);
    for (const c of this.observers) c.observe!(event, this);
    const ns = obj.metadata.namespace ?? '';
    const prim = this.primaries.get(gk);
    if (prim) for (const c of prim) this.enqueue(c, ns, obj.metadata.name!);
    const ref = controllerRefOf(obj);
    if (ref) {
      const owners = this.owners.get(`${this.gk(ref.apiVersion, ref.kind)}|${gk}`);
      if (owners) for (const c of owners) this.enqueue(c, ns, ref.name);
    }
    const prevRef = event.previous ? controllerRefOf(event.previous) : undefined;
    if (prevRef && prevRef.uid !== ref?.uid) {
      for (const c of this.owners.get(`${this.gk(prevRef.apiVersion, prevRef.kind)}|${gk}`) ?? []) this.enqueue(c, ns, prevRef.name);
    }
    const watchers = this.watchers.get(gk);
    if (watchers) {
      for (const w of watchers) {
        for (const [n, name] of w.map(obj, this)) this.enqueue(w.ctrl, n, name);
      }
    }
  }

  // ------------------------------------------------------------------ queue

  enqueue(ctrl: Controller | string, ns: string, name: string): void {
    const c = typeof ctrl === 'string' ? this.byName.get(ctrl) : ctrl;
    if (!c || this.stopped) return;
    const key = `${c.name}\x00${ns}\x00${name}`;
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queues[Math.min(LEVELS - 1, Math.max(0, c.priority ?? 1))].push({ ctrl: c, ns, name });
    this.scheduleDrain();
  }

  /** Requeues after `ms` simulated milliseconds (keeps the earliest when asked twice). */
  after(ctrl: Controller | string, ns: string, name: string, ms: number): void {
    const c = typeof ctrl === 'string' ? this.byName.get(ctrl) : ctrl;
    if (!c || this.stopped) return;
    if (ms <= 0) {
      this.enqueue(c, ns, name);
      return;
    }
    const key = `${c.name}\x00${ns}\x00${name}`;
    const due = this.clock.now() + ms;
    const prev = this.delayed.get(key);
    if (prev && prev.due <= due) return;
    if (prev) this.clock.clearTimeout(prev.id);
    const id = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.enqueue(c, ns, name);
    }, ms);
    this.delayed.set(key, { id, due });
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.draining || !this.options.autoDrain) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      if (this.stopped) return;
      // A bounded slice per macrotask keeps the API server responsive during big bursts.
      const more = this.drain(this.options.drainBudgetMs);
      if (more) this.scheduleDrain();
    });
  }

  /** Runs queued reconciles until the queue is empty (and idle hooks add nothing). */
  settle(): void {
    if (this.draining) return;
    this.drain(Infinity);
  }

  /** Returns true when work is left after the time budget. */
  private drain(budgetMs: number): boolean {
    if (this.draining) return false;
    this.draining = true;
    const deadline = budgetMs === Infinity ? Infinity : Date.now() + budgetMs;
    let n = 0;
    try {
      for (;;) {
        for (let item = this.next(); item; item = this.next()) {
          this.queued.delete(`${item.ctrl.name}\x00${item.ns}\x00${item.name}`);
          this.runOne(item);
          if (++n > this.options.maxReconcilesPerSettle) {
            throw new Error(`sim controllers: more than ${this.options.maxReconcilesPerSettle} reconciles without settling (a loop?) last: ${item.ctrl.name} ${item.ns}/${item.name}`);
          }
          if ((n & 255) === 0 && Date.now() > deadline) return true;
        }
        for (const c of this.controllers) c.onIdle?.(this);
        if (this.queues.every((q) => q.size === 0)) return false;
      }
    } finally {
      this.draining = false;
    }
  }

  private next(): QueueItem | undefined {
    for (const q of this.queues) {
      const item = q.shift();
      if (item) return item;
    }
    return undefined;
  }

  private runOne(item: QueueItem): void {
    this.reconciles++;
    try {
      item.ctrl.reconcile(this, item.ns, item.name);
    } catch (e) {
      const key = `${item.ctrl.name}\x00${item.ns}\x00${item.name}`;
      if (e instanceof StoreError && (e.reason === 'Conflict' || e.reason === 'NotFound' || e.reason === 'AlreadyExists')) {
        // Someone else wrote first (or the object went away): look again, a bounded number of times.
        const n = (this.conflicts.get(key) ?? 0) + 1;
        this.conflicts.set(key, n);
        if (n <= 5) this.enqueue(item.ctrl, item.ns, item.name);
        else this.after(item.ctrl, item.ns, item.name, 1000);
        if (this.conflicts.size > 10_000) this.conflicts.clear();
        return;
      }
      this.options.onError(e, `${item.ctrl.name} ${item.ns}/${item.name}`);
    }
  }

  // ------------------------------------------------------------------ reads

  get<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, ns: string | undefined, name: string): T | undefined {
    return this.store.get(apiVersion, kind, ns || undefined, name) as T | undefined;
  }

  list<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, opts?: ListOptions): T[] {
    return this.store.list(apiVersion, kind, opts) as T[];
  }

  /** Objects whose controller reference points at `owner`, optionally of one `group/Kind`. */
  children<T extends KubeObject = KubeObject>(owner: KubeObject | string, gk?: string): T[] {
    const uid = typeof owner === 'string' ? owner : owner.metadata.uid!;
    const out: T[] = [];
    for (const c of this.index.children(uid)) {
      if (gk && objGk(c) !== gk) continue;
      const ref = controllerRefOf(c);
      if (ref && ref.uid === uid) out.push(c as T);
    }
    return out;
  }

  now(): string {
    return this.clock.iso();
  }

  nowMs(): number {
    return this.clock.now();
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

  /**
   * Mutating admission for pods, in registration order (operators with pod webhooks, like
   * LeaderWorkerSet, register here). Applies to pods the simulated controllers create.
   */
  readonly podWebhooks: Array<(pod: Pod, rt: Runtime) => Pod> = [];

  /**
   * Bulk path for building big scenarios: when on, a new pod is placed and started before it is stored
   * (scheduler and kubelet decide in memory), so it is written once, already Running, instead of three
   * times. The result is the same state the normal path reaches with zero start-up time.
   */
  instantPods = false;
  /** Filled by the scheduler and kubelet: place / start a pod that is about to be created. */
  readonly instantHooks: Array<(pod: Pod, rt: Runtime) => Pod> = [];

  createPod(pod: Pod): Pod {
    let p = pod;
    for (const w of this.podWebhooks) p = w(p, this);
    if (this.instantPods) {
      // The hooks key their bookkeeping by name, so the pod is named first (a clash is re-drawn).
      if (!p.metadata.name && p.metadata.generateName) {
        for (let i = 0; i < 20; i++) {
          const name = p.metadata.generateName.slice(0, 58) + this.rng.suffix(5);
          if (!this.store.get('v1', 'Pod', p.metadata.namespace, name)) {
            p = { ...p, metadata: { ...p.metadata, name } };
            break;
          }
        }
      }
      for (const h of this.instantHooks) p = h(p, this);
    }
    return this.create(p);
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
    const cur = this.store.get(desired.apiVersion, desired.kind, desired.metadata.namespace, desired.metadata.name!) as T | undefined;
    return cur ?? this.create(desired);
  }

  /** Like apply, for Services: the allocated cluster IP of an existing Service is kept. */
  applyService<T extends KubeObject>(desired: T): T {
    const cur = this.store.get(desired.apiVersion, desired.kind, desired.metadata.namespace, desired.metadata.name!) as T | undefined;
    if (!cur) return this.create(desired);
    const want = desired.metadata.ownerReferences?.find((r) => r.controller);
    const have = cur.metadata.ownerReferences?.find((r) => r.controller);
    if (want && have && want.uid !== have.uid) return cur;
    const cs = (cur.spec ?? {}) as Record<string, unknown>;
    const ds = (desired.spec ?? {}) as Record<string, unknown>;
    return this.syncObject(cur, { ...desired, spec: { ...ds, clusterIP: cs.clusterIP, clusterIPs: cs.clusterIPs } });
  }

  /**
   * Creates `desired` if missing, else syncs it. An object controlled by another owner (e.g. a child of a
   * deleted owner the garbage collector has not reached yet) is never adopted: it is left alone and
   * returned as it is, like controller-runtime refuses to take over objects with a foreign controller.
   */
  apply<T extends KubeObject>(desired: T): T {
    const cur = this.store.get(desired.apiVersion, desired.kind, desired.metadata.namespace, desired.metadata.name!) as T | undefined;
    if (!cur) return this.create(desired);
    const want = desired.metadata.ownerReferences?.find((r) => r.controller);
    const have = cur.metadata.ownerReferences?.find((r) => r.controller);
    if (want && have && want.uid !== have.uid) return cur;
    return this.syncObject(cur, desired);
  }
}

function push<V>(m: Map<string, V[]>, k: string, v: V): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

/** Everything the store holds of the given kinds (all kinds when the store can tell). */
function existingObjects(store: ObjectStore, gks: string[]): KubeObject[] {
  const s = store as ObjectStore & { snapshot?: () => { objects: KubeObject[] } };
  const wanted = new Set(gks);
  if (typeof s.snapshot === 'function') return s.snapshot().objects.filter((o) => wanted.has(objGk(o)) || wanted.size === 0);
  const out: KubeObject[] = [];
  for (const gk of gks) {
    const i = gk.indexOf('/');
    const group = gk.slice(0, i);
    // Version does not matter to the store's lookup by group + kind.
    out.push(...store.list(group ? `${group}/v1` : 'v1', gk.slice(i + 1)));
  }
  return out;
}

/** Structural equality of JSON values, key order ignored, undefined members ignored (the store's own rule). */
export { deepEqual };
