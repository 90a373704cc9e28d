/**
 * One cluster: discovery, one list+watch per wanted kind, connection state. It watches what the
 * workloads layer asks for (by group/kind) among the kinds the cluster serves; it knows no definitions.
 * New CRDs are picked up by watching CustomResourceDefinitions and by periodic rediscovery.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { logger, type Logger } from '../log/index.ts';
import { discover, resourcePath, type DiscoveryResult } from './discovery.ts';
import { ApiError, apiRequest, closeConnections, getJson, streamText } from './http.ts';
import { ListWatch, type ListWatchOptions, type ListWatchState } from './list-watch.ts';
import { groupKind, type ActAs, type ClusterObject, type ServedResource, type WatchEventType } from './types.ts';

/** One object of a served kind, as writes name it. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface DeleteObjectOptions {
  propagationPolicy: 'Foreground' | 'Background' | 'Orphan';
  /** Precondition: the delete fails with 409 when the object's resourceVersion has moved on. */
  resourceVersion?: string;
  /** The API server admits the delete without doing it. */
  dryRun: boolean;
}

/**
 * What can be sent to one cluster as one identity. Refusals throw ApiError with the API server's
 * status and message.
 */
export interface ClusterClient {
  getJson<T>(path: string, signal?: AbortSignal): Promise<T>;
  /** A create (a SubjectAccessReview); returns the object the server answered with. */
  postJson(path: string, body: unknown): Promise<ClusterObject>;
  /**
   * A replace (PUT) of the object at `path`; the body's `metadata.resourceVersion` is the precondition
   * (409 when the object has moved on). `dryRun`: validated and admitted, not persisted.
   */
  putJson(path: string, body: unknown, dryRun?: boolean): Promise<ClusterObject>;
  streamText(path: string, onChunk: (text: string) => void, signal: AbortSignal, onOpen?: () => void): Promise<void>;
  /** A JSON patch of one object; `dryRun`: validated and admitted, not persisted. */
  patchJson(ref: ObjectRef, ops: unknown[], dryRun: boolean): Promise<ClusterObject>;
  deleteObject(ref: ObjectRef, opts: DeleteObjectOptions): Promise<ClusterObject>;
}

export interface ClusterSink {
  onEvent(cluster: string, gk: string, type: WatchEventType, obj: ClusterObject): void;
  /** A page of a list in progress (optional; `onList` follows with the complete set). */
  onListPage?(cluster: string, gk: string, objects: ClusterObject[]): void;
  onList(cluster: string, gk: string, objects: ClusterObject[]): void;
  onChange(cluster: string): void;
}

export interface KindState {
  gk: string;
  resource: ServedResource;
  state: ListWatchState;
  message: string | null;
  synced: boolean;
  /** Time of the first failure since the last success; null while healthy. */
  failingSince: number | null;
}

export interface ConnectionInfo {
  name: string;
  server: string;
  state: 'connecting' | 'connected' | 'unreachable';
  message: string | null;
  /** Since when the cluster has been unreachable (discovery failing); null otherwise. */
  unreachableSince: number | null;
  servedKinds: number;
  kinds: KindState[];
  lastSyncAt: number | null;
}

export interface ConnectionOptions {
  rediscoverMs?: number;
  listWatch?: ListWatchOptions;
}

const CRD_GK = groupKind('apiextensions.k8s.io', 'CustomResourceDefinition');

/** CRD objects are large (schemas); only names matter here. */
function trimCrd(o: ClusterObject): ClusterObject {
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata?.name, uid: o.metadata?.uid, resourceVersion: o.metadata?.resourceVersion } };
}

export class ClusterConnection {
  readonly name: string;
  readonly server: string;
  private readonly kc: KubeConfig;
  private readonly sink: ClusterSink;
  private readonly opts: ConnectionOptions;
  private discovery: DiscoveryResult | null = null;
  private wanted = new Map<string, string | undefined>();
  private readonly watches = new Map<string, { lw: ListWatch; synced: boolean }>();
  private crdWatch: ListWatch | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private state: ConnectionInfo['state'] = 'connecting';
  private message: string | null = null;
  private lastSyncAt: number | null = null;
  private unreachableSince: number | null = null;
  private discovering: Promise<void> | null = null;
  private readonly log: Logger;

  constructor(name: string, server: string, kc: KubeConfig, sink: ClusterSink, opts: ConnectionOptions = {}) {
    this.name = name;
    this.server = server;
    this.kc = kc;
    this.sink = sink;
    this.opts = opts;
    this.log = logger('cluster', { cluster: name });
  }

  /** One GET with this context's credentials (reads the watches do not hold: a pod's events). */
  getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.as(null).getJson<T>(path, signal);
  }

  /** A JSON patch sent with this context's credentials (see ClusterClient.patchJson). */
  patchJson(ref: ObjectRef, ops: unknown[], dryRun: boolean): Promise<ClusterObject> {
    return this.as(null).patchJson(ref, ops, dryRun);
  }

  /** A delete sent with this context's credentials (see ClusterClient.deleteObject). */
  deleteObject(ref: ObjectRef, opts: DeleteObjectOptions): Promise<ClusterObject> {
    return this.as(null).deleteObject(ref, opts);
  }

  /** A streamed text GET (a container's log, followed). */
  streamText(path: string, onChunk: (text: string) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    return this.as(null).streamText(path, onChunk, signal, onOpen);
  }

  /** The path of one object of a served kind (the version asked for when served, else the first). */
  private objectPath(ref: ObjectRef): string {
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    const version = ref.apiVersion.slice(slash + 1);
    const served = this.servedResources().filter((r) => r.group === group && r.kind === ref.kind);
    const r = served.find((x) => x.version === version) ?? served[0];
    if (!r) throw new ApiError(404, 'NotFound', `the cluster does not serve ${ref.kind} in ${group || 'the core group'}`);
    return `${resourcePath({ ...r, version }, r.namespaced ? ref.namespace : undefined)}/${encodeURIComponent(ref.name)}`;
  }

  /**
   * Requests to this cluster sent as `who`: null is the context's own identity (in local mode, the
   * user's own kubeconfig); otherwise the user's bearer token or the user impersonated from the
   * context's account. The server's watches always use its own identity.
   */
  as(who: ActAs | null): ClusterClient {
    const kc = this.kc;
    const as = who ?? undefined;
    const send = async (method: string, path: string, body: unknown, contentType = 'application/json'): Promise<ClusterObject> => {
      const res = await apiRequest(kc, method, path, { body: body === undefined ? undefined : JSON.stringify(body), contentType, as });
      return JSON.parse(res.body) as ClusterObject;
    };
    return {
      getJson: <T>(path: string, signal?: AbortSignal) => getJson<T>(kc, path, signal, as),
      postJson: (path: string, body: unknown) => send('POST', path, body),
      putJson: (path: string, body: unknown, dryRun = false) => send('PUT', dryRun ? `${path}${path.includes('?') ? '&' : '?'}dryRun=All` : path, body),
      streamText: (path, onChunk, signal, onOpen) => streamText(kc, path, onChunk, signal, onOpen, as),
      patchJson: (ref, ops, dryRun) => send('PATCH', `${this.objectPath(ref)}${dryRun ? '?dryRun=All' : ''}`, ops, 'application/json-patch+json'),
      deleteObject: (ref, o) => {
        const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: o.propagationPolicy };
        if (o.resourceVersion) body.preconditions = { resourceVersion: o.resourceVersion };
        if (o.dryRun) body.dryRun = ['All'];
        return send('DELETE', `${this.objectPath(ref)}${o.dryRun ? '?dryRun=All' : ''}`, body);
      },
    };
  }

  start(): void {
    void this.rediscover();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watches.values()) w.lw.stop();
    this.watches.clear();
    this.crdWatch?.stop();
    // Pooled keep-alive sockets would otherwise outlive the connection.
    closeConnections(this.kc);
  }

  /** The kinds to watch (`group/Kind`), each with an optional preferred version. */
  setWanted(kinds: Map<string, string | undefined>): void {
    this.wanted = new Map(kinds);
    this.reconcileWatches();
  }

  /** Adds kinds without dropping others (e.g. an owner kind seen in an ownerReference). */
  addWanted(gk: string, version?: string): void {
    if (this.wanted.has(gk)) return;
    this.wanted.set(gk, version);
    this.reconcileWatches();
  }

  private served = new Set<string>();

  isServed(gk: string): boolean {
    return this.served.has(gk);
  }

  /** Every resource the cluster serves, as discovery last said (empty before the first discovery). */
  servedResources(): readonly ServedResource[] {
    return this.discovery?.resources ?? [];
  }

  /** The versions the cluster serves of a kind (`group/Kind`), e.g. of a definition CRD. */
  servedVersions(gk: string): string[] {
    return this.discovery ? this.discovery.resources.filter((r) => groupKind(r.group, r.kind) === gk).map((r) => r.version) : [];
  }

  private async rediscover(): Promise<void> {
    if (this.discovering) return this.discovering;
    this.discovering = (async () => {
      try {
        this.discovery = await discover(this.kc);
        this.served = new Set(this.discovery.resources.map((r) => groupKind(r.group, r.kind)));
        if (this.state !== 'connected' || this.message) {
          if (this.state !== 'connected') this.log.info({ server: this.server, kinds: this.served.size }, 'connected');
          this.state = 'connected';
          this.unreachableSince = null;
          this.message = this.discovery.failed.length > 0 ? `API groups not answering: ${this.discovery.failed.join(', ')}` : null;
          if (this.message) this.log.warn({ groups: this.discovery.failed }, 'API groups not answering discovery');
          this.sink.onChange(this.name);
        }
        this.ensureCrdWatch();
        this.reconcileWatches();
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        if (this.state !== 'unreachable' || this.message !== msg) {
          this.log.warn({ server: this.server, error: msg, retryInMs: 5_000 }, 'unreachable');
          this.state = 'unreachable';
          this.unreachableSince ??= Date.now();
          this.message = msg;
          this.sink.onChange(this.name);
        }
      } finally {
        this.discovering = null;
        if (!this.stopped) {
          if (this.timer) clearTimeout(this.timer);
          const wait = this.state === 'unreachable' ? 5_000 : (this.opts.rediscoverMs ?? 60_000);
          this.timer = setTimeout(() => void this.rediscover(), wait);
        }
      }
    })();
    return this.discovering;
  }

  private ensureCrdWatch(): void {
    if (this.crdWatch || !this.discovery) return;
    const r = this.pick(CRD_GK, undefined);
    if (!r) return;
    let initial = true;
    this.crdWatch = new ListWatch(this.kc, r, {
      onEvent: (type) => { if (type !== 'MODIFIED') void this.rediscover(); },
      onList: () => { if (!initial) void this.rediscover(); initial = false; },
      onState: () => {},
    }, { ...this.opts.listWatch, trim: trimCrd, log: this.log, cluster: this.name });
    this.crdWatch.start();
  }

  private pick(gk: string, version: string | undefined): ServedResource | undefined {
    const d = this.discovery;
    if (!d) return undefined;
    const all = d.resources.filter((r) => groupKind(r.group, r.kind) === gk && r.verbs.includes('list') && r.verbs.includes('watch'));
    if (all.length === 0) return undefined;
    const group = all[0].group;
    return all.find((r) => r.version === version) ?? all.find((r) => r.version === d.preferred.get(group)) ?? all[0];
  }

  private reconcileWatches(): void {
    if (this.stopped || !this.discovery) return;
    for (const [gk, version] of this.wanted) {
      const r = this.pick(gk, version);
      const cur = this.watches.get(gk);
      if (cur && r && cur.lw.resource.version === r.version) continue;
      if (cur) {
        cur.lw.stop();
        this.watches.delete(gk);
      }
      if (!r) continue;
      const entry = { lw: null as unknown as ListWatch, synced: false };
      const log = this.log;
      entry.lw = new ListWatch(this.kc, r, {
        onEvent: (type, obj) => {
          this.lastSyncAt = Date.now();
          this.sink.onEvent(this.name, gk, type, obj);
        },
        onListPage: (objects) => this.sink.onListPage?.(this.name, gk, objects),
        onList: (objects) => {
          entry.synced = true;
          this.lastSyncAt = Date.now();
          this.sink.onList(this.name, gk, objects);
          this.sink.onChange(this.name);
        },
        onState: () => this.sink.onChange(this.name),
      }, { ...this.opts.listWatch, log, cluster: this.name });
      this.watches.set(gk, entry);
      entry.lw.start();
    }
    for (const [gk, w] of this.watches) {
      if (!this.wanted.has(gk)) {
        w.lw.stop();
        this.watches.delete(gk);
        this.sink.onList(this.name, gk, []);
      }
    }
  }

  /** True when every wanted, served kind has completed its first list (or is forbidden). */
  synced(): boolean {
    return this.allKinds((w) => w.synced || w.lw.state === 'forbidden');
  }

  /**
   * True when every wanted, served kind has listed, is forbidden, or keeps failing: nothing more
   * will arrive without a change (a one-shot command may then answer, saying what is missing).
   */
  settled(): boolean {
    return this.allKinds((w) => w.synced || w.lw.state === 'forbidden' || w.lw.failingSince !== null);
  }

  private allKinds(ok: (w: { lw: ListWatch; synced: boolean }) => boolean): boolean {
    if (!this.discovery) return false;
    for (const [gk] of this.wanted) {
      if (!this.pick(gk, undefined)) continue;
      const w = this.watches.get(gk);
      if (!w || !ok(w)) return false;
    }
    return true;
  }

  info(): ConnectionInfo {
    const d = this.discovery;
    // A cluster whose every watch fails is unreachable even if discovery answered once.
    const kinds: KindState[] = [...this.watches.entries()].map(([gk, w]) => ({ gk, resource: w.lw.resource, state: w.lw.state, message: w.lw.message, synced: w.synced, failingSince: w.lw.failingSince }));
    const allFailing = kinds.length > 0 && kinds.every((k) => k.state === 'error');
    return {
      name: this.name,
      server: this.server,
      state: allFailing ? 'unreachable' : this.state,
      message: allFailing ? (kinds[0].message ?? this.message) : this.message,
      unreachableSince: this.unreachableSince,
      servedKinds: d ? new Set(d.resources.map((r) => groupKind(r.group, r.kind))).size : 0,
      kinds,
      lastSyncAt: this.lastSyncAt,
    };
  }
}
