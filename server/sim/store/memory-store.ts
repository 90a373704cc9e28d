/**
 * In-memory object store with the semantics the Kubernetes API server gets from etcd + its registry:
 * one global resourceVersion counter, no-op writes that change nothing, optimistic concurrency,
 * finalizers, ownerReference garbage collection and a bounded event history for watches.
 *
 * Objects are kept by group + kind. The version inside apiVersion is kept as written: a kind served in
 * two versions (e.g. Dynamo nvidia.com v1alpha1 and v1beta1) shares one storage and is not converted
 * (like a CRD with `conversion: None`); the API layer only rewrites apiVersion on the way out.
 */

import { randomUUID } from 'node:crypto';
import type {
  DeleteOptions,
  DeleteResult,
  KubeObject,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  OwnerReference,
  WatchEvent,
} from './object-store.ts';
import { StoreError } from './object-store.ts';
import { clone, copyValue, deepEqual, deepFreeze, groupKind, groupOf, nextVersion, ownedCopy, rfc3339, specPart } from './object-utils.ts';

/** What the store needs to know about a kind; the API registry supplies it (see setKindPolicy). */
export interface KindPolicy {
  /** Plural resource name, used in error messages (`pods "x" not found`). */
  resource: string;
  /** Whether `metadata.generation` is tracked (workloads and CRs yes; ConfigMap, Event… no). */
  generation: boolean;
  /** With a status subresource, status changes never bump generation. */
  statusSubresource: boolean;
}

export interface HistoryEntry extends WatchEvent {
  rv: number;
  /** `group/Kind` of the object. */
  gk: string;
  namespace: string;
}

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
const NO_GENERATION = new Set([
  '/ConfigMap', '/Secret', '/Event', '/ServiceAccount', '/Endpoints', '/Namespace', '/Node', '/Pod', '/Service',
  'events.k8s.io/Event', 'coordination.k8s.io/Lease', 'discovery.k8s.io/EndpointSlice',
]);

function defaultPolicy(gk: string): KindPolicy {
  const kind = gk.slice(gk.indexOf('/') + 1);
  const lower = kind.toLowerCase();
  const plural = lower.endsWith('s') ? `${lower}es` : lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s`;
  return { resource: plural, generation: !NO_GENERATION.has(gk), statusSubresource: true };
}

/** One kind: objects by namespace then name, a sorted-order cache and a label index. */
class KindTable {
  readonly byNs = new Map<string, Map<string, KubeObject>>();
  size = 0;
  /** Sorted namespaces and, per namespace, sorted names; invalidated on create/delete only. */
  private sortedNs: string[] | null = null;
  private readonly sortedNames = new Map<string, string[]>();
  /** `key=value` → set of `ns\0name`. */
  readonly labelIndex = new Map<string, Set<string>>();

  get(ns: string, name: string): KubeObject | undefined {
    return this.byNs.get(ns)?.get(name);
  }

  put(ns: string, name: string, obj: KubeObject, prev: KubeObject | undefined): void {
    let m = this.byNs.get(ns);
    if (!m) {
      m = new Map();
      this.byNs.set(ns, m);
      this.sortedNs = null;
    }
    if (!prev) {
      this.size++;
      this.sortedNames.delete(ns);
    }
    m.set(name, obj);
    this.reindexLabels(`${ns}\0${name}`, prev?.metadata.labels, obj.metadata.labels);
  }

  remove(ns: string, name: string): KubeObject | undefined {
    const m = this.byNs.get(ns);
    const prev = m?.get(name);
    if (!m || !prev) return undefined;
    m.delete(name);
    this.size--;
    this.sortedNames.delete(ns);
    if (m.size === 0) {
      this.byNs.delete(ns);
      this.sortedNs = null;
    }
    this.reindexLabels(`${ns}\0${name}`, prev.metadata.labels, undefined);
    return prev;
  }

  private reindexLabels(key: string, before: Record<string, string> | undefined, after: Record<string, string> | undefined): void {
    if (before === after) return;
    if (before) {
      for (const k in before) {
        if (after && after[k] === before[k]) continue;
        const pair = `${k}=${before[k]}`;
        const s = this.labelIndex.get(pair);
        if (s) {
          s.delete(key);
          if (s.size === 0) this.labelIndex.delete(pair);
        }
      }
    }
    if (after) {
      for (const k in after) {
        if (before && before[k] === after[k]) continue;
        const pair = `${k}=${after[k]}`;
        let s = this.labelIndex.get(pair);
        if (!s) this.labelIndex.set(pair, (s = new Set()));
        s.add(key);
      }
    }
  }

  namespaces(): string[] {
    if (!this.sortedNs) this.sortedNs = [...this.byNs.keys()].sort((a, b) => compareBytes(`${a}/`, `${b}/`));
    return this.sortedNs;
  }

  names(ns: string): string[] {
    let names = this.sortedNames.get(ns);
    if (!names) {
      names = [...(this.byNs.get(ns)?.keys() ?? [])].sort(compareBytes);
      this.sortedNames.set(ns, names);
    }
    return names;
  }

  /**
   * One page in key order from `start` (inclusive): O(log n + page) without a filter, so that paging
   * through 100k objects 500 at a time does not re-read everything per page.
   */
  page(namespace: string | undefined, opts: PageOptions): PageResult {
    const match = opts.match;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const labels = opts.labels && Object.keys(opts.labels).length > 0 ? opts.labels : undefined;
    if (labels) {
      // Index path: the (small) matching set, sorted, then the same cursor rules.
      let all = this.list(namespace, labels);
      if (opts.start) {
        const start = opts.start;
        all = all.slice(lowerBound(all.length, (i) => compareBytes(keyOf(all[i]), start) < 0));
      }
      const items: KubeObject[] = [];
      for (const o of all) {
        if (match && !match(o)) continue;
        if (items.length === limit) return { items, nextKey: keyOf(o) };
        items.push(o);
      }
      return { items };
    }
    const nss = namespace === undefined ? this.namespaces() : this.byNs.has(namespace) ? [namespace] : [];
    let nsIdx = 0;
    let nameIdx = 0;
    if (opts.start) {
      const cut = opts.start.indexOf('/');
      const sNs = opts.start.slice(0, cut);
      const sName = opts.start.slice(cut + 1);
      nsIdx = lowerBound(nss.length, (i) => compareBytes(`${nss[i]}/`, `${sNs}/`) < 0);
      if (nss[nsIdx] === sNs) {
        const names = this.names(sNs);
        nameIdx = lowerBound(names.length, (i) => compareBytes(names[i], sName) < 0);
      }
    }
    const items: KubeObject[] = [];
    for (; nsIdx < nss.length; nsIdx++, nameIdx = 0) {
      const ns = nss[nsIdx];
      const names = this.names(ns);
      const m = this.byNs.get(ns)!;
      for (; nameIdx < names.length; nameIdx++) {
        const obj = m.get(names[nameIdx])!;
        if (match && !match(obj)) continue;
        if (items.length === limit) {
          let remaining: number | undefined;
          if (!match) {
            remaining = names.length - nameIdx;
            for (let j = nsIdx + 1; j < nss.length; j++) remaining += this.byNs.get(nss[j])!.size;
          }
          return { items, nextKey: `${ns}/${names[nameIdx]}`, remaining };
        }
        items.push(obj);
      }
    }
    return { items };
  }

  /** Objects in etcd key order (bytes of `namespace/name`), optionally from one namespace. */
  list(namespace: string | undefined, labels: Record<string, string> | undefined): KubeObject[] {
    const out: KubeObject[] = [];
    const wanted = labels && Object.keys(labels).length > 0 ? labels : undefined;
    if (wanted) {
      // The smallest matching index set decides which objects are even looked at.
      let best: Set<string> | undefined;
      for (const k in wanted) {
        const s = this.labelIndex.get(`${k}=${wanted[k]}`);
        if (!s) return out;
        if (!best || s.size < best.size) best = s;
      }
      const keys = [...best!].filter((key) => namespace === undefined || key.slice(0, key.indexOf('\0')) === namespace).map((k) => k.replace('\0', '/')).sort(compareBytes);
      for (const key of keys) {
        const i = key.indexOf('/');
        const obj = this.get(key.slice(0, i), key.slice(i + 1));
        if (obj && labelsMatch(obj.metadata.labels, wanted)) out.push(obj);
      }
      return out;
    }
    const nss = namespace === undefined ? this.namespaces() : this.byNs.has(namespace) ? [namespace] : [];
    for (const ns of nss) {
      const m = this.byNs.get(ns)!;
      for (const name of this.names(ns)) out.push(m.get(name)!);
    }
    return out;
  }
}

export interface PageOptions {
  labels?: Record<string, string>;
  /** Extra predicate (selectors the index cannot answer). */
  match?: (obj: KubeObject) => boolean;
  /** First key (`namespace/name`) of the page. */
  start?: string;
  limit?: number;
}

export interface PageResult {
  items: KubeObject[];
  /** Key of the first object of the next page, when there is one. */
  nextKey?: string;
  /** Objects after this page (only known without a predicate). */
  remaining?: number;
}

/** `namespace/name`: the key objects are ordered by. */
export function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** First index in [0, n) for which `before(i)` is false (before must be monotone). */
function lowerBound(n: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function labelsMatch(labels: Record<string, string> | undefined, wanted: Record<string, string>): boolean {
  for (const k in wanted) if (!labels || labels[k] !== wanted[k]) return false;
  return true;
}

/** Byte-wise order of ASCII keys (UTF-16 order equals byte order for the names Kubernetes allows). */
export function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Ref {
  gk: string;
  ns: string;
  name: string;
}

type GcTask =
  | { type: 'dependents'; ownerUid: string }
  | { type: 'owner'; ref: Ref }
  | { type: 'namespace'; name: string };

export class MemoryStore implements ObjectStore {
  private rv: number;
  private readonly tables = new Map<string, KindTable>();
  private readonly byUid = new Map<string, Ref>();
  /** owner uid → dependents (`gk\x01ns\x01name`). */
  private readonly owners = new Map<string, Set<string>>();
  private readonly handlers = new Set<(event: WatchEvent) => void>();
  private history: HistoryEntry[] = [];
  private historyStart = 0;
  private readonly historySize: number;
  /** Highest resourceVersion no longer in the history: watches from below it get 410. */
  private compactedRv: number;
  private readonly now: () => Date;
  private readonly maxGraceMs: number;
  private policy: (gk: string) => KindPolicy = defaultPolicy;
  private gcQueue: GcTask[] = [];
  private gcScheduled = false;
  private readonly gcWaiters: Array<() => void> = [];
  private readonly graceTimers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    // Seeded from the clock so that a client resuming after a simulator restart never hits a reused RV.
    this.rv = options.initialResourceVersion ?? Math.floor(Date.now() / 1000) * 1000;
    this.compactedRv = this.rv;
    this.historySize = Math.max(1, options.historySize ?? 100_000);
    this.now = options.now ?? (() => new Date());
    this.maxGraceMs = options.maxGraceMs ?? 1000;
  }

  /** Lets the API registry describe kinds (plural names, generation and status rules). */
  setKindPolicy(policy: (group: string, kind: string) => KindPolicy | undefined): void {
    this.policy = (gk) => {
      const i = gk.indexOf('/');
      return policy(gk.slice(0, i), gk.slice(i + 1)) ?? defaultPolicy(gk);
    };
  }

  resourceVersion(): string {
    return String(this.rv);
  }

  /** The compaction floor: watching from a resourceVersion below this answers 410 Expired. */
  oldestResourceVersion(): string {
    return String(this.compactedRv);
  }

  // ---------------------------------------------------------------- reads

  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.tables.get(groupKind(apiVersion, kind))?.get(namespace ?? '', name);
  }

  list(apiVersion: string, kind: string, opts: ListOptions = {}): KubeObject[] {
    const t = this.tables.get(groupKind(apiVersion, kind));
    return t ? t.list(opts.namespace, opts.labels) : [];
  }

  /** A page of a kind in key order (see KindTable.page). */
  listPage(apiVersion: string, kind: string, namespace: string | undefined, opts: PageOptions = {}): PageResult {
    const t = this.tables.get(groupKind(apiVersion, kind));
    return t ? t.page(namespace, opts) : { items: [] };
  }

  /** A list and the resourceVersion it is consistent with (single-threaded: the current one). */
  listWithVersion(apiVersion: string, kind: string, opts: ListOptions = {}): { items: KubeObject[]; resourceVersion: string } {
    return { items: this.list(apiVersion, kind, opts), resourceVersion: this.resourceVersion() };
  }

  count(apiVersion: string, kind: string): number {
    return this.tables.get(groupKind(apiVersion, kind))?.size ?? 0;
  }

  /** Every group/Kind with at least one object ever stored (for persistence and namespace cleanup). */
  kinds(): string[] {
    return [...this.tables.keys()];
  }

  /** Looks an object up by uid (owner checks). */
  getByUid(uid: string): KubeObject | undefined {
    const ref = this.byUid.get(uid);
    return ref ? this.tables.get(ref.gk)?.get(ref.ns, ref.name) : undefined;
  }

  /**
   * Events after `rv` (exclusive), oldest first. Throws StoreError 410 Expired when `rv` is older than
   * the retained history, with the message of the real watch cache.
   */
  historySince(rv: number): HistoryEntry[] {
    if (rv < this.compactedRv) {
      throw new StoreError(410, 'Expired', `too old resource version: ${rv} (${this.compactedRv + 1})`);
    }
    const h = this.history;
    let lo = this.historyStart;
    let hi = h.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return h.slice(lo);
  }

  /** Drops history up to `rv` (default: everything), so that older watches get 410 (tests, faults). */
  compact(rv: number = this.rv): void {
    const target = Math.min(rv, this.rv);
    while (this.historyStart < this.history.length && this.history[this.historyStart].rv <= target) this.historyStart++;
    this.compactedRv = Math.max(this.compactedRv, target);
    this.trimHistory();
  }

  subscribe(handler: (event: WatchEvent) => void): () => void {
    this.handlers.add(handler);
    return () => {
      this.handlers.delete(handler);
    };
  }

  // ---------------------------------------------------------------- writes

  create(input: KubeObject): KubeObject {
    this.checkShape(input);
    const obj = ownedCopy(input);
    const meta: ObjectMeta = obj.metadata;
    const gk = groupKind(obj.apiVersion, obj.kind);
    const ns = meta.namespace ?? '';
    const table = this.table(gk);
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
    meta.resourceVersion = String(++this.rv);
    deepFreeze(obj);
    table.put(ns, meta.name, obj, undefined);
    this.byUid.set(meta.uid, { gk, ns, name: meta.name });
    this.indexOwners(gk, ns, meta.name, undefined, meta.ownerReferences);
    this.emit({ type: 'ADDED', object: obj, rv: this.rv, gk, namespace: ns });
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
    const current = this.tables.get(gk)?.get(ns, name);
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
    if (gk === '/Namespace') return { object: this.terminateNamespace(current), deleted: false };

    const policy = options.propagationPolicy ?? 'Background';
    const add = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
    const grace = options.gracePeriodSeconds ?? 0;
    if (finalizers.length === 0 && !add && grace <= 0) return { object: this.remove(gk, ns, name), deleted: true };

    const next = nextVersion(current);
    const now = this.now();
    next.metadata.deletionTimestamp = rfc3339(grace > 0 ? new Date(now.getTime() + grace * 1000) : now);
    next.metadata.deletionGracePeriodSeconds = Math.max(0, grace);
    if (add && !finalizers.includes(add)) next.metadata.finalizers = [...finalizers, add];
    if (typeof next.metadata.generation === 'number' && next.metadata.generation > 0) next.metadata.generation++;
    const marked = this.commit(gk, ns, name, next, current);
    if (add) this.enqueue({ type: 'owner', ref: { gk, ns, name } });
    if (grace > 0 && (next.metadata.finalizers ?? []).length === 0) this.scheduleGraceEnd(gk, ns, name, marked.metadata.uid!, grace);
    return { object: marked, deleted: false };
  }

  /** Resolves when the garbage collector has nothing left to do (tests; shutdown). */
  idle(): Promise<void> {
    if (!this.gcScheduled && this.gcQueue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.gcWaiters.push(resolve));
  }

  /** Stops timers; the store stays readable. */
  close(): void {
    this.closed = true;
    for (const t of this.graceTimers) clearTimeout(t);
    this.graceTimers.clear();
  }

  /** Everything for a state file: objects of every kind, and the counter. */
  snapshot(): { resourceVersion: string; objects: KubeObject[] } {
    const objects: KubeObject[] = [];
    for (const t of this.tables.values()) objects.push(...t.list(undefined, undefined));
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
      const table = this.table(gk);
      const prev = table.get(ns, name);
      table.put(ns, name, obj, prev);
        if (obj.metadata.uid) this.byUid.set(obj.metadata.uid, { gk, ns, name });
      this.indexOwners(gk, ns, name, prev?.metadata.ownerReferences, obj.metadata.ownerReferences);
    }
    this.rv = Math.max(this.rv, Number(state.resourceVersion) || 0);
    // Nothing before now can be replayed: a client resuming from an old RV relists.
    this.compact(this.rv);
  }

  // ---------------------------------------------------------------- internals

  private write(input: KubeObject, statusOnly: boolean): KubeObject {
    this.checkShape(input);
    const gk = groupKind(input.apiVersion, input.kind);
    const ns = input.metadata.namespace ?? '';
    const name = input.metadata.name;
    if (!name) throw this.invalid(input, 'metadata.name: Required value: name is required');
    const current = this.tables.get(gk)?.get(ns, name);
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
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0 && !this.isGraceful(current)) {
      // The last finalizer is gone: the deletion completes now.
      this.replaceQuietly(gk, ns, name, next, current);
      return this.remove(gk, ns, name);
    }
    return this.commit(gk, ns, name, next, current);
  }

  private isGraceful(obj: KubeObject): boolean {
    const ts = obj.metadata.deletionTimestamp;
    return !!ts && Date.parse(ts) > this.now().getTime() && (obj.metadata.deletionGracePeriodSeconds as number | undefined ?? 0) > 0;
  }

  /** Stores a new state of an existing object: new RV, MODIFIED event. */
  private commit(gk: string, ns: string, name: string, next: KubeObject, current: KubeObject): KubeObject {
    next.metadata.resourceVersion = String(++this.rv);
    deepFreeze(next);
    this.table(gk).put(ns, name, next, current);
    this.indexOwners(gk, ns, name, current.metadata.ownerReferences, next.metadata.ownerReferences);
    this.emit({ type: 'MODIFIED', object: next, previous: current, rv: this.rv, gk, namespace: ns });
    return next;
  }

  /** Swaps the stored state without an event (the DELETED event that follows carries it). */
  private replaceQuietly(gk: string, ns: string, name: string, next: KubeObject, current: KubeObject): void {
    deepFreeze(next);
    this.table(gk).put(ns, name, next, current);
    this.indexOwners(gk, ns, name, current.metadata.ownerReferences, next.metadata.ownerReferences);
  }

  /** Removes an object for good: DELETED event at a new RV; its dependents go to the GC. */
  private remove(gk: string, ns: string, name: string): KubeObject {
    const table = this.table(gk);
    const current = table.get(ns, name)!;
    const last = nextVersion(current);
    last.metadata.resourceVersion = String(++this.rv);
    deepFreeze(last);
    table.remove(ns, name);
    const uid = current.metadata.uid;
    if (uid) this.byUid.delete(uid);
    this.indexOwners(gk, ns, name, current.metadata.ownerReferences, undefined);
    this.emit({ type: 'DELETED', object: last, previous: current, rv: this.rv, gk, namespace: ns });
    if (uid && this.owners.has(uid)) this.enqueue({ type: 'dependents', ownerUid: uid });
    // Owners deleted in the foreground wait for this one.
    for (const ref of current.metadata.ownerReferences ?? []) {
      const owner = this.byUid.get(ref.uid);
      if (owner) this.enqueue({ type: 'owner', ref: owner });
    }
    return last;
  }

  private terminateNamespace(current: KubeObject): KubeObject {
    const next = nextVersion(current);
    next.metadata.deletionTimestamp = rfc3339(this.now());
    next.spec = { ...((next.spec as Record<string, unknown> | undefined) ?? {}), finalizers: ['kubernetes'] };
    next.status = { ...((next.status as Record<string, unknown> | undefined) ?? {}), phase: 'Terminating' };
    const marked = this.commit('/Namespace', '', current.metadata.name!, next, current);
    this.enqueue({ type: 'namespace', name: current.metadata.name! });
    return marked;
  }

  private scheduleGraceEnd(gk: string, ns: string, name: string, uid: string, grace: number): void {
    const t = setTimeout(() => {
      this.graceTimers.delete(t);
      const obj = this.tables.get(gk)?.get(ns, name);
      if (!this.closed && obj && obj.metadata.uid === uid && (obj.metadata.finalizers ?? []).length === 0) this.remove(gk, ns, name);
    }, Math.min(grace * 1000, this.maxGraceMs));
    t.unref();
    this.graceTimers.add(t);
  }

  private emit(entry: HistoryEntry): void {
    this.history.push(entry);
    if (this.history.length - this.historyStart > this.historySize) {
      this.compactedRv = this.history[this.historyStart].rv;
      this.historyStart++;
    }
    this.trimHistory();
    const event: WatchEvent = entry;
    for (const h of this.handlers) {
      try {
        h(event);
      } catch (e) {
        console.error('sim store: watch handler failed', e);
      }
    }
  }

  private trimHistory(): void {
    // Amortised: shift the array only once the dead prefix is as large as the window.
    if (this.historyStart > 1024 && this.historyStart >= this.history.length - this.historyStart) {
      this.history = this.history.slice(this.historyStart);
      this.historyStart = 0;
    }
  }

  private table(gk: string): KindTable {
    let t = this.tables.get(gk);
    if (!t) this.tables.set(gk, (t = new KindTable()));
    return t;
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

  private dependents(uid: string): Ref[] {
    return [...(this.owners.get(uid) ?? [])].map((key) => {
      const [gk, ns, name] = key.split('\x01');
      return { gk, ns, name };
    });
  }

  private enqueue(task: GcTask): void {
    this.gcQueue.push(task);
    if (!this.gcScheduled) {
      this.gcScheduled = true;
      // Like the real garbage collector, cascades happen after the owner's own change, not inside it.
      setImmediate(() => this.runGc());
    }
  }

  private runGc(): void {
    let budget = 5000;
    while (this.gcQueue.length > 0 && budget-- > 0) {
      const task = this.gcQueue.shift()!;
      try {
        if (task.type === 'dependents') this.collectDependents(task.ownerUid);
        else if (task.type === 'owner') this.settleOwner(task.ref);
        else this.cleanNamespace(task.name);
      } catch (e) {
        if (!(e instanceof StoreError)) console.error('sim store: garbage collection failed', e);
      }
    }
    if (this.gcQueue.length > 0) {
      setImmediate(() => this.runGc());
      return;
    }
    this.gcScheduled = false;
    for (const w of this.gcWaiters.splice(0)) w();
  }

  /** An owner is gone: each dependent without a remaining live owner is deleted, else its dangling refs are dropped. */
  private collectDependents(ownerUid: string): void {
    for (const ref of this.dependents(ownerUid)) {
      const dep = this.tables.get(ref.gk)?.get(ref.ns, ref.name);
      if (!dep || dep.metadata.deletionTimestamp && (dep.metadata.finalizers ?? []).length === 0) continue;
      const refs = dep.metadata.ownerReferences ?? [];
      let solid = false;
      let foreground = false;
      for (const r of refs) {
        const owner = this.getByUid(r.uid);
        if (!owner) continue;
        if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes('foregroundDeletion')) foreground = true;
        else solid = true;
      }
      if (solid) {
        const next = nextVersion(dep);
        next.metadata.ownerReferences = refs.filter((r) => this.byUid.has(r.uid));
        if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
        this.commit(ref.gk, ref.ns, ref.name, next, dep);
      } else if (!dep.metadata.deletionTimestamp) {
        this.delete(dep.apiVersion, dep.kind, ref.ns || undefined, ref.name, { propagationPolicy: foreground ? 'Foreground' : 'Background' });
      }
    }
  }

  /** Foreground: delete dependents, finish when none blocks. Orphan: strip the refs, then finish. */
  private settleOwner(ref: Ref): void {
    const owner = this.tables.get(ref.gk)?.get(ref.ns, ref.name);
    if (!owner?.metadata.deletionTimestamp) return;
    const fins = owner.metadata.finalizers ?? [];
    const uid = owner.metadata.uid!;
    if (fins.includes('orphan')) {
      for (const d of this.dependents(uid)) {
        const dep = this.tables.get(d.gk)?.get(d.ns, d.name);
        if (!dep) continue;
        const next = nextVersion(dep);
        next.metadata.ownerReferences = (dep.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
        this.commit(d.gk, d.ns, d.name, next, dep);
      }
      this.dropFinalizer(ref, 'orphan');
      return;
    }
    if (!fins.includes('foregroundDeletion')) return;
    let blocking = 0;
    for (const d of this.dependents(uid)) {
      const dep = this.tables.get(d.gk)?.get(d.ns, d.name);
      if (!dep) continue;
      if (!dep.metadata.deletionTimestamp) {
        this.delete(dep.apiVersion, dep.kind, d.ns || undefined, d.name, { propagationPolicy: 'Foreground' });
      }
      const still = this.tables.get(d.gk)?.get(d.ns, d.name);
      if (still && (still.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion)) blocking++;
    }
    if (blocking === 0) this.dropFinalizer(ref, 'foregroundDeletion');
  }

  private dropFinalizer(ref: Ref, finalizer: string): void {
    const obj = this.tables.get(ref.gk)?.get(ref.ns, ref.name);
    if (!obj) return;
    const next = nextVersion(obj);
    next.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.write(next, false);
  }

  /** Namespace lifecycle: delete everything inside, then the namespace itself. */
  private cleanNamespace(name: string): void {
    let remaining = 0;
    for (const [gk, table] of this.tables) {
      if (!table.byNs.has(name)) continue;
      for (const obj of table.list(name, undefined)) {
        if (!obj.metadata.deletionTimestamp) this.delete(obj.apiVersion, obj.kind, name, obj.metadata.name!);
        else if ((obj.metadata.finalizers ?? []).length === 0 && !this.isGraceful(obj)) this.remove(gk, name, obj.metadata.name!);
      }
      remaining += table.byNs.get(name)?.size ?? 0;
    }
    if (remaining > 0) {
      // Something still holds a finalizer or is terminating gracefully: look again shortly.
      const t = setTimeout(() => {
        this.graceTimers.delete(t);
        if (!this.closed) this.enqueue({ type: 'namespace', name });
      }, 200);
      t.unref();
      this.graceTimers.add(t);
      return;
    }
    const ns = this.tables.get('/Namespace')?.get('', name);
    if (ns) this.remove('/Namespace', '', name);
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
