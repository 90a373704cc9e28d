/**
 * The embedded simulated cluster: a Kubernetes-API-compatible HTTP server on loopback, its object
 * store, the framework CRDs, and (when present) the simulated controllers and scenarios.
 * Public surface of `server/sim`.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AccessRule } from './api/access.ts';
import { Authenticator } from './api/authn/authenticator.ts';
import { ServiceAccountTokens } from './api/authn/service-account-tokens.ts';
import { TokensController } from './api/authn/token-controller.ts';
import type { StaticToken } from './api/authn/token-file.ts';
import { parseTokenFile } from './api/authn/token-file.ts';
import { SYSTEM_MASTERS } from './api/authn/user.ts';
import { Authorizer } from './api/authorizer.ts';
import { builtinResources, SYSTEM_NAMESPACES } from './api/builtins.ts';
import { CrdController } from './api/crd-controller.ts';
import type { FaultOptions } from './api/faults.ts';
import { FaultController } from './api/faults.ts';
import { kubeconfigYaml } from './api/kubeconfig.ts';
import { registerServiceBackend, ServiceBackends } from './api/proxy-targets.ts';
import { ClusterRoleAggregator } from './api/rbac/aggregation.ts';
import { installBootstrapPolicy } from './api/rbac/bootstrap-policy.ts';
import { Registry } from './api/registry.ts';
import { selfSignedCert } from './api/tls.ts';
import type { RequestLogEntry } from './api/server.ts';
import { ApiServer } from './api/server.ts';
import { frameworkCrds, type KartaCrdVariant } from './crds/index.ts';
import type { GroundTruth } from './gpu-metrics/index.ts';
import { dcgmPodServer, deviceTrackerFor, groundTruthUsage, installDcgmExporter, stopDeviceTracker } from './gpu-metrics/index.ts';
import { logger } from '../log/index.ts';
import { encodeJson } from './store/deep-json.ts';
import { startEventTtl } from './store/event-ttl.ts';
import type { IdentityTokens } from './scenarios/identities.ts';
import { installIdentities } from './scenarios/identities.ts';
import { MemoryStore } from './store/memory-store.ts';
import type { KubeObject, ObjectStore } from './store/object-store.ts';

export type { AccessRule, AccessMatch } from './api/access.ts';
export type { StaticToken } from './api/authn/token-file.ts';
export { parseTokenFile } from './api/authn/token-file.ts';
export type { DemoPerson, DemoUser } from './scenarios/identities.ts';
export { DEMO_PEOPLE, PRODUCT_NAMESPACE, PRODUCT_SERVICE_ACCOUNT, READER_CLUSTER_ROLE } from './scenarios/identities.ts';
export type { FaultOptions } from './api/faults.ts';
export type { KartaCrdVariant } from './crds/index.ts';
export { FaultController, parseFaultSpec, validateFaults } from './api/faults.ts';
export type { RequestLogEntry } from './api/server.ts';
export { MemoryStore } from './store/memory-store.ts';
export type { KubeObject, ObjectStore, WatchEvent, DeleteOptions, DeleteResult } from './store/object-store.ts';
export { StoreError } from './store/object-store.ts';
export type { GroundTruth, GroundTruthGpu, LoadProfile } from './gpu-metrics/index.ts';
export { BUCKET_MS, DCGM_NAME, DCGM_NAMESPACE, DCGM_PORT, LOAD_LABEL, LOAD_PROFILES, groundTruthUsage } from './gpu-metrics/index.ts';
export { PROMETHEUS_SERVICE, startPrometheus } from './prometheus.ts';
export type { PrometheusHandle, PrometheusOptions } from './prometheus.ts';

export interface SimOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Where to write the kubeconfig (default: a fresh temp dir). */
  kubeconfigPath?: string;
  scenario?: 'empty' | 'demo' | 'scale';
  scale?: { pods?: number; workloads?: number; nodes?: number; churnPerSecond?: number };
  faults?: FaultOptions;
  /**
   * Extra bearer tokens with the simulator's own access rules (authorized by the rule, not RBAC); an
   * admin token is always generated for the kubeconfig.
   */
  tokens?: AccessRule[];
  /** Static tokens, as kube-apiserver's `--token-auth-file` lists them: authenticated users, authorized by RBAC. */
  staticTokens?: StaticToken[];
  /** A `--token-auth-file` CSV (`token,user,uid[,"group1,group2"]`), read at start. */
  tokenAuthFile?: string;
  /**
   * The shared-mode demo identities (`SimHandle.tokens`): the ServiceAccount `workload-map/workload-map`
   * with a read-only, impersonating ClusterRole, and users alice (edit in team-llm), bob (view in
   * team-vision) and carol (view everywhere). Default: on for the demo scenario, off otherwise.
   */
  identities?: boolean;
  /** `--service-account-issuer` (default `https://kubernetes.default.svc.cluster.local`), which the API audiences default to. */
  serviceAccountIssuer?: string;
  /** `--api-audiences`: what tokens must be meant for to reach the API (default: the issuer). */
  apiAudiences?: string[];
  /** Simulated time per real time for the controllers (default 1). */
  clockSpeed?: number;
  seed?: number;
  /** Persist objects here on stop/restart and load them on start. */
  stateFile?: string;
  /** Events kept for watch resumption (older resourceVersions answer 410). */
  historySize?: number;
  /** BOOKMARK period for watches that allow them (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Install the framework CRDs (default true). */
  installCrds?: boolean;
  /**
   * Which `kartas.run.ai` CRD the cluster starts with (with the framework CRDs): `current` (default)
   * is deploy/crds/kartas.run.ai.yaml, the one the product ships; `older` is Karta v0.1.x's (no
   * podGroup, no matchLabels); `none` leaves it out, as in a cluster where Karta was never installed.
   */
  kartaCrd?: KartaCrdVariant;
  /**
   * Run the simulated controllers (scheduler, kubelet, workload controllers, operators) when they are
   * available (default true). Tests that want objects to stay exactly as written turn them off.
   */
  controllers?: boolean;
  /**
   * HTTPS with a generated self-signed certificate (default true). Over plain http kubectl sends no
   * bearer token at all (kubernetes/kubectl#744), so an http simulator treats token-less requests as admin.
   */
  tls?: boolean;
  /** Every finished HTTP request (tests). */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * Run NVIDIA's DCGM exporter on the GPU nodes (DaemonSet and Service `nvidia-dcgm-exporter` in
   * `gpu-operator`, metrics through the pod and service proxies). Default: on for the demo and scale
   * scenarios, off for an empty cluster.
   */
  dcgmExporter?: boolean;
  /**
   * External HTTP backends of Service ports, `"namespace/name:port" → "http://127.0.0.1:PORT"`: service
   * proxy requests to that port are forwarded there (e.g. a real Prometheus as `monitoring/prometheus-k8s:9090`).
   * The Service is created when missing. See also `SimHandle.setServiceBackend`.
   */
  serviceBackends?: Record<string, string>;
  /** How long an Event lives after its last write (the API server's `--event-ttl`, default 1 h of simulated time). */
  eventTtlMs?: number;
}

/**
 * Bearer tokens of the simulator's identities. The demo ones exist with `SimOptions.identities` (the
 * demo scenario's default); reading one otherwise throws.
 */
export interface SimTokens {
  /** The kubeconfig's: user `kubernetes-admin` in `system:masters`. */
  readonly admin: string;
  /** Static token of alice (groups ml-engineers): ClusterRole edit in team-llm. */
  readonly alice: string;
  /** Static token of bob (groups vision): ClusterRole view in team-vision only. */
  readonly bob: string;
  /** Static token of carol (groups sre): ClusterRole view cluster-wide, no writes. */
  readonly carol: string;
  /** Bound token (a year) of the ServiceAccount workload-map/workload-map (ClusterRole workload-map-reader). */
  readonly workloadMap: string;
}

export interface SimHandle {
  url: string;
  kubeconfigPath: string;
  /** PEM of the server certificate (its own CA) when serving HTTPS. */
  caPem?: string;
  /** The admin token written into the kubeconfig (= tokens.admin). */
  adminToken: string;
  tokens: SimTokens;
  /**
   * Writes a kubeconfig for this simulator that authenticates with `token` (at `path`, default a fresh
   * file removed on stop; the context's namespace `namespace`, default `default`) and returns its path.
   */
  kubeconfigFor(token: string, options?: { path?: string; namespace?: string }): string;
  /**
   * A bound token of a ServiceAccount, as TokenRequest issues it (audiences default to the API
   * server's, expiry to an hour). Throws when the ServiceAccount does not exist.
   */
  serviceAccountToken(namespace: string, name: string, options?: { audiences?: string[]; expirationSeconds?: number }): string;
  /**
   * With the demo identities: a kubeconfig per identity next to the admin one (`<kubeconfigPath>.alice`,
   * `.bob`, `.carol`, `.workload-map`), removed on stop. Empty without them.
   */
  identityKubeconfigs: Readonly<Partial<Record<Exclude<keyof SimTokens, 'admin'>, string>>>;
  store: ObjectStore & MemoryStore;
  faults: FaultController;
  /** Stops the controllers and the server (watches end cleanly) and saves state when asked to. */
  stop(): Promise<void>;
  /** Stops and restarts the HTTP server on the same port; objects, history and resourceVersions are kept. */
  restart(): Promise<void>;
  /** Watch streams open right now (tests wait on it). */
  openWatches(): number;
  /** The seed of every simulated choice (the load model's too). */
  seed: number;
  /** Simulated now (ms). */
  now(): number;
  /**
   * Registers (or with `undefined` removes) the external backend of a Service port, `namespace/name:port`.
   * A missing Service is created (a Prometheus key gets kube-prometheus's labels and a port named `web`)
   * and is deleted again with its backend.
   */
  setServiceBackend(key: string, url: string | undefined): void;
  /** What the DCGM exporters report for the bucket of `at` (default now): the same as `GET /__sim/usage`. */
  groundTruth(at?: number | Date): GroundTruth;
}

interface ControllersModule {
  startControllers(store: ObjectStore, options: Record<string, unknown>): { stop(): void | Promise<void> };
}

interface SimClockLike {
  date(): Date;
  now(): number;
  setInterval(fn: () => void, ms: number): () => void;
}

interface ClockModule {
  SimClock: { realtime(speed?: number): SimClockLike };
}

interface ScenariosModule {
  applyScenario(store: ObjectStore, name: string, options: Record<string, unknown>): unknown;
}

/** Imports a sibling module of the controllers engineer only when it exists (it is developed in parallel). */
async function optionalImport<T>(relative: string): Promise<T | undefined> {
  const url = new URL(relative, import.meta.url);
  if (!existsSync(fileURLToPath(url))) return undefined;
  return (await import(url.href)) as T;
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost';
}

function seedNamespaces(store: MemoryStore): void {
  for (const name of SYSTEM_NAMESPACES) {
    if (store.get('v1', 'Namespace', undefined, name)) continue;
    store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  }
  if (!store.get('v1', 'ServiceAccount', 'default', 'default')) {
    store.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  }
}

function installCrds(store: MemoryStore, crds: KubeObject[]): void {
  for (const crd of crds) {
    if (!store.get(crd.apiVersion, crd.kind, undefined, crd.metadata.name!)) store.create(crd);
  }
}

function loadState(store: MemoryStore, file: string): void {
  if (!existsSync(file)) return;
  const state = JSON.parse(readFileSync(file, 'utf8')) as { resourceVersion: string; objects: KubeObject[] };
  store.restore(state);
}

function saveState(store: MemoryStore, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, encodeJson(store.snapshot()));
  renameSync(tmp, file);
}

function simTokens(admin: string, identities: IdentityTokens | undefined): SimTokens {
  const demo = (name: string, token: string | undefined) => () => {
    if (token === undefined) throw new Error(`the demo identities are not installed, so there is no ${name} token (start the simulator with identities: true)`);
    return token;
  };
  const person = (user: string) => identities?.people.find((p) => p.user === user)?.token;
  const t = { admin } as SimTokens;
  for (const user of ['alice', 'bob', 'carol'] as const) Object.defineProperty(t, user, { get: demo(user, person(user)), enumerable: true });
  Object.defineProperty(t, 'workloadMap', { get: demo('workload-map service account', identities?.serviceAccount), enumerable: true });
  return Object.freeze(t);
}

export async function startSim(options: SimOptions = {}): Promise<SimHandle> {
  const host = options.host ?? '127.0.0.1';
  const adminToken = randomBytes(24).toString('hex');
  const staticTokens: StaticToken[] = [{ token: adminToken, user: 'kubernetes-admin', groups: [SYSTEM_MASTERS] }, ...(options.staticTokens ?? [])];
  if (options.tokenAuthFile) staticTokens.push(...parseTokenFile(readFileSync(options.tokenAuthFile, 'utf8'), options.tokenAuthFile));
  if (!isLoopback(host)) {
    // Bound beyond loopback: still token-only (no anonymous access), as DESIGN's "safe by default" asks.
    logger('sim').warn({ host }, 'API server bound beyond loopback; every request needs a bearer token');
  }

  const scenario = options.scenario ?? 'empty';
  const controllersModule = options.controllers === false ? undefined : await optionalImport<ControllersModule>('./controllers/index.ts');
  const scenariosModule = scenario === 'empty' ? undefined : await optionalImport<ScenariosModule>('./scenarios/index.ts');
  if (scenario !== 'empty' && !scenariosModule) {
    throw new Error(`scenario "${scenario}" is not available yet (server/sim/scenarios/index.ts is missing)`);
  }
  // One clock for controllers, timestamps and table ages, so a faster-than-real demo stays consistent.
  const clock = controllersModule || scenariosModule ? (await optionalImport<ClockModule>('./clock.ts'))?.SimClock.realtime(options.clockSpeed ?? 1) : undefined;
  const now = clock ? () => clock.date() : () => new Date();

  const store = new MemoryStore({ historySize: options.historySize, now });
  const registry = new Registry();
  for (const d of builtinResources()) registry.add(d);
  store.setKindPolicy((group, kind) => {
    const d = registry.byGroupKind(group, kind);
    return d ? { resource: d.plural, generation: d.generation, statusSubresource: d.subresources.includes('status') } : undefined;
  });
  if (options.stateFile) loadState(store, options.stateFile);
  const crdController = new CrdController(store, registry);
  seedNamespaces(store);
  installBootstrapPolicy(store);
  const aggregator = new ClusterRoleAggregator(store);
  const serviceAccounts = new ServiceAccountTokens(store, () => now().getTime(), { issuer: options.serviceAccountIssuer, apiAudiences: options.apiAudiences });
  if (options.installCrds !== false) installCrds(store, frameworkCrds({ karta: options.kartaCrd }));

  const seed = options.seed ?? 1;
  const backends = new ServiceBackends();
  const setServiceBackend = (key: string, url: string | undefined): void => registerServiceBackend(store, backends, key, url);
  for (const [key, url] of Object.entries(options.serviceBackends ?? {})) setServiceBackend(key, url);
  const gpuMetrics = options.dcgmExporter ?? scenario !== 'empty';
  if (gpuMetrics) {
    installDcgmExporter(store);
    // Devices are assigned as pods are bound from here on (not reconstructed later), like the kubelet does.
    deviceTrackerFor(store);
  }

  const faults = new FaultController(options.faults ?? {});
  const useTls = options.tls !== false;
  const cert = useTls ? selfSignedCert([host]) : undefined;
  const tokensController = new TokensController(store, serviceAccounts, cert?.cert);
  // Token-less requests are admin only for plain http on loopback (kubectl sends no token over http).
  const authenticator = new Authenticator(options.tokens ?? [], staticTokens, serviceAccounts, !useTls && isLoopback(host) ? { user: { username: 'kubernetes-admin', groups: [SYSTEM_MASTERS, 'system:authenticated'] } } : undefined);
  const authorizer = new Authorizer(store);
  const server = new ApiServer({
    store, registry, faults, host,
    auth: { authenticator, authorizer, serviceAccounts },
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    onRequest: options.onRequest,
    now: () => now().getTime(),
    tls: cert,
    podServer: dcgmPodServer({ store, seed, now: () => now().getTime() }),
    serviceBackends: backends,
    usage: (atMs) => groundTruthUsage(store, seed, atMs ?? now().getTime()),
  });
  const port = await server.listen(options.port ?? 0);
  if (options.stateFile) {
    const file = options.stateFile;
    server.onRestart(() => saveState(store, file));
  }
  const url = `${useTls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const ownDir = options.kubeconfigPath ? undefined : mkdtempSync(join(tmpdir(), 'wmap-sim-'));
  const kubeconfigPath = options.kubeconfigPath ?? join(ownDir!, 'kubeconfig');
  mkdirSync(dirname(kubeconfigPath), { recursive: true });
  writeFileSync(kubeconfigPath, kubeconfigYaml({ server: url, token: adminToken, caPem: cert?.cert }), { mode: 0o600 });

  const stoppers: Array<() => void | Promise<void>> = [];
  const everyReal = (fn: () => void, ms: number): (() => void) => {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  };
  const eventTtl = startEventTtl(store, { ttlMs: options.eventTtlMs, now: () => now().getTime(), every: clock ? (fn, ms) => clock.setInterval(fn, ms) : everyReal });
  stoppers.push(() => eventTtl.stop());
  if (controllersModule && clock) {
    const c = controllersModule.startControllers(store, { clock, seed });
    stoppers.push(() => c.stop());
  }
  if (scenariosModule && scenario !== 'empty') {
    const result = (await scenariosModule.applyScenario(store, scenario, { clock, seed: options.seed, ...(options.scale ?? {}) })) as { stop?: () => void } | undefined;
    if (result && typeof result.stop === 'function') stoppers.push(() => result.stop!());
  }
  let identities: IdentityTokens | undefined;
  if (options.identities ?? scenario === 'demo') {
    const crdGroups = [...new Set(store.list('apiextensions.k8s.io/v1', 'CustomResourceDefinition').map((c) => String((c.spec as { group?: string } | undefined)?.group ?? '')))].filter(Boolean);
    identities = installIdentities(store, { crdGroups, issue: (sa) => serviceAccounts.issue(sa, { audiences: serviceAccounts.apiAudiences, expirationSeconds: 365 * 24 * 3600 }).token });
    authenticator.addStaticTokens(identities.people.map((p) => ({ token: p.token, user: p.user, uid: p.uid, groups: p.groups })));
  }
  const tokens = simTokens(adminToken, identities);
  let kubeconfigDir: string | undefined;
  const kubeconfigFor = (token: string, o: { path?: string; namespace?: string } = {}): string => {
    const path = o.path ?? join((kubeconfigDir ??= mkdtempSync(join(tmpdir(), 'wmap-sim-kc-'))), `kubeconfig-${randomBytes(4).toString('hex')}`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, kubeconfigYaml({ server: url, token, caPem: cert?.cert, namespace: o.namespace }), { mode: 0o600 });
    return path;
  };
  const identityKubeconfigs: Partial<Record<Exclude<keyof SimTokens, 'admin'>, string>> = {};
  if (identities) {
    for (const p of identities.people) identityKubeconfigs[p.user] = kubeconfigFor(p.token, { path: `${kubeconfigPath}.${p.user}` });
    identityKubeconfigs.workloadMap = kubeconfigFor(identities.serviceAccount, { path: `${kubeconfigPath}.workload-map`, namespace: 'workload-map' });
  }
  const serviceAccountToken = (namespace: string, name: string, o: { audiences?: string[]; expirationSeconds?: number } = {}): string => {
    const sa = store.get('v1', 'ServiceAccount', namespace, name);
    if (!sa) throw new Error(`serviceaccounts "${name}" not found in namespace ${namespace}`);
    return serviceAccounts.issue(sa, { audiences: o.audiences ?? serviceAccounts.apiAudiences, expirationSeconds: o.expirationSeconds ?? 3600 }).token;
  };

  let stopped = false;
  return {
    url,
    kubeconfigPath,
    caPem: cert?.cert,
    adminToken,
    tokens,
    kubeconfigFor,
    serviceAccountToken,
    identityKubeconfigs: Object.freeze({ ...identityKubeconfigs }),
    store,
    faults,
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const s of stoppers.reverse()) await s();
      await server.close();
      server.dispose();
      crdController.stop();
      aggregator.stop();
      tokensController.stop();
      authorizer.stop();
      await store.idle();
      stopDeviceTracker(store);
      store.close();
      if (options.stateFile) saveState(store, options.stateFile);
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
      if (kubeconfigDir) rmSync(kubeconfigDir, { recursive: true, force: true });
      for (const f of Object.values(identityKubeconfigs)) rmSync(f, { force: true });
    },
    openWatches: () => server.openWatchCount(),
    seed,
    now: () => now().getTime(),
    setServiceBackend,
    groundTruth: (at) => groundTruthUsage(store, seed, at === undefined ? now().getTime() : typeof at === 'number' ? at : at.getTime()),
    async restart() {
      if (stopped) throw new Error('the simulator was stopped');
      await server.restart();
    },
  };
}
