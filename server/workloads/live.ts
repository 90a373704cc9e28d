/**
 * The live side: cluster connections feeding the workload index. Decides which kinds each cluster
 * watches (core kinds, every kind the definitions mention, definition CRDs, and owner kinds seen in
 * ownerReferences), and reports each cluster's connection state in the row contract's terms.
 */
import { ClusterConnection, ConfigWatcher, credentialFiles, fingerprint, type ActAs, type ClusterConfig, type ClusterObject, type ConnectionOptions } from '../cluster/index.ts';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { logger } from '../log/index.ts';
import type { QuarantineRecord } from './definition-health.ts';
import type { KubeObject } from '../engine/index.ts';
import { DefinitionSet, entryFromCatalog, type DefinitionEntry } from './definitions.ts';
import type { ClusterInfo } from './row.ts';
import type { ClusterUsage, IdleRule } from '../../contract/index.ts';
import { UsageFeed, type PodRef, type PodSeries, type UsageSnapshot } from '../usage/index.ts';
import { CORE_KINDS, DEFINITION_KINDS, groupKindOf } from './group-kind.ts';
import { CLUSTER, type KindFailure } from './staleness.ts';
import { WorkloadIndex, type IndexOptions } from './workload-index.ts';
import type { ClusterReader } from './pod-inspect.ts';

export interface LiveOptions {
  clusters: ClusterConfig[];
  catalog: DefinitionEntry[];
  connection?: ConnectionOptions;
  index?: IndexOptions;
  /** Longest time a cluster's rows are held back waiting for its initial lists. */
  initialSyncTimeoutMs?: number;
  /** Where quarantined definitions are remembered across restarts (JSON; none when absent). */
  stateFile?: string;
  /** Which extended resources count as GPUs (gpu-resources.ts; default: the engine's). */
  gpuResources?: readonly string[];
  /** GPU utilization: where from and how idleness is judged; off when absent. */
  usage?: UsageSettings;
}

export interface UsageSettings {
  /** Prometheus per cluster (context name), `*` for every cluster: `http(s)://…` or `service:ns/name:port`; discovered otherwise. */
  prometheus?: Record<string, string>;
  idle: IdleRule;
  intervalSeconds: number;
  /** How often a cluster's source is looked for again. */
  rediscoverSeconds?: number;
}

/**
 * Kinds never watched even when a definition lists them (as `additionalChildKinds` for RBAC):
 * they own no pods, and Secrets must not be held by a dashboard at all.
 */
export const NEVER_WATCHED = new Set([
  '/Secret', '/ConfigMap', '/ServiceAccount', '/Service', '/Endpoints', '/Event', '/PersistentVolumeClaim',
  'rbac.authorization.k8s.io/Role', 'rbac.authorization.k8s.io/RoleBinding', 'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding', 'networking.k8s.io/Ingress', 'networking.k8s.io/NetworkPolicy',
  'autoscaling/HorizontalPodAutoscaler', 'policy/PodDisruptionBudget', 'discovery.k8s.io/EndpointSlice', 'events.k8s.io/Event',
]);

export type ClustersListener = (clusters: ClusterInfo[]) => void;

/** A cluster's utilization as the contract reports it: where from, how old, what it covers. */
export function clusterUsageOf(name: string, s: UsageSnapshot, index: WorkloadIndex): ClusterUsage {
  const { coverage } = index.usage(name);
  const known = s.at !== null;
  return {
    cluster: name, source: s.source, detail: s.detail, at: known ? new Date(s.at!).toISOString() : null, error: s.error,
    coverage: { gpuPods: coverage.gpuPods, withMetrics: known ? coverage.withMetrics : null },
    history: s.history, idle: s.idle, intervalSeconds: s.intervalSeconds,
  };
}

/** `pods`, `jobsets.jobset.x-k8s.io`: how kubectl names a resource. */
function resourceName(r: { resource: string; group: string }): string {
  return r.resource + (r.group ? `.${r.group}` : '');
}

export class LiveWorkloads {
  readonly index: WorkloadIndex;
  private readonly connections = new Map<string, ClusterConnection>();
  private readonly feeds = new Map<string, UsageFeed>();
  private readonly ownerKinds = new Map<string, Set<string>>();
  private readonly listeners = new Set<ClustersListener>();
  private readonly startedAt = new Map<string, number>();
  private readonly opts: LiveOptions;
  private changeTimer: ReturnType<typeof setTimeout> | null = null;
  /** Clusters whose initial lists have all completed (logged once each). */
  private readonly syncedClusters = new Set<string>();
  private readonly log = logger('live');

  constructor(opts: LiveOptions) {
    this.opts = opts;
    const defs = new DefinitionSet(opts.catalog);
    this.index = new WorkloadIndex(defs, {
      ...opts.index,
      gpuResources: opts.gpuResources ?? opts.index?.gpuResources,
      isExpectedKind: (cluster, gk) => {
        const conn = this.connections.get(cluster);
        return !!conn && conn.isServed(gk) && this.wantedKinds(cluster).has(gk);
      },
      isSynced: (cluster) => {
        const conn = this.connections.get(cluster);
        if (!conn) return true;
        return conn.synced() || Date.now() - (this.startedAt.get(cluster) ?? 0) > (opts.initialSyncTimeoutMs ?? 5_000);
      },
    });
    if (opts.stateFile) this.keepState(opts.stateFile);
    this.index.onDefinitionsChanged = (cluster) => {
      this.wantedCache.delete(cluster);
      this.connections.get(cluster)?.setWanted(this.wantedKinds(cluster));
    };
  }

  /** Quarantines survive a restart: read at start, written whenever they change. */
  private keepState(file: string): void {
    try {
      if (existsSync(file)) {
        const state = JSON.parse(readFileSync(file, 'utf8')) as { quarantines?: QuarantineRecord[] };
        if (Array.isArray(state.quarantines)) this.index.health.restore(state.quarantines);
      }
    } catch (e) {
      this.log.warn({ file, err: e instanceof Error ? e.message : String(e) }, 'cannot read the state file; starting without it');
    }
    this.index.health.onChange = (quarantines) => {
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(`${file}.tmp`, JSON.stringify({ quarantines }, null, 1));
        renameSync(`${file}.tmp`, file);
      } catch (e) {
        this.log.warn({ file, err: e instanceof Error ? e.message : String(e) }, 'cannot write the state file');
      }
    };
  }

  static catalogEntries(entries: Array<{ loaded: DefinitionEntry['loaded']; compiled: DefinitionEntry['compiled']; errors: DefinitionEntry['errors'] }>): DefinitionEntry[] {
    return entries.map((e) => entryFromCatalog(e.loaded, e.compiled, e.errors));
  }

  private readonly wantedCache = new Map<string, Map<string, string | undefined>>();

  /** The kinds to watch in a cluster; cached, because every arriving object consults it. */
  wantedKinds(cluster: string): Map<string, string | undefined> {
    const cached = this.wantedCache.get(cluster);
    if (cached) return cached;
    const m = new Map<string, string | undefined>(CORE_KINDS);
    for (const gk of DEFINITION_KINDS) m.set(gk, undefined);
    for (const [gk, v] of this.index.definitions.mentionedKinds(cluster)) if (!m.has(gk)) m.set(gk, v);
    for (const gk of this.ownerKinds.get(cluster) ?? []) if (!m.has(gk)) m.set(gk, undefined);
    for (const gk of NEVER_WATCHED) m.delete(gk);
    this.wantedCache.set(cluster, m);
    return m;
  }

  start(): void {
    for (const c of this.opts.clusters) this.connect(c);
  }

  /** What each cluster's connection was made from, to tell a changed configuration from the same. */
  private readonly fingerprints = new Map<string, string>();

  /**
   * A new set of cluster configurations (the kubeconfig or a credential file changed): clusters
   * whose credentials or server changed get a new connection (their rows stay until the relist
   * reconciles them), removed ones are dropped with their rows, new ones are connected.
   */
  reconfigure(clusters: ClusterConfig[]): void {
    const next = new Map(clusters.map((c) => [c.name, c] as const));
    for (const name of [...this.connections.keys()]) {
      const c = next.get(name);
      if (c && fingerprint(c.kc) === this.fingerprints.get(name)) continue;
      this.connections.get(name)?.stop();
      this.connections.delete(name);
      this.feeds.get(name)?.stop();
      this.feeds.delete(name);
      this.syncedClusters.delete(name);
      if (!c) {
        this.log.info({ cluster: name }, 'context removed from the kubeconfig');
        this.fingerprints.delete(name);
        this.index.dropCluster(name);
      } else this.log.info({ cluster: name, server: c.server }, 'credentials changed, reconnecting');
    }
    for (const c of clusters) if (!this.connections.has(c.name)) this.connect(c);
    this.clustersChanged();
  }

  private connect(c: ClusterConfig): void {
    this.fingerprints.set(c.name, fingerprint(c.kc));
    const conn = new ClusterConnection(c.name, c.server, c.kc, {
      onEvent: (cluster, _gk, type, obj) => {
        this.noteOwners(cluster, obj);
        if (type === 'DELETED') this.index.remove(cluster, obj as KubeObject);
        else this.index.upsert(cluster, obj as KubeObject);
      },
      onListPage: (cluster, _gk, objects) => {
        for (const o of objects) this.noteOwners(cluster, o);
        this.index.upsertMany(cluster, objects as KubeObject[]);
      },
      onList: (cluster, gk, objects) => {
        for (const o of objects) this.noteOwners(cluster, o);
        this.index.replaceKind(cluster, gk, objects as KubeObject[]);
      },
      onChange: (cluster) => {
        this.noteSynced(cluster);
        this.noteHealth(cluster);
        this.clustersChanged();
      },
    }, this.opts.connection);
    this.connections.set(c.name, conn);
    this.startedAt.set(c.name, Date.now());
    conn.setWanted(this.wantedKinds(c.name));
    conn.start();
    this.startUsage(c);
  }

  /** The cluster's utilization feed: its readings are joined into the rows on every refresh. */
  private startUsage(c: ClusterConfig): void {
    const u = this.opts.usage;
    if (!u) return;
    this.feeds.get(c.name)?.stop();
    const feed = new UsageFeed(c.name, c.kc, { prometheus: u.prometheus?.[c.name] ?? u.prometheus?.['*'], idle: u.idle, intervalSeconds: u.intervalSeconds, rediscoverSeconds: u.rediscoverSeconds }, (snap) => {
      if (this.feeds.get(c.name) !== feed) return;
      this.index.setUsage(c.name, snap);
      this.clustersChanged();
    });
    this.feeds.set(c.name, feed);
    feed.start();
  }

  /** Refreshes every cluster's utilization now (tests, and `wmap` one-shot commands). */
  async refreshUsage(): Promise<void> {
    await Promise.all([...this.feeds.values()].map((f) => f.refresh()));
  }

  /**
   * Reads beyond the watches (events, logs), sent as `as` (a shared-mode user) or with the cluster's
   * own credentials; null for an unknown cluster.
   */
  reader(cluster: string, as: ActAs | null = null): ClusterReader | null {
    return this.connections.get(cluster)?.as(as) ?? null;
  }

  /** Utilization of pods over time from the cluster's Prometheus; null when its source keeps no history. */
  usageRange(cluster: string, pods: readonly PodRef[], start: number, end: number, stepSeconds: number): Promise<Map<string, PodSeries> | null> {
    return this.feeds.get(cluster)?.range(pods, start, end, stepSeconds) ?? Promise.resolve(null);
  }

  private clusterUsage(name: string): ClusterUsage | undefined {
    const feed = this.feeds.get(name);
    return feed ? clusterUsageOf(name, feed.snapshot(), this.index) : undefined;
  }

  private configWatcher: ConfigWatcher | null = null;

  /**
   * Reloads the cluster configurations whenever one of the files they come from changes (the
   * kubeconfig files given, and the certificate, key and token files each context names). A file
   * caught half-written or invalid keeps the current configuration and is retried on its next change.
   */
  watchConfig(load: () => ClusterConfig[], kubeconfigFiles: string[]): void {
    const files = (configs: ClusterConfig[]) => [...new Set([...kubeconfigFiles, ...configs.flatMap((c) => credentialFiles(c.kc))])];
    this.configWatcher?.stop();
    const watcher = new ConfigWatcher(() => {
      let configs: ClusterConfig[];
      try {
        configs = load();
      } catch (e) {
        this.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'the kubeconfig changed but cannot be read; keeping the current clusters');
        return;
      }
      this.reconfigure(configs);
      watcher.watch(files(configs));
    });
    watcher.watch(files(this.opts.clusters));
    this.configWatcher = watcher;
  }

  stop(): void {
    this.configWatcher?.stop();
    for (const c of this.connections.values()) c.stop();
    this.connections.clear();
    for (const f of this.feeds.values()) f.stop();
    this.feeds.clear();
    if (this.changeTimer) clearTimeout(this.changeTimer);
    this.index.close();
  }

  connection(name: string): ClusterConnection | undefined {
    return this.connections.get(name);
  }

  /** Owners of a kind nobody asked for (an operator's own CR) are watched too, so chains stay whole. */
  private noteOwners(cluster: string, obj: ClusterObject): void {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (!ref?.kind) continue;
      const gk = groupKindOf(ref);
      let s = this.ownerKinds.get(cluster);
      if (!s) this.ownerKinds.set(cluster, (s = new Set()));
      if (s.has(gk) || this.wantedKinds(cluster).has(gk)) continue;
      s.add(gk);
      this.wantedCache.delete(cluster);
      // Wanted even while discovery does not list it yet (its CRD was created a moment ago): the
      // connection starts the watch once a rediscovery serves it, instead of never.
      this.connections.get(cluster)?.addWanted(gk);
    }
  }

  /** The kinds of a cluster that keep failing (all of them while it is unreachable). */
  /** When each forbidden kind was first seen forbidden (`cluster\0group/Kind`), so its mark keeps one "since". */
  private readonly forbiddenSince = new Map<string, number>();

  private failing(conn: ClusterConnection): Map<string, KindFailure> {
    const info = conn.info();
    const out = new Map<string, KindFailure>();
    if (info.unreachableSince !== null) out.set(CLUSTER, { since: info.unreachableSince, message: info.message ?? 'unreachable', name: `cluster ${info.name}` });
    for (const k of info.kinds) {
      if (k.state === 'forbidden') {
        // Not stale but unknown: the credentials may not read it at all.
        const key = `${info.name}\u0000${k.gk}`;
        if (!this.forbiddenSince.has(key)) this.forbiddenSince.set(key, k.failingSince ?? Date.now());
        out.set(k.gk, { since: this.forbiddenSince.get(key)!, message: k.message ?? 'forbidden', name: resourceName(k.resource), unreadable: true });
        continue;
      }
      this.forbiddenSince.delete(`${info.name}\u0000${k.gk}`);
      if (k.failingSince !== null) out.set(k.gk, { since: k.failingSince, message: k.message ?? 'failing', name: resourceName(k.resource), unreadable: !k.synced });
    }
    return out;
  }

  /** Tells the index which kinds fail, so that the rows built from them say they are stale. */
  private noteHealth(cluster: string): void {
    const conn = this.connections.get(cluster);
    if (conn) this.index.setKindHealth(cluster, this.failing(conn));
  }

  private noteSynced(cluster: string): void {
    if (this.syncedClusters.has(cluster) || !this.connections.get(cluster)?.synced()) return;
    this.syncedClusters.add(cluster);
    const started = this.startedAt.get(cluster) ?? Date.now();
    this.log.info({ cluster, objects: this.index.objectCount(cluster), ms: Date.now() - started }, 'initial lists complete');
  }

  subscribeClusters(l: ClustersListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private clustersChanged(): void {
    if (this.changeTimer) return;
    this.changeTimer = setTimeout(() => {
      this.changeTimer = null;
      const infos = this.clusters();
      for (const l of this.listeners) l(infos);
    }, 50);
  }

  clusters(): ClusterInfo[] {
    return [...this.connections.values()].map((conn) => {
      const i = conn.info();
      return {
        name: i.name,
        state: i.state,
        message: i.message,
        server: i.server,
        servedKinds: i.servedKinds,
        watchedKinds: i.kinds.map((k) => resourceName(k.resource)).sort(),
        forbiddenKinds: i.kinds.filter((k) => k.state === 'forbidden').map((k) => resourceName(k.resource)).sort(),
        failingKinds: [...this.failing(conn).values()].map((f) => ({ kind: f.name, since: new Date(f.since).toISOString(), message: f.message })).sort((a, b) => (a.kind < b.kind ? -1 : 1)),
        definitionApis: { karta: conn.servedVersions('run.ai/Karta'), resourceInterface: conn.servedVersions('optimization.nvidia.com/ResourceInterface') },
        lastSyncAt: i.lastSyncAt ? new Date(i.lastSyncAt).toISOString() : null,
        synced: conn.synced(),
        ...(this.feeds.has(i.name) ? { usage: this.clusterUsage(i.name) } : {}),
      };
    });
  }
}
