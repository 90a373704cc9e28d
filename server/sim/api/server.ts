/**
 * The simulated cluster's HTTP API server: routes Kubernetes REST requests to the object store,
 * with discovery, OpenAPI, Tables, watches, patches, access rules and faults. Pure logic lives in
 * the sibling modules; this file does the I/O.
 */

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import { parse as parseYaml } from 'yaml';
import type { HistoryEntry, MemoryStore } from '../store/memory-store.ts';
import { StoreError } from '../store/object-store.ts';
import type { DeleteOptions, KubeObject } from '../store/object-store.ts';
import { clone, isPlainObject, rfc3339 } from '../store/object-utils.ts';
import type { AccessRule } from './access.ts';
import { authorize } from './access.ts';
import { validateCrd } from './crd.ts';
import {
  AGGREGATED_CONTENT_TYPE,
  VERSION_INFO,
  aggregatedDiscovery,
  legacyCoreVersions,
  legacyGroupList,
  openApiGroupVersionDoc,
  openApiIndex,
  resourceList,
} from './discovery.ts';
import type { FaultController } from './faults.ts';
import { evaluateJsonPath } from './jsonpath-lite.ts';
import { PROTOBUF_MAGIC, ProtobufError, decodeProtobufObject } from './protobuf.ts';
import { PatchError, applyConfiguration, applyJsonPatch, applyMergePatch, strategicMerge } from './patch.ts';
import type { Registry, ResourceDescriptor } from './registry.ts';
import { gvKey } from './registry.ts';
import type { ResourcePath } from './request.ts';
import { boolParam, decodeContinue, encodeContinue, mediaType, parseApiPath, wantsAggregatedDiscovery, wantsTable } from './request.ts';
import { SelectorError, equalityLabels, matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { encodeObject, writeJoined } from './serialize.ts';
import { ApiError, badRequest, failure, invalid, methodNotAllowed, notFoundPath, qualifiedResource, success, unsupportedMediaType } from './status.ts';
import type { IncludeObject } from './table.ts';
import { buildTable } from './table.ts';
import { WatchSession } from './watch.ts';

export interface RequestLogEntry {
  method: string;
  url: string;
  status: number;
  contentType?: string;
  userAgent?: string;
}

export interface ApiServerOptions {
  store: MemoryStore;
  registry: Registry;
  faults: FaultController;
  /** Bearer tokens and what each may do; at least one admin token. */
  rules: AccessRule[];
  host?: string;
  /** How often BOOKMARKs go to watches that allow them (the real cacher: about a minute). */
  bookmarkIntervalMs?: number;
  /** Called for each finished request (tests assert request sequences with it). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** Clock for table ages (the simulated clock when controllers run). */
  now?: () => number;
  /** Serve HTTPS with this certificate (kubectl sends bearer tokens only over TLS). */
  tls?: { cert: string; key: string };
  /**
   * Rule for requests without credentials. Over plain http kubectl sends none, so an http simulator
   * on loopback treats them as this rule (typically admin); absent = 401 like a real server.
   */
  anonymous?: AccessRule;
}

const MAX_BODY = 32 * 1024 * 1024;
const CR_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const BUILTIN_PATCH_TYPES = [...CR_PATCH_TYPES, 'application/strategic-merge-patch+json'];
const PUBLIC_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  rule: AccessRule;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class ApiServer {
  private readonly store: MemoryStore;
  private readonly registry: Registry;
  private readonly faults: FaultController;
  private readonly rules = new Map<string, AccessRule>();
  private readonly host: string;
  private readonly bookmarkIntervalMs: number;
  private readonly onRequest?: (entry: RequestLogEntry) => void;
  private readonly tls?: { cert: string; key: string };
  private readonly anonymous?: AccessRule;
  private readonly now: () => number;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Map<string, Set<WatchSession>>();
  private unsubscribe: (() => void) | undefined;
  private dropTicker: NodeJS.Timeout | undefined;
  private lastDropAll = Date.now();
  private readonly restartListeners: Array<() => void> = [];
  private readonly offFaults: () => void;
  port = 0;

  constructor(opts: ApiServerOptions) {
    this.store = opts.store;
    this.registry = opts.registry;
    this.faults = opts.faults;
    for (const r of opts.rules) this.rules.set(r.token, r);
    this.host = opts.host ?? '127.0.0.1';
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 60_000;
    this.onRequest = opts.onRequest;
    this.tls = opts.tls;
    this.anonymous = opts.anonymous;
    this.now = opts.now ?? Date.now;
    const offFaults = this.faults.on((ev) => {
      if (ev === 'drop-watches') this.dropAllWatches();
    });
    // A deleted CRD ends the watches on its resource, as the real server's CR handler does.
    const offRegistry = this.registry.onChange(() => {
      for (const [gk, set] of this.watches) {
        const cut = gk.indexOf('/');
        if (!this.registry.byGroupKind(gk.slice(0, cut), gk.slice(cut + 1))) for (const w of [...set]) w.end();
      }
    });
    this.offFaults = () => {
      offFaults();
      offRegistry();
    };
  }

  // ---------------------------------------------------------------- lifecycle

  async listen(port = 0): Promise<number> {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((e: unknown) => this.sendError(res, e));
    };
    const server: Server = this.tls
      ? (createTlsServer({ cert: this.tls.cert, key: this.tls.key, keepAliveTimeout: 5000 }, handler) as unknown as Server)
      : createServer({ keepAliveTimeout: 5000 }, handler);
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    this.unsubscribe = this.store.subscribe((e) => this.fanOut(e as HistoryEntry));
    this.dropTicker = setInterval(() => this.dropTick(), 1000);
    this.dropTicker.unref();
    return this.port;
  }

  /** Ends watches cleanly (so clients re-watch), then closes every connection. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.dropTicker) clearInterval(this.dropTicker);
    for (const set of this.watches.values()) for (const w of [...set]) w.end();
    this.watches.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      // Connections still busy after a moment are cut.
      setTimeout(() => {
        for (const s of this.sockets) s.destroy();
      }, 200).unref();
    });
  }

  /** Stops listening (watches end cleanly, connections close) and listens again on the same port. */
  async restart(): Promise<void> {
    const port = this.port;
    await this.close();
    await this.listen(port);
    for (const l of this.restartListeners) l();
  }

  /** Called after each restart (the state file is written then). */
  onRestart(listener: () => void): void {
    this.restartListeners.push(listener);
  }

  dispose(): void {
    this.offFaults();
  }

  openWatchCount(): number {
    let n = 0;
    for (const s of this.watches.values()) n += s.size;
    return n;
  }

  // ---------------------------------------------------------------- watch fan-out and faults

  private fanOut(e: HistoryEntry): void {
    const set = this.watches.get(e.gk);
    if (!set) return;
    for (const w of set) w.deliver(e);
  }

  private dropAllWatches(): void {
    const mode = this.faults.dropMode();
    for (const set of this.watches.values()) for (const w of [...set]) drop(w, mode);
  }

  private dropTick(): void {
    const every = this.faults.dropEverySeconds();
    if (every > 0 && Date.now() - this.lastDropAll >= every * 1000) {
      this.lastDropAll = Date.now();
      this.dropAllWatches();
      return;
    }
    const mode = this.faults.dropMode();
    for (const set of this.watches.values()) {
      for (const w of [...set]) if (this.faults.dropThisSecond()) drop(w, mode);
    }
  }

  // ---------------------------------------------------------------- responses

  private sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private', ...headers });
    res.end(text);
  }

  private sendError(res: ServerResponse, e: unknown): void {
    let err: ApiError;
    if (e instanceof ApiError) err = e;
    else if (e instanceof StoreError) err = new ApiError(e.status, e.reason, e.message);
    else if (e instanceof PatchError) err = new ApiError(e.status, e.status === 422 ? 'Invalid' : 'BadRequest', e.message);
    else if (e instanceof SelectorError) err = badRequest(e.message);
    else {
      console.error('sim api: internal error', e);
      err = new ApiError(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.sendJson(res, err.code, err.toStatus(), err.headers);
  }

  // ---------------------------------------------------------------- routing

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (this.onRequest) {
      const onRequest = this.onRequest;
      res.on('finish', () => onRequest({ method: req.method ?? 'GET', url: req.url ?? '/', status: res.statusCode, contentType: req.headers['content-type'], userAgent: req.headers['user-agent'] }));
    }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const rule = this.authenticate(req);
    if (rule === null) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    if (!rule) {
      if (!PUBLIC_PATHS.has(path) && !path.startsWith('/healthz/')) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    }
    if (path.startsWith('/__sim/')) return this.handleControl(req, res, path, rule);
    if (path === '/version') return this.sendJson(res, 200, VERSION_INFO);
    if (path === '/healthz' || path === '/readyz' || path === '/livez' || path.startsWith('/healthz/')) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    const ctx: Ctx = { req, res, url, rule: rule! };
    if (path.startsWith('/api') || path.startsWith('/openapi')) {
      const latency = this.faults.latency();
      if (latency > 0) await sleep(latency);
      if (path.startsWith('/api')) {
        const fault = this.faults.injectedError(path);
        if (fault) {
          const reason = fault.code === 429 ? 'TooManyRequests' : fault.code === 503 ? 'ServiceUnavailable' : 'InternalError';
          const message = fault.code === 429 ? 'the server has received too many requests and has asked us to try again later' : 'an error on the server ("injected fault") has prevented the request from succeeding';
          const headers = { 'Retry-After': String(fault.retryAfterSeconds) };
          this.sendJson(res, fault.code, failure(fault.code, reason, message, { retryAfterSeconds: fault.retryAfterSeconds }), headers);
          return;
        }
      }
    }
    if (path === '/openapi/v2') throw notFoundPath();
    if (path === '/openapi/v3') return this.sendJson(res, 200, openApiIndex(this.registry));
    if (path.startsWith('/openapi/v3/')) {
      const rest = path.slice('/openapi/v3/'.length).split('/');
      const doc = rest[0] === 'api' && rest.length === 2 ? openApiGroupVersionDoc(this.registry, '', rest[1]) : rest[0] === 'apis' && rest.length === 3 ? openApiGroupVersionDoc(this.registry, rest[1], rest[2]) : undefined;
      if (!doc) throw notFoundPath();
      return this.sendJson(res, 200, doc);
    }
    const api = parseApiPath(path);
    const accept = req.headers.accept;
    switch (api.type) {
      case 'core-root':
        if (wantsAggregatedDiscovery(accept)) return this.sendJson(res, 200, aggregatedDiscovery(this.registry, true), {}, AGGREGATED_CONTENT_TYPE);
        return this.sendJson(res, 200, legacyCoreVersions(`${this.host}:${this.port}`));
      case 'groups-root':
        if (wantsAggregatedDiscovery(accept)) return this.sendJson(res, 200, aggregatedDiscovery(this.registry, false), {}, AGGREGATED_CONTENT_TYPE);
        return this.sendJson(res, 200, legacyGroupList(this.registry));
      case 'group': {
        const g = this.registry.groups().find((x) => x.name === api.group);
        if (!g) throw notFoundPath();
        return this.sendJson(res, 200, { kind: 'APIGroup', apiVersion: 'v1', name: g.name, versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })), preferredVersion: { groupVersion: `${g.name}/${g.versions[0]}`, version: g.versions[0] } });
      }
      case 'group-version': {
        const list = resourceList(this.registry, api.group, api.version);
        if (!list) throw notFoundPath();
        return this.sendJson(res, 200, list);
      }
      case 'resource':
        return this.handleResource(ctx, api.path, api.legacyWatch);
      default:
        throw notFoundPath();
    }
  }

  /** undefined = no credentials, null = unknown token. */
  private authenticate(req: IncomingMessage): AccessRule | undefined | null {
    const h = req.headers.authorization;
    if (!h) return this.anonymous;
    const m = /^Bearer\s+(.+)$/i.exec(h);
    if (!m) return null;
    return this.rules.get(m[1].trim()) ?? null;
  }

  // ---------------------------------------------------------------- fault control endpoint

  private async handleControl(req: IncomingMessage, res: ServerResponse, path: string, rule: AccessRule | undefined): Promise<void> {
    const remote = req.socket.remoteAddress ?? '';
    if (!['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(remote)) throw new ApiError(403, 'Forbidden', 'the simulator control endpoint is only served on loopback');
    if (!rule?.admin) throw new ApiError(403, 'Forbidden', 'the simulator control endpoint needs the admin token');
    if (path === '/__sim/faults') {
      if (req.method === 'GET') return this.sendJson(res, 200, this.faults.get());
      if (req.method === 'DELETE') {
        this.faults.reset();
        return this.sendJson(res, 200, this.faults.get());
      }
      if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
        const body = await this.readJsonBody(req);
        if (!isPlainObject(body)) throw badRequest('fault settings must be a JSON object');
        const { dropWatches, compact, ...settings } = body as Record<string, unknown>;
        try {
          if (req.method === 'PUT') this.faults.reset();
          this.faults.set(settings as Parameters<FaultController['set']>[0]);
        } catch (e) {
          throw badRequest(e instanceof Error ? e.message : String(e));
        }
        if (dropWatches === true) this.faults.dropWatches();
        if (compact === true) this.store.compact();
        return this.sendJson(res, 200, this.faults.get());
      }
      throw methodNotAllowed('GET, POST, PUT, DELETE');
    }
    if (path === '/__sim/restart' && req.method === 'POST') {
      // Answer first, then drop every connection and listen again on the same port.
      this.sendJson(res, 202, { restarting: true });
      res.on('finish', () => {
        setTimeout(() => void this.restart(), 10);
      });
      return;
    }
    if (path === '/__sim/state' && req.method === 'GET') {
      return this.sendJson(res, 200, { resourceVersion: this.store.resourceVersion(), oldestResourceVersion: this.store.oldestResourceVersion(), openWatches: this.openWatchCount() });
    }
    throw notFoundPath();
  }

  // ---------------------------------------------------------------- resources

  private async handleResource(ctx: Ctx, p: ResourcePath, legacyWatch: boolean): Promise<void> {
    const desc = this.registry.resolve(p.group, p.version, p.resource);
    if (!desc) throw notFoundPath();
    if (p.namespace !== undefined && !desc.namespaced) throw notFoundPath();
    if (p.subresource && !desc.subresources.includes(p.subresource)) throw notFoundPath();
    const method = ctx.req.method ?? 'GET';
    const q = ctx.url.searchParams;
    const watch = legacyWatch || boolParam(q.get('watch'));
    const verb =
      method === 'GET' ? (watch ? 'watch' : p.name ? 'get' : 'list') :
      method === 'POST' ? 'create' :
      method === 'PUT' ? 'update' :
      method === 'PATCH' ? 'patch' :
      method === 'DELETE' ? (p.name ? 'delete' : 'deletecollection') : '';
    if (!verb) throw methodNotAllowed('GET, POST, PUT, PATCH, DELETE');
    const denied = authorize(ctx.rule, { verb, group: desc.group, resource: p.subresource ? `${desc.plural}/${p.subresource}` : desc.plural, namespace: p.namespace, name: p.name, namespaced: desc.namespaced });
    if (denied) throw denied;
    if (p.subresource === 'log') throw new ApiError(404, 'NotFound', `the server could not find the requested resource ( pods/log ${p.name ?? ''})`);
    if (p.subresource === 'finalize') throw methodNotAllowed('PUT');
    if (method === 'GET') {
      if (watch) return this.watch(ctx, desc, p);
      if (p.name) return this.getOne(ctx, desc, p);
      return this.list(ctx, desc, p);
    }
    if (method === 'POST') {
      if (p.name) throw methodNotAllowed('GET, PUT, PATCH, DELETE');
      return this.create(ctx, desc, p);
    }
    if (method === 'DELETE') return p.name ? this.deleteOne(ctx, desc, p) : this.deleteCollection(ctx, desc, p);
    if (!p.name) throw methodNotAllowed('GET, POST, DELETE');
    if (method === 'PUT') return this.replace(ctx, desc, p);
    return this.patch(ctx, desc, p);
  }

  private apiVersionOf(desc: ResourceDescriptor, version: string): string {
    return gvKey(desc.group, version);
  }

  /** Objects go out in the version asked for; storage keeps what was written (no conversion needed). */
  private presenter(desc: ResourceDescriptor, version: string): (o: KubeObject) => KubeObject {
    const av = this.apiVersionOf(desc, version);
    return (o) => (o.apiVersion === av ? o : { ...o, apiVersion: av });
  }

  private storageApiVersion(desc: ResourceDescriptor): string {
    return gvKey(desc.group, desc.versions[0]);
  }

  private resourceName(desc: ResourceDescriptor): string {
    return qualifiedResource(desc.group, desc.plural);
  }

  private notFound(desc: ResourceDescriptor, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${this.resourceName(desc)} "${name}" not found`, { name, group: desc.group, kind: desc.plural });
  }

  private mapStoreError(desc: ResourceDescriptor, name: string | undefined, e: unknown): unknown {
    if (e instanceof StoreError) return new ApiError(e.status, e.reason, e.message, { name, group: desc.group, kind: desc.plural });
    return e;
  }

  /** label + field selectors of a request, as one predicate. */
  private selector(desc: ResourceDescriptor, version: string, q: URLSearchParams): { match: (o: KubeObject) => boolean; labels?: Record<string, string>; filtered: boolean } {
    const labelReqs = parseLabelSelector(q.get('labelSelector') ?? '');
    const fieldReqs = parseFieldSelector(q.get('fieldSelector') ?? '');
    const extractors: Record<string, (o: KubeObject) => string> = { 'metadata.name': (o) => o.metadata.name ?? '' };
    if (desc.namespaced) extractors['metadata.namespace'] = (o) => o.metadata.namespace ?? '';
    Object.assign(extractors, desc.fields ?? {});
    for (const jp of desc.selectableFields?.[version] ?? []) {
      extractors[jp.replace(/^\./, '')] = (o) => {
        const v = evaluateJsonPath(o, jp)[0];
        return v === undefined || v === null ? '' : String(v);
      };
    }
    for (const r of fieldReqs) if (!extractors[r.field]) throw badRequest(`field label not supported: ${r.field}`);
    const match = (o: KubeObject) => matchLabels(labelReqs, o.metadata.labels) && matchFields(fieldReqs, (f) => extractors[f](o));
    return { match, labels: equalityLabels(labelReqs), filtered: labelReqs.length > 0 || fieldReqs.length > 0 };
  }

  private includeObject(q: URLSearchParams): IncludeObject {
    const v = q.get('includeObject');
    return v === 'None' || v === 'Object' ? v : 'Metadata';
  }

  private async getOne(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): Promise<void> {
    const fs = ctx.url.searchParams.get('fieldSelector');
    if (fs) {
      const nameReq = parseFieldSelector(fs).find((r) => r.field === 'metadata.name' && r.op === 'eq');
      if (nameReq && nameReq.value !== p.name) throw badRequest('fieldSelector metadata.name doesn\'t match requested name');
    }
    const obj = this.store.get(this.storageApiVersion(desc), desc.kind, p.namespace, p.name!);
    if (!obj) throw this.notFound(desc, p.name!);
    if (p.subresource === 'scale') return this.sendJson(ctx.res, 200, this.scaleOf(desc, obj));
    const out = this.presenter(desc, p.version)(obj);
    if (wantsTable(ctx.req.headers.accept)) {
      return this.sendJson(ctx.res, 200, buildTable(desc, [out], { now: this.now(), version: p.version, includeObject: this.includeObject(ctx.url.searchParams), resourceVersion: this.store.resourceVersion() }));
    }
    this.sendJson(ctx.res, 200, encodeObject(out));
  }

  private async list(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): Promise<void> {
    const q = ctx.url.searchParams;
    const rv = q.get('resourceVersion');
    const rvMatch = q.get('resourceVersionMatch');
    const cont = q.get('continue');
    if (rvMatch && !rv) throw invalid('ListOptions', 'meta.k8s.io', '', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', 'FieldValueForbidden');
    if (cont && (rv || rvMatch)) throw badRequest('specifying resource version is not allowed when using continue');
    if (rv && rv !== '0' && !/^\d+$/.test(rv)) throw badRequest(`Invalid value: "${rv}": resourceVersion must be an integer`);
    if (rv && Number(rv) > Number(this.store.resourceVersion())) {
      throw new ApiError(504, 'Timeout', `Too large resource version: ${rv}, current: ${this.store.resourceVersion()}`, { causes: [{ type: 'ResourceVersionTooLarge', message: `Too large resource version` }], retryAfterSeconds: 1 });
    }
    const sel = this.selector(desc, p.version, q);
    const token = cont ? decodeContinue(cont) : undefined;
    const limitRaw = q.get('limit');
    const limit = limitRaw && /^\d+$/.test(limitRaw) ? Number(limitRaw) : 0;
    // The snapshot version: a continued list reports the first page's version (later pages read live data,
    // the real server's documented fallback for an inconsistent continuation).
    const listRv = token ? String(token.rv) : this.store.resourceVersion();
    const page = this.store.listPage(this.storageApiVersion(desc), desc.kind, p.namespace, {
      labels: sel.labels,
      match: sel.filtered ? sel.match : undefined,
      start: token?.start,
      limit,
    });
    const items = page.items;
    const nextToken = page.nextKey ? encodeContinue({ rv: Number(listRv), start: page.nextKey }) : undefined;
    const remaining = page.nextKey && !sel.filtered ? page.remaining : undefined;
    const present = this.presenter(desc, p.version);
    const res = ctx.res;
    const meta: Record<string, unknown> = { resourceVersion: listRv };
    if (nextToken) meta.continue = nextToken;
    if (remaining !== undefined) meta.remainingItemCount = remaining;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    if (wantsTable(ctx.req.headers.accept)) {
      const table = buildTable(desc, items.map(present), { now: this.now(), version: p.version, includeObject: this.includeObject(q), resourceVersion: listRv, continueToken: nextToken, remainingItemCount: remaining });
      const head = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(table.metadata)},"columnDefinitions":${JSON.stringify(table.columnDefinitions)},"rows":[`;
      await writeJoined(res, head, table.rows.length, (i) => JSON.stringify(table.rows[i]), ']}');
      return;
    }
    const head = `{"kind":"${desc.listKind}","apiVersion":"${this.apiVersionOf(desc, p.version)}","metadata":${JSON.stringify(meta)},"items":[`;
    await writeJoined(res, head, items.length, (i) => encodeObject(present(items[i])), ']}');
  }

  private watch(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): void {
    const q = ctx.url.searchParams;
    if (p.name) {
      // `GET …/{name}?watch=1`: a watch restricted to that name.
      const fs = q.get('fieldSelector');
      q.set('fieldSelector', fs ? `${fs},metadata.name=${p.name}` : `metadata.name=${p.name}`);
    }
    const sel = this.selector(desc, p.version, q);
    const rv = q.get('resourceVersion') ?? '';
    const sendInitial = q.has('sendInitialEvents') ? boolParam(q.get('sendInitialEvents')) : undefined;
    if (sendInitial !== undefined && q.get('resourceVersionMatch') !== 'NotOlderThan') {
      throw invalid('ListOptions', 'meta.k8s.io', '', 'sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan', 'FieldValueForbidden');
    }
    if (rv !== '' && !/^\d+$/.test(rv)) throw badRequest(`Invalid value: "${rv}": resourceVersion must be an integer`);
    const bookmarks = boolParam(q.get('allowWatchBookmarks'));
    const timeoutRaw = q.get('timeoutSeconds');
    // Without a timeout the real server picks 30–60 minutes; short defaults make clients back off.
    const timeoutMs = timeoutRaw && /^\d+$/.test(timeoutRaw) ? Number(timeoutRaw) * 1000 : (1800 + Math.floor(Math.random() * 1800)) * 1000;
    const present = this.presenter(desc, p.version);
    const table = wantsTable(ctx.req.headers.accept);
    const include = this.includeObject(q);
    const encode = table
      ? (o: KubeObject, first: boolean) => JSON.stringify(buildTable(desc, [present(o)], { now: this.now(), version: p.version, includeObject: include, noHeaders: !first, resourceVersion: o.metadata.resourceVersion }))
      : (o: KubeObject) => encodeObject(present(o));
    const gk = `${desc.group}/${desc.kind}`;
    const explicitRv = rv !== '' && rv !== '0' && sendInitial !== true;
    let replay: HistoryEntry[] = [];
    let gone: StoreError | undefined;
    if (explicitRv) {
      if (this.faults.watchGone()) gone = new StoreError(410, 'Expired', `too old resource version: ${rv} (${this.store.resourceVersion()})`);
      else {
        try {
          replay = this.store.historySince(Number(rv));
        } catch (e) {
          if (e instanceof StoreError && e.status === 410) gone = e;
          else throw e;
        }
      }
    }
    let set = this.watches.get(gk);
    const session = new WatchSession(ctx.res, {
      filter: { gk, namespace: p.namespace, match: sel.match },
      encode,
      bookmarks,
      kind: desc.kind,
      apiVersion: this.apiVersionOf(desc, p.version),
      currentRv: () => this.store.resourceVersion(),
      bookmarkIntervalMs: this.bookmarkIntervalMs,
      timeoutMs,
      onClose: () => {
        const s = this.watches.get(gk);
        s?.delete(session);
        if (s && s.size === 0) this.watches.delete(gk);
      },
    });
    if (gone) {
      session.error(failure(410, 'Expired', gone.message));
      return;
    }
    if (!set) this.watches.set(gk, (set = new Set()));
    set.add(session);
    if (explicitRv) {
      for (const e of replay) session.deliver(e);
      return;
    }
    // "Get state and start at most recent": synthetic ADDED events for what exists now.
    for (const o of this.store.list(this.storageApiVersion(desc), desc.kind, { namespace: p.namespace, labels: sel.labels })) {
      if (sel.match(o)) session.send('ADDED', o);
    }
    if (sendInitial && bookmarks) session.bookmark({ 'k8s.io/initial-events-end': 'true' });
  }

  // ---------------------------------------------------------------- writes

  private async readBody(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      const b = c as Buffer;
      size += b.length;
      if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
      chunks.push(b);
    }
    return Buffer.concat(chunks);
  }

  private async readJsonBody(req: IncomingMessage, allowYaml = false): Promise<unknown> {
    const type = mediaType(req.headers['content-type']);
    const raw = await this.readBody(req);
    if (type === 'application/vnd.kubernetes.protobuf' || raw.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
      // kubectl's generators (create namespace/configmap/secret) send protobuf; other kinds get 415.
      try {
        return decodeProtobufObject(raw);
      } catch (e) {
        if (e instanceof ProtobufError) throw unsupportedMediaType(['application/json', 'application/yaml']);
        throw e;
      }
    }
    if (type === 'application/cbor') throw unsupportedMediaType(['application/json', 'application/yaml']);
    const text = raw.toString('utf8');
    if (text.trim() === '') return undefined;
    try {
      if (allowYaml || type === 'application/yaml' || type === 'application/apply-patch+yaml') return parseYaml(text, { version: '1.1' }) as unknown;
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw badRequest(`the body of the request could not be decoded: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Checks and completes an object from a request body for the resource in the URL. */
  private normalizeBody(desc: ResourceDescriptor, p: ResourcePath, body: unknown): KubeObject {
    if (!isPlainObject(body)) throw badRequest('the body of the request must be an object');
    const obj = body as KubeObject;
    const av = this.apiVersionOf(desc, p.version);
    if (obj.kind === undefined) obj.kind = desc.kind;
    if (obj.apiVersion === undefined) obj.apiVersion = av;
    if (obj.kind !== desc.kind || (obj.apiVersion !== av && !desc.versions.some((v) => this.apiVersionOf(desc, v) === obj.apiVersion))) {
      throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${av})`);
    }
    if (!isPlainObject(obj.metadata)) obj.metadata = {};
    if (desc.namespaced) {
      const ns = obj.metadata.namespace;
      if (ns && p.namespace && ns !== p.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      if (p.namespace) obj.metadata.namespace = p.namespace;
      if (!obj.metadata.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    } else delete obj.metadata.namespace;
    delete obj.metadata.managedFields;
    return obj;
  }

  /** NamespaceLifecycle admission: the namespace must exist and not be terminating. */
  private admitNamespace(desc: ResourceDescriptor, obj: KubeObject): void {
    if (!desc.namespaced) return;
    const ns = this.store.get('v1', 'Namespace', undefined, obj.metadata.namespace!);
    if (!ns) throw new ApiError(404, 'NotFound', `namespaces "${obj.metadata.namespace}" not found`, { name: obj.metadata.namespace, kind: 'namespaces' });
    if (ns.metadata.deletionTimestamp) {
      throw new ApiError(403, 'Forbidden', `${this.resourceName(desc)} "${obj.metadata.name ?? obj.metadata.generateName ?? ''}" is forbidden: unable to create new content in namespace ${obj.metadata.namespace} because it is being terminated`, { name: obj.metadata.name, group: desc.group, kind: desc.plural, causes: [{ type: 'NamespaceTerminating', message: `namespace ${obj.metadata.namespace} is being terminated`, field: 'metadata.namespace' }] });
    }
  }

  /** What the real create strategies do to a new object of some kinds. */
  private prepareForCreate(desc: ResourceDescriptor, obj: KubeObject): void {
    if (!desc.builtin && desc.subresources.includes('status')) delete obj.status;
    const key = `${desc.group}/${desc.kind}`;
    if (key === '/Namespace') {
      obj.spec = { finalizers: ['kubernetes'] };
      obj.status = { phase: 'Active' };
    } else if (key === '/Pod') {
      const spec = (isPlainObject(obj.spec) ? obj.spec : (obj.spec = {})) as Record<string, unknown>;
      spec.restartPolicy ??= 'Always';
      spec.schedulerName ??= 'default-scheduler';
      spec.terminationGracePeriodSeconds ??= 30;
      spec.dnsPolicy ??= 'ClusterFirst';
      obj.status = { phase: 'Pending', qosClass: 'BestEffort' };
    } else if (key === '/Service') {
      const spec = (isPlainObject(obj.spec) ? obj.spec : (obj.spec = {})) as Record<string, unknown>;
      spec.type ??= 'ClusterIP';
      if (spec.clusterIP === undefined && spec.type !== 'ExternalName') spec.clusterIP = allocateClusterIp();
    } else if (key === '/Secret') {
      // stringData is write-only: merged into data, as the Secret strategy does.
      if (isPlainObject(obj.stringData)) {
        const data = (isPlainObject(obj.data) ? obj.data : (obj.data = {})) as Record<string, unknown>;
        for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
      }
      delete obj.stringData;
      obj.type ??= 'Opaque';
    } else if (key === 'apiextensions.k8s.io/CustomResourceDefinition') {
      const err = validateCrd(obj);
      if (err) throw err;
      delete obj.status;
    } else if (desc.builtin && desc.subresources.includes('status') && key !== '/Node' && key !== '/PersistentVolume') {
      delete obj.status;
    }
  }

  private async create(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): Promise<void> {
    const obj = this.normalizeBody(desc, p, await this.readJsonBody(ctx.req));
    this.admitNamespace(desc, obj);
    this.prepareForCreate(desc, obj);
    if (isDryRun(ctx.url.searchParams)) return this.sendJson(ctx.res, 201, this.presenter(desc, p.version)(obj));
    let created: KubeObject;
    try {
      created = this.store.create(obj);
    } catch (e) {
      throw this.mapStoreError(desc, obj.metadata.name, e);
    }
    this.sendJson(ctx.res, 201, encodeObject(this.presenter(desc, p.version)(created)));
  }

  private current(desc: ResourceDescriptor, p: ResourcePath): KubeObject {
    const obj = this.store.get(this.storageApiVersion(desc), desc.kind, p.namespace, p.name!);
    if (!obj) throw this.notFound(desc, p.name!);
    return obj;
  }

  /** Stores the result of a PUT or PATCH, with the main-endpoint / status-subresource split. */
  private commitUpdate(desc: ResourceDescriptor, p: ResourcePath, next: KubeObject, current: KubeObject): KubeObject {
    if (next.metadata.name !== p.name) throw badRequest(`the name of the object (${next.metadata.name ?? ''}) does not match the name on the URL (${p.name})`);
    next.kind = desc.kind;
    if (!desc.versions.some((v) => this.apiVersionOf(desc, v) === next.apiVersion)) next.apiVersion = current.apiVersion;
    try {
      if (p.subresource === 'status') return this.store.updateStatus(next);
      if (p.subresource === 'scale') throw methodNotAllowed('GET');
      if (desc.subresources.includes('status') || desc.group === 'apiextensions.k8s.io') {
        // With a status subresource, the main endpoint cannot change status.
        if (current.status === undefined) delete next.status;
        else next.status = current.status;
      }
      if (desc.kind === 'CustomResourceDefinition' && desc.group === 'apiextensions.k8s.io') {
        const err = validateCrd(next);
        if (err) throw err;
      }
      return this.store.update(next);
    } catch (e) {
      throw this.mapStoreError(desc, p.name, e);
    }
  }

  private async replace(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): Promise<void> {
    const body = await this.readJsonBody(ctx.req);
    if (p.subresource === 'scale') return this.writeScale(ctx, desc, p, body);
    const obj = this.normalizeBody(desc, p, body);
    const current = this.current(desc, p);
    if (!obj.metadata.resourceVersion && !desc.allowUnconditionalUpdate) {
      const kind = desc.kind;
      throw invalid(kind, desc.group, p.name!, 'metadata.resourceVersion', 'Invalid value: 0x0: must be specified for an update');
    }
    if (isDryRun(ctx.url.searchParams)) return this.sendJson(ctx.res, 200, this.presenter(desc, p.version)(obj));
    const stored = this.commitUpdate(desc, p, obj, current);
    this.sendJson(ctx.res, 200, encodeObject(this.presenter(desc, p.version)(stored)));
  }

  private async patch(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): Promise<void> {
    const q = ctx.url.searchParams;
    const type = mediaType(ctx.req.headers['content-type']);
    const allowed = desc.builtin ? BUILTIN_PATCH_TYPES : CR_PATCH_TYPES;
    if (!allowed.includes(type)) throw unsupportedMediaType(allowed);
    const isApply = type === 'application/apply-patch+yaml';
    if (q.has('force') && !isApply) throw invalid('PatchOptions', 'meta.k8s.io', '', 'force', 'Forbidden: may not be specified for non-apply patch', 'FieldValueForbidden');
    const manager = q.get('fieldManager');
    if (isApply && !manager) throw invalid('PatchOptions', 'meta.k8s.io', '', 'fieldManager', 'Required value: is required for apply patch', 'FieldValueRequired');
    const body = await this.readJsonBody(ctx.req, isApply);
    if (body === undefined) throw badRequest('the body of the request was empty');
    const existing = this.store.get(this.storageApiVersion(desc), desc.kind, p.namespace, p.name!);
    if (p.subresource === 'scale') {
      if (!existing) throw this.notFound(desc, p.name!);
      const scale = this.scaleOf(desc, existing);
      const patched = type === 'application/json-patch+json' ? applyJsonPatch(scale, body) : applyMergePatch(scale, body);
      return this.writeScale(ctx, desc, p, patched);
    }
    if (!existing) {
      if (!isApply) throw this.notFound(desc, p.name!);
      // Server-side apply creates what is missing.
      const obj = this.normalizeBody(desc, p, clone(body));
      if (obj.metadata.name !== p.name) throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${p.name})`);
      this.admitNamespace(desc, obj);
      this.prepareForCreate(desc, obj);
      obj.metadata.managedFields = [managedEntry(manager!, 'Apply', obj.apiVersion)];
      let created: KubeObject;
      try {
        created = this.store.create(obj);
      } catch (e) {
        throw this.mapStoreError(desc, p.name, e);
      }
      return this.sendJson(ctx.res, 201, encodeObject(this.presenter(desc, p.version)(created)));
    }
    const base = clone(existing);
    let next: unknown;
    switch (type) {
      case 'application/json-patch+json':
        next = applyJsonPatch(base, body);
        break;
      case 'application/merge-patch+json':
        if (!isPlainObject(body)) throw badRequest('merge patch must be a JSON object');
        next = applyMergePatch(base, body);
        break;
      case 'application/strategic-merge-patch+json':
        if (!isPlainObject(body)) throw badRequest('strategic merge patch must be a JSON object');
        next = strategicMerge(base, body);
        break;
      default: {
        if (!isPlainObject(body)) throw badRequest('apply patch must be an object');
        const applied = body as KubeObject;
        if (applied.metadata?.name && applied.metadata.name !== p.name) throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${p.name})`);
        next = applyConfiguration(base, { ...applied, metadata: { ...(applied.metadata ?? {}), managedFields: undefined } });
        const m = (next as KubeObject).metadata;
        const entries = ((existing.metadata.managedFields as Array<Record<string, unknown>> | undefined) ?? []).filter((f) => !(f.manager === manager && f.operation === 'Apply'));
        m.managedFields = [...entries, managedEntry(manager!, 'Apply', String(applied.apiVersion ?? existing.apiVersion))];
      }
    }
    if (!isPlainObject(next)) throw new ApiError(422, 'Invalid', 'the patch produced something that is not an object');
    const obj = next as KubeObject;
    if (!isPlainObject(obj.metadata)) throw new ApiError(422, 'Invalid', 'the patch removed metadata');
    if (obj.metadata.uid !== existing.metadata.uid && obj.metadata.uid !== undefined) {
      throw invalid(desc.kind, desc.group, p.name!, 'metadata.uid', `Invalid value: "${String(obj.metadata.uid)}": field is immutable`);
    }
    if (desc.namespaced) obj.metadata.namespace = p.namespace;
    // A resourceVersion in the patch is a precondition; otherwise the patch applies to what was read.
    if (!obj.metadata.resourceVersion) obj.metadata.resourceVersion = existing.metadata.resourceVersion;
    if (isDryRun(q)) return this.sendJson(ctx.res, 200, this.presenter(desc, p.version)(obj));
    const stored = this.commitUpdate(desc, p, obj, existing);
    this.sendJson(ctx.res, 200, encodeObject(this.presenter(desc, p.version)(stored)));
  }

  // ---------------------------------------------------------------- scale

  private scalePaths(desc: ResourceDescriptor): { spec: string; status: string; selector?: string } {
    if (desc.scale) return { spec: desc.scale.specReplicasPath, status: desc.scale.statusReplicasPath, selector: desc.scale.labelSelectorPath };
    return { spec: '.spec.replicas', status: '.status.replicas' };
  }

  private scaleOf(desc: ResourceDescriptor, obj: KubeObject): unknown {
    const paths = this.scalePaths(desc);
    const specReplicas = evaluateJsonPath(obj, paths.spec)[0];
    const statusReplicas = evaluateJsonPath(obj, paths.status)[0];
    let selector: string | undefined;
    if (paths.selector) {
      const s = evaluateJsonPath(obj, paths.selector)[0];
      if (typeof s === 'string') selector = s;
    } else {
      const sel = (obj.spec as Record<string, unknown> | undefined)?.selector as { matchLabels?: Record<string, string> } | undefined;
      if (sel?.matchLabels) selector = Object.entries(sel.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
    }
    const m = obj.metadata;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
      spec: { replicas: typeof specReplicas === 'number' ? specReplicas : desc.builtin ? 1 : 0 },
      status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, ...(selector ? { selector } : {}) },
    };
  }

  private writeScale(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath, body: unknown): void {
    const replicas = isPlainObject(body) && isPlainObject(body.spec) ? body.spec.replicas : undefined;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw invalid('Scale', 'autoscaling', p.name!, 'spec.replicas', `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`);
    }
    const current = this.current(desc, p);
    const rv = isPlainObject(body) && isPlainObject(body.metadata) ? (body.metadata.resourceVersion as string | undefined) : undefined;
    const next = clone(current);
    const path = this.scalePaths(desc).spec.replace(/^\./, '').split('.');
    let cur = next as Record<string, unknown>;
    for (const k of path.slice(0, -1)) cur = (isPlainObject(cur[k]) ? cur[k] : (cur[k] = {})) as Record<string, unknown>;
    cur[path[path.length - 1]] = replicas;
    next.metadata.resourceVersion = rv || current.metadata.resourceVersion;
    let stored: KubeObject;
    try {
      stored = this.store.update(next);
    } catch (e) {
      throw this.mapStoreError(desc, p.name, e);
    }
    this.sendJson(ctx.res, 200, this.scaleOf(desc, stored));
  }

  // ---------------------------------------------------------------- delete

  private async deleteOptions(ctx: Ctx): Promise<{ opts: DeleteOptions; dryRun: boolean; gracePeriod?: number }> {
    const q = ctx.url.searchParams;
    const body = await this.readJsonBody(ctx.req);
    const b = (isPlainObject(body) ? body : {}) as Record<string, unknown>;
    let policy = (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined;
    const orphan = b.orphanDependents ?? (q.has('orphanDependents') ? boolParam(q.get('orphanDependents')) : undefined);
    if (policy === undefined && orphan !== undefined) policy = orphan ? 'Orphan' : 'Background';
    if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
      throw invalid('DeleteOptions', 'meta.k8s.io', '', 'propagationPolicy', `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`, 'FieldValueNotSupported');
    }
    const graceRaw = b.gracePeriodSeconds ?? q.get('gracePeriodSeconds') ?? undefined;
    const gracePeriod = graceRaw === undefined || graceRaw === null ? undefined : Number(graceRaw);
    const pre = isPlainObject(b.preconditions) ? (b.preconditions as { uid?: string; resourceVersion?: string }) : undefined;
    const dryRun = isDryRun(q) || (Array.isArray(b.dryRun) && b.dryRun.includes('All'));
    return { opts: { propagationPolicy: policy as DeleteOptions['propagationPolicy'], preconditions: pre }, dryRun, gracePeriod };
  }

  /** Pods on a node terminate gracefully (the kubelet finishes them); everything else goes at once. */
  private graceFor(desc: ResourceDescriptor, obj: KubeObject, requested: number | undefined): number {
    if (desc.group !== '' || desc.kind !== 'Pod') return 0;
    const spec = (obj.spec ?? {}) as Record<string, unknown>;
    const phase = (obj.status as Record<string, unknown> | undefined)?.phase;
    if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
    if (requested !== undefined && Number.isFinite(requested)) return Math.max(0, requested);
    return typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
  }

  private deleteObject(desc: ResourceDescriptor, obj: KubeObject, opts: DeleteOptions, gracePeriod: number | undefined): { object: KubeObject; deleted: boolean } {
    const name = obj.metadata.name!;
    if (desc.group === 'apiextensions.k8s.io' && desc.kind === 'CustomResourceDefinition') {
      // CRD deletion removes every custom resource of it first, as the cleanup finalizer does.
      const spec = (obj.spec ?? {}) as { group?: string; names?: { kind?: string }; versions?: Array<{ name: string; storage?: boolean }> };
      const served = this.registry.byGroupKind(spec.group ?? '', spec.names?.kind ?? '');
      if (served && served.crd === name) {
        const av = gvKey(served.group, served.versions[0]);
        for (const cr of this.store.list(av, served.kind)) {
          try {
            this.store.delete(av, served.kind, cr.metadata.namespace, cr.metadata.name!);
          } catch {
            // Already gone.
          }
        }
      }
    }
    try {
      return this.store.delete(obj.apiVersion, obj.kind, obj.metadata.namespace, name, { ...opts, gracePeriodSeconds: this.graceFor(desc, obj, gracePeriod) });
    } catch (e) {
      throw this.mapStoreError(desc, name, e);
    }
  }

  private async deleteOne(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): Promise<void> {
    const { opts, dryRun, gracePeriod } = await this.deleteOptions(ctx);
    const current = this.current(desc, p);
    const present = this.presenter(desc, p.version);
    if (dryRun) return this.sendJson(ctx.res, 200, present(current));
    const r = this.deleteObject(desc, current, opts, gracePeriod);
    if (r.deleted) {
      return this.sendJson(ctx.res, 200, success({ name: p.name, group: desc.group, kind: desc.plural, uid: current.metadata.uid }));
    }
    this.sendJson(ctx.res, 200, encodeObject(present(r.object)));
  }

  private async deleteCollection(ctx: Ctx, desc: ResourceDescriptor, p: ResourcePath): Promise<void> {
    const { opts, dryRun, gracePeriod } = await this.deleteOptions(ctx);
    const sel = this.selector(desc, p.version, ctx.url.searchParams);
    const present = this.presenter(desc, p.version);
    const items = this.store.list(this.storageApiVersion(desc), desc.kind, { namespace: p.namespace, labels: sel.labels }).filter(sel.match);
    const out: KubeObject[] = [];
    for (const o of items) {
      if (dryRun) out.push(o);
      else {
        try {
          out.push(this.deleteObject(desc, o, opts, gracePeriod).object);
        } catch {
          // Deleted meanwhile (e.g. by the garbage collector).
        }
      }
    }
    const meta = { resourceVersion: this.store.resourceVersion() };
    this.sendJson(ctx.res, 200, `{"kind":"${desc.listKind}","apiVersion":"${this.apiVersionOf(desc, p.version)}","metadata":${JSON.stringify(meta)},"items":[${out.map((o) => encodeObject(present(o))).join(',')}]}`);
  }
}

function drop(w: WatchSession, mode: 'close' | 'reset'): void {
  if (mode === 'reset') w.reset();
  else w.end();
}

function isDryRun(q: URLSearchParams): boolean {
  return q.getAll('dryRun').includes('All');
}

function managedEntry(manager: string, operation: 'Apply' | 'Update', apiVersion: string): Record<string, unknown> {
  return { manager, operation, apiVersion, time: rfc3339(new Date()), fieldsType: 'FieldsV1', fieldsV1: {} };
}

let nextIp = 1;
/** Cluster IPs from 10.96.0.0/12, in order (the real allocator picks at random; order keeps tests stable). */
function allocateClusterIp(): string {
  const n = nextIp++;
  return `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

