/**
 * One read of a cluster for one-shot commands (`get`, `tree`, `describe`, `verify`): the rows and
 * trees the live index would show, from plain lists instead of watches, reading only what the
 * command needs.
 * - Discovery in its aggregated form (two requests).
 * - With `-n` (or the context's namespace) namespaced kinds are listed in that namespace only, as
 *   kubectl does, so a user who may read one namespace gets its workloads; with `-A` they are listed
 *   cluster-wide, and a kind whose cluster-wide list is forbidden is listed namespace by namespace
 *   instead (the namespaces the user may list, else the context's).
 * - Which kinds: the kinds the live index watches (core kinds, definition kinds, what the
 *   definitions mention, and owner kinds seen on the way); for one workload (`scope.ref`), only the
 *   kinds its own definition mentions, after reading the object and its owners by name.
 * - Which definitions are compiled: those serving a root kind present (lazy catalog, catalog-cache.ts).
 * Everything is fed to a WorkloadIndex (the live index's code) and flushed once, so rows and trees
 * are the live index's, byte for byte (snapshot.test.ts compares them).
 */
import { setMaxListeners } from 'node:events';
import type { KubeConfig } from '@kubernetes/client-node';
import { ApiError, closeConnections, getJson, loadClusterConfigs, resourcePath, streamText, trimObject, type ClusterConfig, type ClusterObject, type ServedResource } from '../cluster/index.ts';
import type { KubeObject } from '../engine/index.ts';
import { CORE_KINDS, DEFINITION_KINDS, DefinitionSet, LiveWorkloads, WorkloadIndex, groupKindOf } from '../workloads/index.ts';
import { NEVER_WATCHED } from '../workloads/live.ts';
import type { KindFailure } from '../workloads/staleness.ts';
import type { ClusterReader } from '../workloads/pod-inspect.ts';
import { lazyCatalog, type LazyCatalog } from './catalog-cache.ts';
import { discoverCached, type Discovered } from './discovery-once.ts';
import { kindsNamed } from './kind-ref.ts';
import { kindRef } from '../../lib/rows/index.ts';
import { notFound, ServerError, UsageError } from './errors.ts';

export interface SnapshotFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  allNamespaces?: boolean;
  /** Seconds to wait for the cluster (default 30). */
  timeout?: string;
  /** `--chunk-size`: list pages of this many objects (kubectl's default 500; 0 = unpaged). */
  chunkSize?: string;
  gpuResources?: readonly string[];
}

/** The workloads to read: all of them, or those of one kind (`jobsets`, optionally one name). */
export type SnapshotScope = { all: true } | { kind: string; name?: string };

export interface Snapshot {
  cluster: string;
  /** The namespace read (`-n`, else the context's); with `-A` every namespace was read. */
  namespace: string;
  allNamespaces: boolean;
  index: WorkloadIndex;
  served: readonly ServedResource[];
  reader: ClusterReader;
  /** Kinds that could not be read (forbidden, failing), by `group/Kind`. */
  failures: ReadonlyMap<string, KindFailure>;
  /** Things to say on stderr (a kind listed in some namespaces only). */
  notes: string[];
  /** With a kind scope: the objects of that kind found (by name, or all in the namespace), as read. */
  roots: KubeObject[];
  /** The resource the scope's kind names (first of several groups). */
  rootResource: ServedResource | null;
  /** The objects read, by `group/Kind` (the watch mode reconciles its relists against them). */
  objects: ReadonlyMap<string, readonly KubeObject[]>;
  /** The kinds listed, and where: the watch mode lists the same. */
  listed: ReadonlyArray<{ gk: string; resource: ServedResource; namespaces: string[] | null }>;
  kubeconfig: KubeConfig;
  stop(): void;
}

/**
 * `WMAP_TRACE=1`: when each phase of the read ended, on stderr (ms since the process started), with
 * the CPU time the process has used by then: where the two part, it was waiting on the cluster.
 */
const TRACE = process.env.WMAP_TRACE === '1';
export function trace(what: string): void {
  if (!TRACE) return;
  const cpu = process.cpuUsage();
  process.stderr.write(`trace ${performance.now().toFixed(0).padStart(5)} ms  ${what}  [cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms]\n`);
}

/** The context a command runs against: the one named, else the kubeconfig's current one. */
export function chooseContext(flags: Pick<SnapshotFlags, 'kubeconfig' | 'context'>): { config: ClusterConfig; contextNamespace: string | undefined } {
  let configs;
  try {
    configs = loadClusterConfigs({ kubeconfig: flags.kubeconfig, contexts: flags.context ? [flags.context] : undefined });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const chosen = flags.context ? configs : configs.filter((c) => c.name === c.kc.getCurrentContext()).slice(0, 1);
  const config = chosen[0] ?? configs[0];
  if (!config) throw new UsageError('no cluster in the kubeconfig (use --kubeconfig or KUBECONFIG)');
  return { config, contextNamespace: config.kc.getContextObject(config.name)?.namespace || undefined };
}

/** `pods`, `jobsets.jobset.x-k8s.io`: how kubectl names a resource in its messages. */
export function resourceName(r: { resource: string; group: string }): string {
  return r.resource + (r.group ? `.${r.group}` : '');
}

/** The version of a kind to read: the one asked for when served, else the group's preferred, else the first. */
export function pickResource(d: Discovered, gk: string, version?: string): ServedResource | undefined {
  const all = d.resources.filter((r) => `${r.group}/${r.kind}` === gk && r.verbs.includes('list'));
  if (all.length === 0) return undefined;
  return all.find((r) => r.version === version) ?? all.find((r) => r.version === d.preferred.get(all[0].group)) ?? all[0];
}

interface ListBody {
  metadata?: { continue?: string; resourceVersion?: string };
  items?: ClusterObject[];
}

/** Every object at a list path, in pages of `chunk` (limit/continue), with apiVersion and kind restored and trimmed as the watches trim. */
export async function listAll(kc: KubeConfig, r: ServedResource, namespace: string | undefined, chunk: number, signal?: AbortSignal, query = ''): Promise<{ items: KubeObject[]; resourceVersion: string }> {
  const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
  const items: KubeObject[] = [];
  let cont: string | undefined;
  let rv = '';
  do {
    const q = new URLSearchParams(query);
    if (chunk > 0) q.set('limit', String(chunk));
    if (cont) q.set('continue', cont);
    const qs = q.toString();
    const page = await getJson<ListBody>(kc, `${resourcePath(r, namespace)}${qs ? `?${qs}` : ''}`, signal);
    for (const it of page.items ?? []) items.push(trimObject({ apiVersion, kind: r.kind, ...it }) as KubeObject);
    cont = page.metadata?.continue || undefined;
    rv = page.metadata?.resourceVersion ?? rv;
  } while (cont);
  return { items, resourceVersion: rv };
}

/**
 * At most `n` at once: parallel requests open a connection (a TLS handshake, on both sides) each,
 * while a few kept-alive connections carry the same lists as fast on a near cluster.
 */
type Limiter = <T>(fn: () => Promise<T>) => Promise<T>;

function limiter(n: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

function chunkOf(flags: SnapshotFlags): number {
  const n = flags.chunkSize === undefined ? 500 : Number(flags.chunkSize);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--chunk-size must be a whole number (0 for no pages), got "${flags.chunkSize}"`);
  return n;
}

/** A kind not read: what it would contribute is unknown (never 0), as the live index marks a kind never listed. */
function failureOf(r: ServedResource, e: unknown): KindFailure {
  return { since: Date.now(), message: e instanceof Error ? e.message : String(e), name: resourceName(r), unreadable: true };
}

/** The root kind of a cluster definition object, read without checking it (to decide whether to load it). */
function rawRootKind(o: KubeObject): string | null {
  const k = (o as { spec?: { structureDefinition?: { rootComponent?: { kind?: { group?: unknown; kind?: unknown } } } } }).spec?.structureDefinition?.rootComponent?.kind;
  return k && typeof k.kind === 'string' ? `${typeof k.group === 'string' ? k.group : ''}/${k.kind}` : null;
}

/**
 * Reads the cluster for a scope. Throws UsageError (unreachable, unknown kind) or ServerError
 * (NotFound, Forbidden on the object asked for by name), as kubectl would fail.
 */
export async function readSnapshot(flags: SnapshotFlags, scope: SnapshotScope, opts: { catalog?: LazyCatalog } = {}): Promise<Snapshot> {
  trace('snapshot: start');
  const { config, contextNamespace } = chooseContext(flags);
  trace('snapshot: kubeconfig read');
  const kc = config.kc;
  const namespace = flags.namespace ?? contextNamespace ?? 'default';
  const all = !!flags.allNamespaces;
  const chunk = chunkOf(flags);
  const signal = AbortSignal.timeout(Number(flags.timeout ?? 30) * 1000);
  // Every request of the read listens to this one signal.
  setMaxListeners(10_000, signal);
  let discovered: Discovered & { fromCache: boolean };
  try {
    discovered = await discoverCached(kc, config.server, signal);
    trace('snapshot: discovered');
  } catch (e) {
    closeConnections(kc);
    const why = e instanceof Error ? e.message : String(e);
    if (e instanceof ApiError && e.status === 401) throw new ServerError('Unauthorized', 'the server has asked for the client to provide credentials');
    throw new UsageError(signal.aborted ? `cluster ${config.name} (${config.server}) did not answer in time` : `cluster ${config.name} is unreachable: ${why}`);
  }
  try {
    // Discovery kept on disk is read again once when it lacks something the command meets.
    let refreshed = !discovered.fromCache;
    const rediscover = async (): Promise<boolean> => {
      if (refreshed) return false;
      refreshed = true;
      const d = await discoverCached(kc, config.server, signal, true);
      discovered.resources = d.resources;
      discovered.preferred = d.preferred;
      discovered.failed = d.failed;
      trace('snapshot: discovered again');
      return true;
    };
    let catalog = opts.catalog;
    return await read(config, kc, discovered, rediscover, namespace, all, chunk, signal, scope, () => (catalog ??= lazyCatalog()), flags.gpuResources);
  } catch (e) {
    closeConnections(kc);
    if (signal.aborted && !(e instanceof UsageError)) throw new UsageError(`cluster ${config.name} (${config.server}) did not answer in time`);
    throw e;
  }
}

/**
 * The kinds a read lists: the definition kinds and what the needed definitions mention, with the core
 * kinds. One workload needs no core kind but pods (its owner kinds come along after) and the nodes its
 * pods run on, not every node (read by name).
 */
function wantedKinds(catalog: LazyCatalog, neededRoots: ReadonlySet<string> | null, oneWorkload: boolean): Map<string, string | undefined> {
  const wanted = baseKinds(oneWorkload);
  for (const [gk, v] of catalog.mentionedKindsOf(neededRoots)) if (!wanted.has(gk) && !NEVER_WATCHED.has(gk)) wanted.set(gk, v);
  return wanted;
}

/** The part of wantedKinds that needs no catalog: the core kinds (pods alone for one workload) and the definition kinds. */
function baseKinds(oneWorkload: boolean): Map<string, string | undefined> {
  const base = new Map<string, string | undefined>(oneWorkload ? [[POD_GK, 'v1']] : CORE_KINDS);
  for (const gk of DEFINITION_KINDS) base.set(gk, undefined);
  for (const gk of NEVER_WATCHED) base.delete(gk);
  return base;
}

async function read(config: ClusterConfig, kc: KubeConfig, d: Discovered, rediscover: () => Promise<boolean>, namespace: string, all: boolean, chunk: number, signal: AbortSignal, scope: SnapshotScope, catalogOf: () => LazyCatalog, gpuResources: readonly string[] | undefined): Promise<Snapshot> {
  const failures = new Map<string, KindFailure>();
  const notes: string[] = [];
  const objects = new Map<string, KubeObject[]>();
  const listed: Array<{ gk: string; resource: ServedResource; namespaces: string[] | null }> = [];
  const planned = new Set<string>();
  let roots: KubeObject[] = [];
  /** The owners of a root read by name, fed unless a list brought them. */
  let chain: KubeObject[] = [];
  let rootResource: ServedResource | null = null;
  /** Root kinds whose definitions are needed; null: every root kind that turns out to have objects. */
  let neededRoots: Set<string> | null = null;

  // Which namespaces a namespaced kind is listed in: null = cluster-wide.
  let namespacesForFallback: string[] | null = null;
  const fallbackNamespaces = async (): Promise<string[]> => {
    if (namespacesForFallback) return namespacesForFallback;
    try {
      const nsList = await listAll(kc, { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['list'] }, undefined, chunk, signal);
      namespacesForFallback = nsList.items.map((o) => String(o.metadata?.name ?? '')).filter(Boolean).sort();
    } catch {
      namespacesForFallback = [namespace];
    }
    return namespacesForFallback;
  };

  /** `seen`: a kind met in the objects (an owner's), which the cluster must serve: missing, discovery is read again. */
  const inFlight = limiter(Number(process.env.WMAP_LIST_CONCURRENCY ?? 4));
  const listKind = (gk: string, version: string | undefined, seen = false): Promise<void> => inFlight(() => listKindNow(gk, version, seen));
  const listKindNow = async (gk: string, version: string | undefined, seen: boolean): Promise<void> => {
    if (planned.has(gk)) return;
    planned.add(gk);
    let r = pickResource(d, gk, version);
    if (!r && seen && (await rediscover())) r = pickResource(d, gk, version);
    if (!r) return;
    if (r.namespaced && !all) {
      listed.push({ gk, resource: r, namespaces: [namespace] });
      try {
        objects.set(gk, (await listAll(kc, r, namespace, chunk, signal)).items);
      } catch (e) {
        failures.set(gk, failureOf(r, e));
      }
      return;
    }
    try {
      objects.set(gk, (await listAll(kc, r, undefined, chunk, signal)).items);
      listed.push({ gk, resource: r, namespaces: null });
    } catch (e) {
      if (!(r.namespaced && e instanceof ApiError && e.status === 403)) {
        listed.push({ gk, resource: r, namespaces: null });
        failures.set(gk, failureOf(r, e));
        return;
      }
      // Forbidden cluster-wide: namespace by namespace, where allowed.
      const names = await fallbackNamespaces();
      const read: string[] = [];
      const items: KubeObject[] = [];
      await Promise.all(names.map(async (n) => {
        try {
          items.push(...(await listAll(kc, r, n, chunk, signal)).items);
          read.push(n);
        } catch (inner) {
          if (!(inner instanceof ApiError && inner.status === 403)) throw inner;
        }
      }));
      read.sort();
      listed.push({ gk, resource: r, namespaces: read });
      objects.set(gk, items);
      if (read.length === 0) failures.set(gk, failureOf(r, e));
      else notes.push(`${resourceName(r)}: cannot list in every namespace (forbidden); listed in ${read.join(', ')}`);
    }
  };

  let early: Promise<unknown> = Promise.resolve();
  if ('kind' in scope) {
    const named = () => [...kindsNamed(scope.kind, d.resources)].map((gk) => pickResource(d, gk)).filter((r): r is ServedResource => !!r);
    let candidates = named();
    if (candidates.length === 0 && (await rediscover())) candidates = named();
    if (candidates.length === 0) throw new UsageError(`the server doesn't have a resource type "${scope.kind}"`);
    rootResource = candidates[0];
    const ns = (r: ServedResource) => (r.namespaced ? namespace : undefined);
    if (scope.name !== undefined) {
      // Whatever the object turns out to own, its pods, the definition kinds and the kinds its kind's
      // definitions mention are read: asked for now, while the object itself is read (one round trip
      // less). Its own kind is not listed: the object is read by name.
      for (const r of candidates) planned.add(`${r.group}/${r.kind}`);
      // The object first, then the lists, over the same few kept-alive connections.
      const reading = Promise.all(candidates.map(async (r) => {
        try {
          return [trimObject({ apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind, ...(await inFlight(() => getJson<ClusterObject>(kc, `${resourcePath(r, ns(r))}/${encodeURIComponent(scope.name!)}`, signal))) }) as KubeObject];
        } catch (e) {
          if (e instanceof ApiError && e.status === 404) return [];
          if (e instanceof ApiError && e.status === 403) throw new ServerError('Forbidden', e.message);
          throw e;
        }
      }));
      early = Promise.all([...wantedKinds(catalogOf(), new Set(candidates.map((r) => `${r.group}/${r.kind}`)), true)].map(([gk, v]) => listKind(gk, v)));
      // Awaited below; a read that fails first (NotFound) leaves it to settle unobserved.
      early.catch(() => undefined);
      const found = await reading;
      roots = found.flat();
      if (roots.length === 0) throw notFound(resourceName(rootResource), scope.name);
      if (roots.length > 1) throw new UsageError(`${scope.kind}/${scope.name} is ambiguous in namespace ${namespace}: ${roots.map((o) => `${kindRef(String(o.kind), String(o.apiVersion)).toLowerCase()}/${scope.name}`).join(', ')}; name the kind with its group`);
      // The owners above it decide whose workload it is (a RayCluster of a RayJob is the RayJob's).
      chain = await ownerChain(kc, d, roots[0], signal);
      neededRoots = new Set([roots[0], ...chain].map(groupKindOf));
    } else {
      neededRoots = new Set(candidates.map((r) => `${r.group}/${r.kind}`));
    }
  }

  const oneWorkload = roots.length > 0;
  // The workload and its owners were read by name: their kinds' other objects are not its business.
  if (oneWorkload) for (const o of [roots[0], ...chain]) planned.add(groupKindOf(o));
  trace('snapshot: object and owners read');
  if (!oneWorkload) {
    // The kinds every read lists go out before the catalog is read (its files checked against the
    // build's cache): the connections' handshakes, the server's share of which is a few ms each,
    // run meanwhile. The requests are made on the next turn of the event loop, which this waits for.
    early = Promise.all([early, ...[...baseKinds(false)].map(([gk, v]) => listKind(gk, v))]);
    // Awaited just below; one failing meanwhile is not an unhandled rejection.
    early.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all([early, ...[...wantedKinds(catalogOf(), neededRoots, oneWorkload)].map(([gk, v]) => listKind(gk, v))]);
  trace('snapshot: listed');

  // Kinds the cluster's own definitions mention (for the kinds needed), then owner kinds seen on
  // the way, until nothing new appears (an operator's own CR between a root and its pods).
  for (let round = 0; round < 8; round++) {
    const more = new Map<string, string | undefined>();
    for (const gk of DEFINITION_KINDS) {
      for (const o of objects.get(gk) ?? []) {
        const root = rawRootKind(o);
        if (neededRoots && root && !neededRoots.has(root)) continue;
        const k = o as { spec?: { structureDefinition?: { childComponents?: Array<{ kind?: { group?: string; kind?: string; version?: string } }>; additionalChildKinds?: Array<{ group?: string; kind?: string; version?: string }> } } };
        const sd = k.spec?.structureDefinition;
        if (root) more.set(root, undefined);
        for (const c of sd?.childComponents ?? []) if (typeof c?.kind?.kind === 'string') more.set(`${c.kind.group ?? ''}/${c.kind.kind}`, c.kind.version);
        for (const c of sd?.additionalChildKinds ?? []) if (typeof c?.kind === 'string') more.set(`${c.group ?? ''}/${c.kind}`, c.version);
      }
    }
    for (const list of objects.values()) for (const o of list) for (const ref of o.metadata?.ownerReferences ?? []) if (ref?.kind) more.set(groupKindOf(ref), undefined);
    const fresh = [...more].filter(([gk]) => !planned.has(gk) && !NEVER_WATCHED.has(gk));
    if (fresh.length === 0) break;
    await Promise.all(fresh.map(([gk, v]) => listKind(gk, v, true)));
  }

  if (oneWorkload) {
    // Only what the workload owns is resolved: the namespace's other workloads are not its business.
    const mine = ownedUids(objects, roots[0]);
    for (const [gk, list] of objects) if (!DEFINITION_KINDS.has(gk)) objects.set(gk, list.filter((o) => mine.has(String(o.metadata?.uid ?? ''))));
    await readNodesOf(kc, d, [roots[0], ...objects.get(POD_GK) ?? []], objects, failures, signal, inFlight);
  }

  // Definitions: the catalog's for the root kinds met, the cluster's for the same kinds.
  const present = new Set<string>();
  for (const [gk, list] of objects) if (list.length > 0) present.add(gk);
  // Every workload of a kind: whether one of its objects is a workload of its own or part of its
  // owner's (a Job of a JobSet) is for the definitions of the owners' kinds to say too.
  if (neededRoots && !oneWorkload) for (const list of objects.values()) for (const o of list) for (const ref of o.metadata?.ownerReferences ?? []) if (ref?.kind) neededRoots.add(groupKindOf(ref));
  const rootKinds = neededRoots ?? present;
  trace('snapshot: owner kinds listed');
  const index = new WorkloadIndex(new DefinitionSet(LiveWorkloads.catalogEntries(catalogOf().entriesFor(rootKinds))), { gpuResources, isSynced: () => true, coalesceMs: 1_000_000 });
  const cluster = config.name;
  if (failures.size > 0) index.setKindHealth(cluster, failures);
  for (const gk of DEFINITION_KINDS) {
    const defs = (objects.get(gk) ?? []).filter((o) => {
      const root = rawRootKind(o);
      return root === null || rootKinds.has(root);
    });
    index.replaceKind(cluster, gk, defs);
  }
  for (const [gk, list] of objects) if (!DEFINITION_KINDS.has(gk)) index.replaceKind(cluster, gk, list);
  const absent = [...roots, ...chain].filter((o) => !index.object(cluster, String(o.metadata?.uid ?? '')));
  if (absent.length > 0) index.upsertMany(cluster, absent);
  trace('snapshot: fed');
  index.flush();
  trace('snapshot: resolved');
  if ('kind' in scope && scope.name === undefined) {
    const gks = new Set([...kindsNamed(scope.kind, d.resources)]);
    roots = [...gks].flatMap((gk) => objects.get(gk) ?? []);
  }
  return {
    cluster,
    namespace,
    allNamespaces: all,
    index,
    served: d.resources,
    reader: {
      getJson: <T>(path: string, s?: AbortSignal) => getJson<T>(kc, path, s),
      streamText: (path, onChunk, s, onOpen) => streamText(kc, path, onChunk, s, onOpen),
    },
    failures,
    notes,
    roots,
    rootResource,
    objects,
    listed,
    kubeconfig: kc,
    stop() {
      index.close();
      closeConnections(kc);
    },
  };
}

const NODE_GK = '/Node';
const POD_GK = '/Pod';

/** The uids an object owns at any depth (by owner uid; validity is the index's to judge), itself included. */
function ownedUids(objects: ReadonlyMap<string, readonly KubeObject[]>, root: KubeObject): Set<string> {
  const children = new Map<string, string[]>();
  for (const list of objects.values()) {
    for (const o of list) {
      for (const ref of o.metadata?.ownerReferences ?? []) if (ref?.uid) (children.get(ref.uid) ?? children.set(ref.uid, []).get(ref.uid)!).push(String(o.metadata?.uid ?? ''));
    }
  }
  const out = new Set<string>([String(root.metadata?.uid ?? '')]);
  const queue = [...out];
  for (let i = 0; i < queue.length; i++) {
    for (const c of children.get(queue[i]) ?? []) {
      if (out.has(c)) continue;
      out.add(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * The nodes pods run on, read by name over the read's kept-alive connections (`inFlight`: a new
 * connection is a TLS handshake). A forbidden read leaves the kind unreadable, as a forbidden list would.
 */
async function readNodesOf(kc: KubeConfig, d: Discovered, pods: readonly KubeObject[], objects: Map<string, KubeObject[]>, failures: Map<string, KindFailure>, signal: AbortSignal, inFlight: Limiter): Promise<void> {
  const r = pickResource(d, NODE_GK, 'v1');
  if (!r) return;
  const names = new Set<string>();
  for (const p of pods) {
    const node = (p as { spec?: { nodeName?: unknown } }).spec?.nodeName;
    if (p.kind === 'Pod' && typeof node === 'string' && node) names.add(node);
  }
  const nodes: KubeObject[] = [];
  await Promise.all([...names].sort().map(async (name) => {
    try {
      nodes.push(trimObject({ apiVersion: 'v1', kind: 'Node', ...(await inFlight(() => getJson<ClusterObject>(kc, `${resourcePath(r)}/${encodeURIComponent(name)}`, signal))) }) as KubeObject);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return;
      failures.set(NODE_GK, failureOf(r, e));
    }
  }));
  objects.set(NODE_GK, nodes);
}

/** The owners of an object, read by name up its ownership chain (every reference, a few levels at most). */
async function ownerChain(kc: KubeConfig, d: Discovered, obj: KubeObject, signal: AbortSignal): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  const seen = new Set<string>([String(obj.metadata?.uid ?? '')]);
  let level: KubeObject[] = [obj];
  for (let depth = 0; depth < 16 && level.length > 0; depth++) {
    const next = await Promise.all(level.flatMap((o) => (o.metadata?.ownerReferences ?? []).map(async (ref) => {
      if (!ref?.uid || !ref.kind || !ref.name || seen.has(ref.uid)) return null;
      seen.add(ref.uid);
      const r = pickResource(d, groupKindOf(ref), String(ref.apiVersion ?? '').split('/').pop());
      if (!r) return null;
      try {
        const got = await getJson<ClusterObject>(kc, `${resourcePath(r, r.namespaced ? String(o.metadata?.namespace ?? '') : undefined)}/${encodeURIComponent(ref.name)}`, signal);
        return trimObject({ apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind, ...got }) as KubeObject;
      } catch {
        return null;
      }
    })));
    level = next.filter((o): o is KubeObject => o !== null);
    out.push(...level);
  }
  return out;
}
