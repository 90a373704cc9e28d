/**
 * The wiring shared by every simulated controller: one store subscription feeding an owner index and a
 * de-duplicating work queue (like client-go informers + workqueues), delayed requeues on the simulated
 * clock, and write helpers that skip no-op writes (StoreClient, which the Runtime extends). Controllers
 * themselves are small: they declare which kinds they reconcile and own, and implement
 * `reconcile(ns, name)` by reading the store and the index.
 */

import type { SimClock } from '../clock.ts';
import type { KubeObject, ObjectStore, WatchEvent } from '../store/object-store.ts';
import { StoreError } from '../store/object-store.ts';
import type { EventSource, EventType } from './event-recorder.ts';
import { EventRecorder } from './event-recorder.ts';
import { ChildLimitError, failedCreateReason, MAX_CHILDREN_PER_OWNER } from './limits.ts';
import { controllerRefOf, gkOf, objGk } from './meta.ts';
import { OwnerIndex } from './owner-index.ts';
import { Rng } from './random.ts';
import type { ResolvedOptions } from './options.ts';
import type { QueueItem } from './reconcile-queue.ts';
import { queueKey, ReconcileQueue } from './reconcile-queue.ts';
import { StoreClient } from './store-client.ts';
import type { Pod } from './types.ts';

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

export class Runtime extends StoreClient {
  readonly clock: SimClock;
  readonly options: ResolvedOptions;
  private readonly index = new OwnerIndex();
  private readonly controllers: Controller[] = [];
  private readonly byName = new Map<string, Controller>();
  private readonly primaries = new Map<string, Controller[]>();
  private readonly owners = new Map<string, Controller[]>();
  private readonly watchers = new Map<string, Array<{ ctrl: Controller; map: (obj: KubeObject, rt: Runtime) => Array<[string, string]> }>>();
  private readonly queue = new ReconcileQueue();
  private readonly delayed = new Map<string, { id: number; due: number }>();
  private unsubscribe: (() => void) | undefined;
  private unhook: (() => void) | undefined;
  private drainScheduled = false;
  private draining = false;
  private stopped = false;
  private readonly conflicts = new Map<string, number>();
  /** Reconciles run so far (for benchmarks and loop diagnostics). */
  reconciles = 0;

  constructor(store: ObjectStore, clock: SimClock, options: ResolvedOptions) {
    super(store, new Rng(options.seed));
    this.clock = clock;
    this.options = options;
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
    this.queue.clear();
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
    if (this.queue.add(c, ns, name)) this.scheduleDrain();
  }

  /** Requeues after `ms` simulated milliseconds (keeps the earliest when asked twice). */
  after(ctrl: Controller | string, ns: string, name: string, ms: number): void {
    const c = typeof ctrl === 'string' ? this.byName.get(ctrl) : ctrl;
    if (!c || this.stopped) return;
    if (ms <= 0) {
      this.enqueue(c, ns, name);
      return;
    }
    const key = queueKey(c, ns, name);
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
        for (let item = this.queue.next(); item; item = this.queue.next()) {
          this.runOne(item);
          if (++n > this.options.maxReconcilesPerSettle) {
            throw new Error(`sim controllers: more than ${this.options.maxReconcilesPerSettle} reconciles without settling (a loop?) last: ${item.ctrl.name} ${item.ns}/${item.name}`);
          }
          if ((n & 255) === 0 && Date.now() > deadline) return true;
        }
        for (const c of this.controllers) c.onIdle?.(this);
        if (this.queue.isEmpty()) return false;
      }
    } finally {
      this.draining = false;
    }
  }

  private runOne(item: QueueItem): void {
    this.reconciles++;
    try {
      this.current = item.ctrl;
      item.ctrl.reconcile(this, item.ns, item.name);
    } catch (e) {
      // The owner has all the children it may have; the event says so, and a child's change requeues it.
      if (e instanceof ChildLimitError) return;
      const key = queueKey(item.ctrl, item.ns, item.name);
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

  // ------------------------------------------------------------------ bounded creates and events

  /** The controller whose reconcile is running (the source of the events it records). */
  private current: Controller | undefined;
  /** Events through the real recorders' aggregation and spam filter (event-recorder.ts). */
  private readonly recorder = new EventRecorder({
    nowMs: () => this.nowMs(),
    get: (apiVersion, kind, ns, name) => this.store.get(apiVersion, kind, ns, name),
    create: (obj) => super.create(obj),
    update: (obj) => super.update(obj),
  });

  /**
   * Creates an object, unless its controller owner already has MAX_CHILDREN_PER_OWNER children of its kind: then a
   * Warning event goes to the owner and the reconcile stops with a ChildLimitError.
   */
  override create<T extends KubeObject>(obj: T): T {
    const ref = controllerRefOf(obj);
    if (ref && this.index.count(ref.uid, obj.apiVersion, obj.kind) >= MAX_CHILDREN_PER_OWNER) {
      const owner = this.store.get(ref.apiVersion, ref.kind, obj.metadata.namespace, ref.name);
      const what = `${obj.kind} ${obj.metadata.name ?? `${obj.metadata.generateName ?? ''}…`}`;
      const message = `not creating ${what}: ${ref.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${ref.name} already has ${MAX_CHILDREN_PER_OWNER} of them, the most the simulated cluster creates for one owner`;
      if (owner) this.recordEvent(owner, 'Warning', failedCreateReason(ref.kind), message);
      throw new ChildLimitError(message);
    }
    return super.create(obj);
  }

  /**
   * Records an Event about `obj` as client-go's recorder does: a repeat of the same reason and message
   * updates one Event (count, lastTimestamp) instead of adding another, and the spam filter drops
   * repeats beyond its budget. The source defaults to the running controller (core style).
   */
  recordEvent(obj: KubeObject, type: EventType, reason: string, message: string, source?: Partial<EventSource>): void {
    this.recorder.record(obj, type, reason, message, { component: this.current?.name ?? 'sim-controller', ...source });
  }

  // ------------------------------------------------------------------ reads

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

  // ------------------------------------------------------------------ pod admission

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
export { deepEqual } from '../store/object-utils.ts';
