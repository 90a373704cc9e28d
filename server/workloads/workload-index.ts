/**
 * The live workload index: objects of every cluster joined with the definitions into rows.
 * - Each cluster's owner graph (owner-graph.ts) walks any object up to its **root**: the highest
 *   object on its ownership chain that a definition serves (a JobSet, a bare Job or Deployment via
 *   the core definitions, but not the Jobs of a JobSet), else the chain's top (a workload without a
 *   definition). One root is one row.
 * - An object event queues the root it belongs to (before and after the change) in a
 *   de-duplicating work queue; a flush resolves each queued root once (resolver.ts).
 * - Flushes are coalesced over a short window and emit row deltas into the delta log
 *   (delta-log.ts), from which clients resume.
 * - Each row remembers the kinds it was built from; while one of them is failing (the live layer
 *   says which), the row is marked stale (staleness.ts) without being resolved again.
 */
import { DEFAULT_GPU_RESOURCES, gpuResourceMatcher, type GpuResourceMatcher, type KubeObject } from '../engine/index.ts';
import { logger } from '../log/index.ts';
import { instruments } from '../metrics/index.ts';
import { DefinitionHealth } from './definition-health.ts';
import { entryFromClusterObject, type DefinitionSet } from './definitions.ts';
import { DEFINITION_KINDS, groupKindOf } from './group-kind.ts';
import { uidOf, type RootFound, type RootRule } from './owner-graph.ts';
import { newClusterState, nodeWorthChanged, NODE_GK, objectsOfKind, POD_GK, rootRule, type Built, type ClusterState, type IndexOptions } from './cluster-state.ts';
import { resolveRoot, resolveUnserved, rowOfResolved, type Resolved } from './resolver.ts';
import type { RowDelta, WorkloadRow } from './row.ts';
import { RowTable, type DeltaListener } from './row-table.ts';
import { changedKinds, POD_KIND, type KindHealth } from './staleness.ts';
import { decoratedRow, redecorate, stalenessAnew, usageCoverage, withUsage } from './row-decoration.ts';
import { gpuHoldersOf } from './usage-join.ts';
import type { UsageSnapshot } from '../usage/index.ts';
import { nodeGpuInfo } from '../../lib/gpu/device-worth.ts';

export type { DeltaListener, IndexOptions };

export class WorkloadIndex {
  readonly definitions: DefinitionSet;
  /** How each definition does on the live objects; quarantines the ones that exceed their budgets. */
  readonly health = new DefinitionHealth();
  private readonly clusters = new Map<string, ClusterState>();
  private readonly rows: RowTable;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly opts: IndexOptions;
  /** The GPU resource names and prefixes counted (also by the conservation check). */
  readonly gpuResources: readonly string[];
  private readonly isGpu: GpuResourceMatcher;
  /** Called when the set of kinds worth watching may have changed (definitions changed). */
  onDefinitionsChanged: ((cluster: string) => void) | null = null;

  constructor(definitions: DefinitionSet, opts: IndexOptions = {}) {
    this.definitions = definitions;
    this.opts = opts;
    this.gpuResources = opts.gpuResources ?? DEFAULT_GPU_RESOURCES;
    this.isGpu = gpuResourceMatcher(this.gpuResources);
    this.rows = new RowTable({ maxEntries: opts.historySize ?? 20_000, maxBytes: opts.historyBytes });
    this.health.onQuarantine = (cluster, d, reason) => {
      logger('workloads').warn({ cluster, definition: d.name, source: d.source, reason }, 'definition quarantined');
      // Its workloads now show why; the others are untouched.
      this.recomputeCluster(cluster);
    };
  }

  private cluster(name: string): ClusterState {
    const c = this.clusters.get(name) ?? newClusterState(this.queueClock(name));
    this.clusters.set(name, c);
    return c;
  }

  get currentSeq(): number {
    return this.rows.log.currentSeq;
  }

  subscribe(l: DeltaListener): () => void {
    return this.rows.subscribe(l);
  }

  allRows(): WorkloadRow[] {
    return this.rows.all();
  }

  row(id: string): WorkloadRow | undefined {
    return this.rows.get(id);
  }

  /** Deltas after `seq`, or null when they are no longer kept (the client needs a snapshot). */
  deltasSince(seq: number): RowDelta[] | null {
    return this.rows.log.since(seq);
  }

  /** How many deltas the log keeps, and their bytes. */
  logSize(): { deltas: number; bytes: number } {
    return { deltas: this.rows.log.length, bytes: this.rows.log.byteSize };
  }

  /** Clusters the index holds objects of. */
  clusterNames(): string[] {
    return [...this.clusters.keys()];
  }

  objectCount(cluster?: string): number {
    const states = cluster ? [this.clusters.get(cluster)] : [...this.clusters.values()];
    return states.reduce((n, c) => n + (c?.graph.size ?? 0), 0);
  }

  /** Objects held in a cluster, by group-kind (the metrics' `wmap_objects`). */
  objectsByKind(cluster: string): Array<{ kind: string; count: number }> {
    const c = this.clusters.get(cluster);
    if (!c) return [];
    return [...c.graph.kinds()].filter(([, uids]) => uids.size > 0).map(([kind, uids]) => ({ kind, count: uids.size }));
  }

  // ----- object events -----

  upsert(cluster: string, obj: KubeObject): void {
    this.upsertMany(cluster, [obj], false);
  }

  /**
   * Adds or replaces objects (a watch event, a page of a list). With `skipUnchanged`, objects held
   * already (the same object, or the same resourceVersion) are skipped: a list that follows its own
   * pages, or a relist after 410, stays cheap. The roots touched are found in bulk, with owner walks
   * shared between siblings (100,000 pods have a few thousand owners).
   */
  upsertMany(cluster: string, objs: readonly KubeObject[], skipUnchanged = true): void {
    const c = this.cluster(cluster);
    const changed: KubeObject[] = [];
    const before = new Map<string, RootFound>();
    for (const obj of objs) {
      const uid = uidOf(obj);
      if (!uid) continue;
      const prev = c.graph.get(uid);
      if (skipUnchanged && prev && (prev === obj || (prev.metadata?.resourceVersion && prev.metadata.resourceVersion === obj.metadata?.resourceVersion))) continue;
      // The root the previous version belonged to, before the ownership links change.
      if (prev) this.queueRootOf(cluster, c, prev, before);
      changed.push(obj);
    }
    const definitionsChanged: KubeObject[] = [];
    let worthChanged = false;
    for (const obj of changed) {
      // A node whose GPU labels change what its devices are worth (MIG product, time-slicing) changes its pods' totals.
      if (obj.kind === 'Node' && obj.apiVersion === 'v1') worthChanged ||= nodeWorthChanged(c.graph.nodeGpu(String(obj.metadata?.name ?? '')), nodeGpuInfo(obj.metadata?.labels));
      c.graph.put(obj);
      if (DEFINITION_KINDS.has(groupKindOf(obj))) definitionsChanged.push(obj);
    }
    const after = new Map<string, RootFound>();
    for (const obj of changed) {
      this.queueRootOf(cluster, c, obj, after);
      // Objects that were waiting for this owner may have been roots of their own.
      for (const child of c.graph.childrenOf(uidOf(obj))) if (c.roots.has(child) || c.ahead.has(child)) c.queue.add(child);
    }
    for (const obj of definitionsChanged) this.definitionChanged(cluster, uidOf(obj), obj);
    if (worthChanged) this.recomputeCluster(cluster);
    if (changed.length > 0) this.scheduleFlush();
  }

  remove(cluster: string, obj: KubeObject): void {
    const c = this.cluster(cluster);
    const uid = uidOf(obj);
    const prev = c.graph.get(uid);
    if (!prev) return;
    this.queueRootOf(cluster, c, prev);
    c.graph.delete(uid);
    if (DEFINITION_KINDS.has(groupKindOf(prev))) this.definitionChanged(cluster, uid, null);
    for (const child of c.graph.childrenOf(uid)) {
      const o = c.graph.get(child);
      if (o) this.queueRootOf(cluster, c, o);
    }
    this.scheduleFlush();
  }

  /** A complete list of one kind: reconcile (objects missing from it are deleted). */
  replaceKind(cluster: string, gk: string, objects: KubeObject[]): void {
    const c = this.cluster(cluster);
    const keep = new Set(objects.map(uidOf));
    for (const uid of [...c.graph.uidsOfKind(gk)]) {
      if (!keep.has(uid)) {
        const o = c.graph.get(uid);
        if (o) this.remove(cluster, o);
      }
    }
    // Both remove() and upsertMany() schedule the flush when they changed anything.
    this.upsertMany(cluster, objects);
  }

  /** Forgets a cluster (removed from the configuration): its rows are removed, its definitions dropped. */
  dropCluster(cluster: string): RowDelta[] {
    const c = this.clusters.get(cluster);
    if (!c) return [];
    this.clusters.delete(cluster);
    const deltas: RowDelta[] = [];
    for (const id of c.roots.values()) this.rows.remove(id, deltas);
    this.definitions.dropCluster(cluster);
    this.rows.emit(deltas);
    return deltas;
  }

  private definitionChanged(cluster: string, uid: string, obj: KubeObject | null): void {
    const before = this.definitions.clusterEntry(cluster, uid);
    const entry = obj ? entryFromClusterObject(cluster, obj) : null;
    this.health.replaced(cluster, before ?? null, entry);
    this.definitions.setClusterDefinition(cluster, uid, entry);
    this.recomputeCluster(cluster);
    this.onDefinitionsChanged?.(cluster);
  }

  /** Definitions changed: every object may have become (or stopped being) a root. */
  recomputeCluster(cluster: string): void {
    const c = this.cluster(cluster);
    for (const uid of c.roots.keys()) c.queue.add(uid);
    const served = this.definitions.effective(cluster);
    for (const [gk, uids] of c.graph.kinds()) {
      if (!served.has(gk)) continue;
      for (const uid of uids) c.queue.add(uid);
    }
    this.scheduleFlush();
  }

  // ----- roots -----

  private rule(cluster: string): RootRule {
    return rootRule(this.definitions.effective(cluster), this.opts, cluster);
  }

  private rootOf(cluster: string, c: ClusterState, obj: KubeObject, memo?: Map<string, RootFound>): RootFound {
    return c.graph.rootOf(obj, this.rule(cluster), memo);
  }

  private isRootObject(cluster: string, c: ClusterState, obj: KubeObject): boolean {
    const r = this.rootOf(cluster, c, obj);
    return 'uid' in r && r.uid === uidOf(obj);
  }

  private queueRootOf(cluster: string, c: ClusterState, obj: KubeObject, memo?: Map<string, RootFound>): void {
    const r = this.rootOf(cluster, c, obj, memo);
    if ('uid' in r) c.queue.add(r.uid);
    else c.waiting.add(r.waiting);
  }

  /**
   * Which kinds of a cluster are failing now (from the live layer). Rows built from a kind whose
   * state changed are marked (or no longer marked) stale and emitted; nothing is resolved again.
   */
  setKindHealth(cluster: string, health: KindHealth): RowDelta[] {
    const c = this.cluster(cluster);
    const changed = changedKinds(c.health, health);
    c.health = new Map(health);
    if (changed.size === 0) return [];
    return redecorate(this.rows, cluster, c, stalenessAnew(c));
  }

  /**
   * A cluster's new utilization readings: the rows holding GPUs get their figures joined anew, and
   * only those whose figures changed are emitted. Nothing is resolved again.
   */
  setUsage(cluster: string, snap: UsageSnapshot): RowDelta[] {
    const c = this.cluster(cluster);
    c.usage = snap;
    return redecorate(this.rows, cluster, c, (built, row) => withUsage(row, built, c));
  }

  /** A cluster's readings and how many of its GPU pods they cover. */
  usage(cluster: string): { snapshot: UsageSnapshot | null; coverage: { gpuPods: number; withMetrics: number } } {
    return { snapshot: this.clusters.get(cluster)?.usage ?? null, coverage: usageCoverage(this.clusters.get(cluster)) };
  }

  /** The GPU pods of a row as last resolved (for the detail page's figures). */
  holdersOf(id: string): Built['holders'] {
    const root = this.rows.rootOf(id);
    return (root && this.clusters.get(root.cluster)?.built.get(root.uid)?.holders) || [];
  }

  /** Resolves one workload now (for the detail API). */
  resolve(cluster: string, rootUid: string): Resolved | null {
    const c = this.clusters.get(cluster);
    if (!c) return null;
    const obj = c.graph.get(rootUid);
    const rule = this.rule(cluster);
    const memo = new Map<string, RootFound>();
    const found = obj ? c.graph.rootOf(obj, rule, memo) : null;
    return this.resolveAt(cluster, c, rootUid, found !== null && 'uid' in found && found.uid === rootUid && !found.served, rule, memo);
  }

  /** A root's tree: by its definitions, or from the pods whose walk ends here (served objects below have their own rows). */
  private resolveAt(cluster: string, c: ClusterState, uid: string, unserved: boolean, rule: RootRule, memo: Map<string, RootFound>): Resolved | null {
    if (!unserved) return resolveRoot(this.definitions, cluster, c.graph, uid, this.health, this.isGpu);
    return resolveUnserved(cluster, c.graph, uid, (o) => { const p = c.graph.rootOf(o, rule, memo); return 'uid' in p && p.uid === uid; }, this.isGpu);
  }

  /** Which extended resources count as GPUs here. */
  get isGpuResource(): GpuResourceMatcher {
    return this.isGpu;
  }

  /** An object the index holds, by uid. */
  object(cluster: string, uid: string): KubeObject | undefined {
    return this.clusters.get(cluster)?.graph.get(uid);
  }

  /** The uids of everything a root validly owns, at any depth (its events' subjects). */
  ownedUids(cluster: string, rootUid: string): string[] {
    return (this.clusters.get(cluster)?.graph.ownedBy(rootUid) ?? []).map((o) => o.metadata?.uid ?? '').filter(Boolean);
  }

  /** The cluster's live pods as the index holds them (for the conservation check). */
  pods(cluster: string): Iterable<KubeObject> {
    return objectsOfKind(this.clusters.get(cluster), POD_GK);
  }

  /** The cluster's nodes as the index holds them (for GPU capacity). */
  nodes(cluster: string): Iterable<KubeObject> {
    return objectsOfKind(this.clusters.get(cluster), NODE_GK);
  }

  /** The row an object (a pod, a Job …) counts towards, if any. */
  rowIdOf(cluster: string, uid: string): string | undefined {
    const c = this.clusters.get(cluster);
    const obj = c?.graph.get(uid);
    if (!c || !obj) return undefined;
    const root = this.rootOf(cluster, c, obj);
    return 'uid' in root ? c.roots.get(root.uid) : undefined;
  }

  rootOfRow(id: string): { cluster: string; uid: string } | undefined {
    return this.rows.rootOf(id);
  }

  /** Stops pending flushes (the index stays readable). */
  close(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
  }

  // ----- flushing -----

  private scheduleFlush(delayMs = this.opts.coalesceMs ?? 5): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush(this.opts.flushSliceMs ?? 50);
    }, delayMs);
  }

  /**
   * Resolves every queued root and emits the deltas (also called by tests directly). A cluster
   * still receiving its initial lists emits nothing; its roots are resolved ahead in slices of
   * `warmSliceMs` between the arriving pages, so that little is left to do when the last list lands.
   */
  flush(sliceMs = Number.POSITIVE_INFINITY): RowDelta[] {
    const out: RowDelta[] = [];
    let held = false;
    const until = performance.now() + sliceMs;
    let more = false;
    for (const [name, c] of this.clusters) {
      if (this.opts.isSynced && !this.opts.isSynced(name)) {
        this.resolveAhead(name, c, this.opts.warmSliceMs ?? 40);
        if (c.queue.size > 0 || c.ahead.size > 0) held = true;
        continue;
      }
      // Chains that waited for owners during the lists are walked again: an owner still absent is absent.
      if (c.waiting.size > 0) this.walkWaiting(name, c);
      // One push per delta: spreading a flush's deltas as call arguments overflows the stack at ~100k.
      for (const d of this.flushCluster(name, c, until)) out.push(d);
      if (c.queue.size > 0) more = true;
    }
    // Work left after the slice continues right after whatever is waiting (requests, signals).
    if (more && !this.flushTimer) this.flushTimer = setTimeout(() => { this.flushTimer = null; this.flush(sliceMs); }, 0);
    else if (held) this.scheduleFlush(this.opts.warmIntervalMs ?? 200);
    return out;
  }

  private rowOf(cluster: string, c: ClusterState, uid: string): Built | null {
    const obj = c.graph.get(uid);
    if (!obj) return null;
    const rule = this.rule(cluster);
    const memo = new Map<string, RootFound>();
    const found = c.graph.rootOf(obj, rule, memo);
    if (!('uid' in found) || found.uid !== uid) return null;
    const r = found.served ? this.resolve(cluster, uid) : this.resolveAt(cluster, c, uid, true, rule, memo);
    if (!r) return null;
    const deps = new Set<string>([groupKindOf(obj), POD_KIND]);
    for (const o of r.owned) deps.add(groupKindOf(o));
    return { row: rowOfResolved(r), deps, holders: gpuHoldersOf(r.tree, (u) => c.graph.get(u), (n) => c.graph.nodeGpu(n)), missingOwner: r.missingOwner };
  }

  private walkWaiting(cluster: string, c: ClusterState): void {
    const memo = new Map<string, RootFound>();
    for (const uid of c.waiting) {
      const top = c.graph.get(uid);
      if (top) this.queueRootOf(cluster, c, top, memo);
      // Its dependents walk through it; the top decides for them all.
    }
    c.waiting.clear();
  }

  private resolveAhead(cluster: string, c: ClusterState, budgetMs: number): void {
    const until = performance.now() + budgetMs;
    c.queue.takeWhile((uid) => c.ahead.set(uid, this.timedRowOf(cluster, c, uid)), () => performance.now() <= until);
  }

  /** Resolves the cluster's queued roots (and emits the ones resolved ahead) until `until`. */
  private flushCluster(cluster: string, c: ClusterState, until = Number.POSITIVE_INFINITY): RowDelta[] {
    if (c.queue.size === 0 && c.ahead.size === 0) return [];
    const deltas: RowDelta[] = [];
    // Rows resolved ahead need no resolving: they all go now, unless queued again.
    const ahead = c.ahead;
    c.ahead = new Map();
    const fresh = new Set<string>();
    const todo = new Set<string>();
    for (const uid of ahead.keys()) if (!c.queue.has(uid)) todo.add(uid);
    // The clock is read after every root: one root can take milliseconds.
    const queuedAt = new Map<string, number>();
    c.queue.takeWhile((uid, at) => { fresh.add(uid); todo.add(uid); queuedAt.set(uid, at); }, () => performance.now() < until, 1);
    for (const uid of todo) {
      const prevId = c.roots.get(uid);
      const early = fresh.has(uid) ? undefined : ahead.get(uid);
      // A row resolved ahead is still right unless its object changed since (then it is queued
      // again) or stopped being a root (an owner arrived later).
      const obj = c.graph.get(uid);
      const built = early !== undefined ? (early && obj && this.isRootObject(cluster, c, obj) ? early : null) : this.timedRowOf(cluster, c, uid);
      if (prevId && (!built || built.row.id !== prevId)) {
        c.roots.delete(uid);
        c.built.delete(uid);
        if (!built) this.health.forgetWorkload(cluster, uid);
        this.rows.remove(prevId, deltas);
      }
      if (built) {
        c.roots.set(uid, built.row.id);
        c.built.set(uid, built);
        this.rows.put(cluster, uid, decoratedRow(built, c), deltas);
      }
    }
    this.rows.emit(deltas);
    this.observeLatency(queuedAt);
    return deltas;
  }

  private timedRowOf(cluster: string, c: ClusterState, uid: string): Built | null {
    const t0 = performance.now();
    const built = this.rowOf(cluster, c, uid);
    instruments().resolved((performance.now() - t0) / 1000);
    return built;
  }

  /**
   * When a cluster's queued roots were queued, for the event → delta latency. Roots queued while its
   * initial lists are still arriving are stamped NaN: their wait measures the sync, not the latency.
   * Once synced, a cluster stays so for this clock (a relist is events again).
   */
  private queueClock(cluster: string): () => number {
    let synced = !this.opts.isSynced;
    let askedAt = Number.NEGATIVE_INFINITY;
    return () => {
      const now = performance.now();
      // Asking is not free (every watched kind), and a list page queues thousands: at most every 50 ms.
      if (!synced && now - askedAt >= 50) {
        askedAt = now;
        synced = this.opts.isSynced!(cluster);
      }
      return synced ? now : Number.NaN;
    };
  }

  /** Event → delta latency of the roots this flush answered. */
  private observeLatency(queuedAt: Map<string, number>): void {
    if (queuedAt.size === 0) return;
    const now = performance.now();
    const m = instruments();
    for (const at of queuedAt.values()) if (!Number.isNaN(at)) m.deltaLatency((now - at) / 1000);
  }
}
