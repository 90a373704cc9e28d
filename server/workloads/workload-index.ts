/**
 * The live workload index: objects of every cluster joined with the definitions into rows.
 * - An owner index (uid → owned uids) and owner walking (object → top-level workload) make one pod
 *   event re-resolve exactly one workload.
 * - Top-level objects are those a definition serves that no present (or expected) object owns:
 *   a JobSet, a bare Job or Deployment via the core definitions, but not the Jobs of a JobSet.
 * - Changes are coalesced per workload over a short window and emitted as row deltas with a
 *   monotonically increasing sequence number; recent deltas are kept so clients can resume.
 */
import { apiGroupOf, resolveWorkload, type KubeObject, type WorkloadTree } from '../engine/index.ts';
import type { DefinitionSet} from './definitions.ts';
import { entryFromClusterObject } from './definitions.ts';
import { rowOfTree } from './row-of-tree.ts';
import type { RowDelta, WorkloadRow } from './row.ts';

export const DEFINITION_KINDS = new Set(['run.ai/Karta', 'optimization.nvidia.com/ResourceInterface']);

/** Kinds that own pods in every framework; watched whether or not a definition mentions them. */
export const CORE_KINDS = new Map<string, string>([
  ['/Pod', 'v1'],
  ['batch/Job', 'v1'],
  ['batch/CronJob', 'v1'],
  ['apps/ReplicaSet', 'v1'],
  ['apps/Deployment', 'v1'],
  ['apps/StatefulSet', 'v1'],
]);

/** apiVersion → kind → `group/Kind`: asked for every object and owner reference, so built once per pair. */
const groupKinds = new Map<unknown, Map<unknown, string>>();

/** `group/Kind` of an object or of an owner reference (both carry apiVersion and kind). */
export function groupKindOf(o: { apiVersion?: unknown; kind?: unknown }): string {
  let byKind = groupKinds.get(o.apiVersion);
  if (!byKind) {
    // Only strings are cached: anything else is malformed input and must not grow the cache.
    if (typeof o.apiVersion !== 'string') return `${apiGroupOf(o.apiVersion)}/${String(o.kind)}`;
    groupKinds.set(o.apiVersion, (byKind = new Map()));
  }
  let gk = byKind.get(o.kind);
  if (gk === undefined) {
    gk = `${apiGroupOf(o.apiVersion)}/${String(o.kind)}`;
    if (typeof o.kind === 'string') byKind.set(o.kind, gk);
  }
  return gk;
}

/** Errors that mean the definition does not fit the object's shape (not a pod or status detail). */
function isStructureError(e: { code: string; path: string }): boolean {
  return e.code.startsWith('expression.') && /\.(instanceIdPath|specDefinition\.|scaleDefinition\.)/.test(e.path);
}

function uidOf(o: KubeObject): string {
  return typeof o.metadata?.uid === 'string' ? o.metadata.uid : '';
}

interface ClusterObjects {
  objects: Map<string, KubeObject>;
  /** owner uid → owned uids (owners may not have arrived yet). */
  children: Map<string, Set<string>>;
  /** group/Kind → uids */
  byKind: Map<string, Set<string>>;
  /** root uid → row id of the rows currently emitted */
  roots: Map<string, string>;
  dirty: Set<string>;
  /**
   * Rows resolved ahead while the cluster's initial lists are still arriving (root uid → row, or
   * null when the object is no workload); emitted, unless dirtied again, once the cluster is synced.
   */
  warm: Map<string, WorkloadRow | null>;
}

export interface IndexOptions {
  coalesceMs?: number;
  historySize?: number;
  /** Which kinds are expected (watched and served): an owner of such a kind may still arrive. */
  isExpectedKind?: (cluster: string, gk: string) => boolean;
  /** Hold a cluster's deltas until this says it finished its initial lists. */
  isSynced?: (cluster: string) => boolean;
  /** Longest stretch of resolving ahead while a cluster's lists arrive, and the pause between stretches. */
  warmSliceMs?: number;
  warmIntervalMs?: number;
  now?: () => number;
}

export type DeltaListener = (deltas: RowDelta[]) => void;

export class WorkloadIndex {
  readonly definitions: DefinitionSet;
  private readonly clusters = new Map<string, ClusterObjects>();
  private readonly rows = new Map<string, WorkloadRow>();
  /** Each row's JSON as last emitted, so a re-resolve that changes nothing emits nothing. */
  private readonly rowJson = new Map<string, string>();
  private readonly rowRoot = new Map<string, { cluster: string; uid: string }>();
  private readonly listeners = new Set<DeltaListener>();
  private readonly history: RowDelta[] = [];
  /**
   * Sequence numbers start from the process's start time in microseconds, so an event id from another
   * server process (before a restart) is never mistaken for one of ours: it falls outside our history
   * and the client gets a fresh snapshot.
   */
  private seq = Date.now() * 1000;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly opts: IndexOptions;
  /** Called when the set of kinds worth watching may have changed (definitions changed). */
  onDefinitionsChanged: ((cluster: string) => void) | null = null;

  constructor(definitions: DefinitionSet, opts: IndexOptions = {}) {
    this.definitions = definitions;
    this.opts = opts;
  }

  private cluster(name: string): ClusterObjects {
    let c = this.clusters.get(name);
    if (!c) {
      c = { objects: new Map(), children: new Map(), byKind: new Map(), roots: new Map(), dirty: new Set(), warm: new Map() };
      this.clusters.set(name, c);
    }
    return c;
  }

  get currentSeq(): number {
    return this.seq;
  }

  subscribe(l: DeltaListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  allRows(): WorkloadRow[] {
    return [...this.rows.values()];
  }

  row(id: string): WorkloadRow | undefined {
    return this.rows.get(id);
  }

  /** Deltas after `seq`, or null when they are no longer kept (the client needs a snapshot). */
  deltasSince(seq: number): RowDelta[] | null {
    if (seq === this.seq) return [];
    if (seq > this.seq) return null;
    const first = this.history[0];
    if (!first || first.seq > seq + 1) return null;
    return this.history.filter((d) => d.seq > seq);
  }

  objectCount(cluster?: string): number {
    if (cluster) return this.clusters.get(cluster)?.objects.size ?? 0;
    let n = 0;
    for (const c of this.clusters.values()) n += c.objects.size;
    return n;
  }

  // ----- object events -----

  upsert(cluster: string, obj: KubeObject): void {
    this.upsertMany(cluster, [obj], false);
  }

  /**
   * Adds or replaces objects (a watch event, a page of a list). With `skipUnchanged`, objects held
   * already (the same object, or the same resourceVersion) are skipped: a list that follows its own
   * pages, or a relist after 410, stays cheap. The workloads touched are found in bulk, with
   * owner walks shared between siblings (100,000 pods have a few thousand owners).
   */
  upsertMany(cluster: string, objs: readonly KubeObject[], skipUnchanged = true): void {
    const c = this.cluster(cluster);
    const changed: KubeObject[] = [];
    const before = new Map<string, string | null>();
    for (const obj of objs) {
      const uid = uidOf(obj);
      if (!uid) continue;
      const prev = c.objects.get(uid);
      if (skipUnchanged && prev && (prev === obj || (prev.metadata?.resourceVersion && prev.metadata.resourceVersion === obj.metadata?.resourceVersion))) continue;
      // The workload the previous version belonged to, before the ownership links change.
      if (prev) this.markAffected(cluster, c, prev, before);
      changed.push(obj);
    }
    const definitionsChanged: KubeObject[] = [];
    for (const obj of changed) {
      const uid = uidOf(obj);
      const prev = c.objects.get(uid);
      if (prev) this.unlinkOwners(c, uid, prev);
      c.objects.set(uid, obj);
      const gk = groupKindOf(obj);
      let kindSet = c.byKind.get(gk);
      if (!kindSet) c.byKind.set(gk, (kindSet = new Set()));
      kindSet.add(uid);
      for (const ref of obj.metadata?.ownerReferences ?? []) {
        if (!ref?.uid) continue;
        let s = c.children.get(ref.uid);
        if (!s) c.children.set(ref.uid, (s = new Set()));
        s.add(uid);
      }
      if (DEFINITION_KINDS.has(gk)) definitionsChanged.push(obj);
    }
    const after = new Map<string, string | null>();
    for (const obj of changed) {
      this.markAffected(cluster, c, obj, after);
      // Objects that were waiting for this owner may have been roots of their own.
      for (const child of c.children.get(uidOf(obj)) ?? []) if (c.roots.has(child) || c.warm.has(child)) c.dirty.add(child);
    }
    for (const obj of definitionsChanged) this.definitionChanged(cluster, uidOf(obj), obj);
    if (changed.length > 0) this.scheduleFlush();
  }

  remove(cluster: string, obj: KubeObject): void {
    const c = this.cluster(cluster);
    const uid = uidOf(obj);
    const prev = c.objects.get(uid);
    if (!prev) return;
    this.markAffected(cluster, c, prev);
    this.unlinkOwners(c, uid, prev);
    c.objects.delete(uid);
    c.byKind.get(groupKindOf(prev))?.delete(uid);
    if (DEFINITION_KINDS.has(groupKindOf(prev))) this.definitionChanged(cluster, uid, null);
    for (const child of c.children.get(uid) ?? []) {
      const o = c.objects.get(child);
      if (o) this.markAffected(cluster, c, o);
    }
    this.scheduleFlush();
  }

  /** A complete list of one kind: reconcile (objects missing from it are deleted). */
  replaceKind(cluster: string, gk: string, objects: KubeObject[]): void {
    const c = this.cluster(cluster);
    const keep = new Set(objects.map(uidOf));
    for (const uid of [...(c.byKind.get(gk) ?? [])]) {
      if (!keep.has(uid)) {
        const o = c.objects.get(uid);
        if (o) this.remove(cluster, o);
      }
    }
    // Both remove() and upsertMany() schedule the flush when they changed anything.
    this.upsertMany(cluster, objects);
  }

  /** Forget a cluster entirely (removed from the configuration). */
  dropCluster(cluster: string): void {
    const c = this.clusters.get(cluster);
    if (!c) return;
    for (const uid of c.roots.keys()) c.dirty.add(uid);
    c.objects.clear();
    c.children.clear();
    c.byKind.clear();
    this.flushCluster(cluster, c);
    this.clusters.delete(cluster);
  }

  private unlinkOwners(c: ClusterObjects, uid: string, obj: KubeObject): void {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (!ref?.uid) continue;
      const s = c.children.get(ref.uid);
      s?.delete(uid);
      if (s && s.size === 0) c.children.delete(ref.uid);
    }
  }

  private definitionChanged(cluster: string, uid: string, obj: KubeObject | null): void {
    this.definitions.setClusterDefinition(cluster, uid, obj ? entryFromClusterObject(cluster, obj) : null);
    this.recomputeCluster(cluster);
    this.onDefinitionsChanged?.(cluster);
  }

  /** Definitions changed: every object may have become (or stopped being) a workload. */
  recomputeCluster(cluster: string): void {
    const c = this.cluster(cluster);
    for (const uid of c.roots.keys()) c.dirty.add(uid);
    for (const [gk, uids] of c.byKind) {
      if (!this.definitions.effective(cluster).has(gk)) continue;
      for (const uid of uids) c.dirty.add(uid);
    }
    this.scheduleFlush();
  }

  // ----- roots -----

  private isRoot(cluster: string, c: ClusterObjects, obj: KubeObject): boolean {
    const gk = groupKindOf(obj);
    if (!this.definitions.effective(cluster).has(gk)) return false;
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (!ref) continue;
      if (ref.uid && c.objects.has(ref.uid)) return false;
      const refGk = groupKindOf(ref);
      // The owner has not arrived yet but will (its kind is watched): not top-level.
      if (this.opts.isExpectedKind?.(cluster, refGk) ?? this.definitions.effective(cluster).has(refGk)) return false;
    }
    return true;
  }

  /**
   * The top-level workload an object belongs to, by walking owners (controller first). `memo` (uid →
   * root) shares the walk between objects with common owners while the ownership links stay as they are.
   */
  private rootOf(cluster: string, c: ClusterObjects, obj: KubeObject, memo?: Map<string, string | null>): string | null {
    let cur: KubeObject | undefined = obj;
    const walked: string[] = [];
    let root: string | null = null;
    while (cur) {
      const uid = uidOf(cur);
      const known = memo?.get(uid);
      if (known !== undefined) { root = known; break; }
      if (walked.includes(uid)) break; // an ownership cycle: no workload
      walked.push(uid);
      if (this.isRoot(cluster, c, cur)) { root = uid; break; }
      const refs: NonNullable<NonNullable<KubeObject['metadata']>['ownerReferences']> = cur.metadata?.ownerReferences ?? [];
      const ref = refs.find((r) => r?.controller && r.uid && c.objects.has(r.uid)) ?? refs.find((r) => r?.uid && c.objects.has(r.uid));
      cur = ref?.uid ? c.objects.get(ref.uid) : undefined;
    }
    if (memo) for (const uid of walked) memo.set(uid, root);
    return root;
  }

  private markAffected(cluster: string, c: ClusterObjects, obj: KubeObject, memo?: Map<string, string | null>): void {
    const r = this.rootOf(cluster, c, obj, memo);
    if (r) c.dirty.add(r);
  }

  private ownedBy(c: ClusterObjects, rootUid: string): KubeObject[] {
    const out: KubeObject[] = [];
    const seen = new Set<string>([rootUid]);
    const queue = [rootUid];
    for (let i = 0; i < queue.length; i++) {
      for (const child of c.children.get(queue[i]) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        const o = c.objects.get(child);
        if (!o) continue;
        out.push(o);
        queue.push(child);
      }
    }
    return out;
  }

  /** Resolves one workload now (for the detail API). */
  resolve(cluster: string, rootUid: string): { tree: WorkloadTree; object: KubeObject } | null {
    const c = this.clusters.get(cluster);
    const obj = c?.objects.get(rootUid);
    if (!c || !obj) return null;
    const candidates = this.definitions.candidatesFor(cluster, groupKindOf(obj), obj.apiVersion);
    if (candidates.length === 0) return null;
    const owned = this.ownedBy(c, rootUid);
    const first = resolveWorkload(candidates[0], obj, owned, { cluster, ownedOnly: true });
    // A CRD served at several versions without conversion (strategy None) hands out objects of the
    // other version's shape under the watched version's name: when the structure cannot be read,
    // a definition written for another version of the kind may fit.
    if (candidates.length > 1 && first.errors.some(isStructureError)) {
      for (const alt of candidates.slice(1)) {
        const t = resolveWorkload(alt, obj, owned, { cluster, ownedOnly: true });
        if (!t.errors.some(isStructureError)) return { tree: t, object: obj };
      }
    }
    return { tree: first, object: obj };
  }

  /** The row an object (a pod, a Job …) counts towards, if any. */
  rowIdOf(cluster: string, uid: string): string | undefined {
    const c = this.clusters.get(cluster);
    const obj = c?.objects.get(uid);
    if (!c || !obj) return undefined;
    const root = this.rootOf(cluster, c, obj);
    return root ? c.roots.get(root) : undefined;
  }

  rootOfRow(id: string): { cluster: string; uid: string } | undefined {
    return this.rowRoot.get(id);
  }

  /** Stops pending flushes (the index stays readable). */
  close(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
  }

  // ----- flushing -----

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, this.opts.coalesceMs ?? 5);
  }

  /**
   * Resolves every dirty workload and emits the deltas (also called by tests directly). A cluster
   * still receiving its initial lists emits nothing; its workloads are resolved ahead in slices of
   * `warmSliceMs` between the arriving pages, so that little is left to do when the last list lands.
   */
  flush(): RowDelta[] {
    const out: RowDelta[] = [];
    let held = false;
    for (const [name, c] of this.clusters) {
      if (this.opts.isSynced && !this.opts.isSynced(name)) {
        this.warmCluster(name, c, this.opts.warmSliceMs ?? 40);
        if (c.dirty.size > 0 || c.warm.size > 0) held = true;
        continue;
      }
      out.push(...this.flushCluster(name, c));
    }
    if (held && !this.flushTimer) this.flushTimer = setTimeout(() => { this.flushTimer = null; this.flush(); }, this.opts.warmIntervalMs ?? 200);
    return out;
  }

  private rowOf(cluster: string, c: ClusterObjects, uid: string): WorkloadRow | null {
    const obj = c.objects.get(uid);
    if (!obj || !this.isRoot(cluster, c, obj)) return null;
    const r = this.resolve(cluster, uid);
    return r ? rowOfTree(r.tree, typeof obj.metadata?.creationTimestamp === 'string' ? obj.metadata.creationTimestamp : null) : null;
  }

  private warmCluster(cluster: string, c: ClusterObjects, budgetMs: number): void {
    const until = performance.now() + budgetMs;
    let n = 0;
    for (const uid of c.dirty) {
      c.dirty.delete(uid);
      c.warm.set(uid, this.rowOf(cluster, c, uid));
      if (++n % 16 === 0 && performance.now() > until) break;
    }
  }

  private flushCluster(cluster: string, c: ClusterObjects): RowDelta[] {
    if (c.dirty.size === 0 && c.warm.size === 0) return [];
    const deltas: RowDelta[] = [];
    const fresh = c.dirty;
    const warm = c.warm;
    c.dirty = new Set();
    c.warm = new Map();
    const todo = new Set([...fresh, ...warm.keys()]);
    for (const uid of todo) {
      const prevId = c.roots.get(uid);
      const ahead = fresh.has(uid) ? undefined : warm.get(uid);
      // A row resolved ahead is still right unless its object changed since (then it is dirty again)
      // or stopped being top-level (an owner arrived later).
      const obj = c.objects.get(uid);
      const row = ahead !== undefined ? (ahead && obj && this.isRoot(cluster, c, obj) ? ahead : null) : this.rowOf(cluster, c, uid);
      if (prevId && (!row || row.id !== prevId)) {
        c.roots.delete(uid);
        this.rows.delete(prevId);
        this.rowJson.delete(prevId);
        this.rowRoot.delete(prevId);
        deltas.push({ seq: ++this.seq, op: 'remove', id: prevId });
      }
      if (row) {
        const json = JSON.stringify(row);
        c.roots.set(uid, row.id);
        this.rowRoot.set(row.id, { cluster, uid });
        if (this.rowJson.get(row.id) !== json) {
          this.rows.set(row.id, row);
          this.rowJson.set(row.id, json);
          deltas.push({ seq: ++this.seq, op: 'upsert', id: row.id, row });
        }
      }
    }
    if (deltas.length > 0) this.emit(deltas);
    return deltas;
  }

  private emit(deltas: RowDelta[]): void {
    const max = this.opts.historySize ?? 20_000;
    this.history.push(...deltas);
    if (this.history.length > max) this.history.splice(0, this.history.length - max);
    for (const l of this.listeners) {
      try {
        l(deltas);
      } catch {
        // A failing listener (a closed stream) must not stop the others.
      }
    }
  }
}
