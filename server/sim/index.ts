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
import { builtinResources, SYSTEM_NAMESPACES } from './api/builtins.ts';
import { CrdController } from './api/crd-controller.ts';
import type { FaultOptions } from './api/faults.ts';
import { FaultController } from './api/faults.ts';
import { kubeconfigYaml } from './api/kubeconfig.ts';
import { registerServiceBackend, ServiceBackends } from './api/proxy-targets.ts';
import { Registry } from './api/registry.ts';
import { selfSignedCert } from './api/tls.ts';
import type { RequestLogEntry } from './api/server.ts';
import { ApiServer } from './api/server.ts';
import { frameworkCrds } from './crds/index.ts';
import type { GroundTruth } from './gpu-metrics/index.ts';
import { dcgmPodServer, deviceTrackerFor, groundTruthUsage, installDcgmExporter, stopDeviceTracker } from './gpu-metrics/index.ts';
import { logger } from '../log/index.ts';
import { encodeJson } from './store/deep-json.ts';
import { startEventTtl } from './store/event-ttl.ts';
import { MemoryStore } from './store/memory-store.ts';
import type { KubeObject, ObjectStore } from './store/object-store.ts';

export type { AccessRule, AccessMatch } from './api/access.ts';
export type { FaultOptions } from './api/faults.ts';
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
  /** Extra bearer tokens with their access rules; an admin token is always generated for the kubeconfig. */
  tokens?: AccessRule[];
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

export interface SimHandle {
  url: string;
  kubeconfigPath: string;
  /** PEM of the server certificate (its own CA) when serving HTTPS. */
  caPem?: string;
  /** The admin token written into the kubeconfig. */
  adminToken: string;
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

export async function startSim(options: SimOptions = {}): Promise<SimHandle> {
  const host = options.host ?? '127.0.0.1';
  const adminToken = randomBytes(24).toString('hex');
  const rules: AccessRule[] = [{ token: adminToken, user: 'admin', admin: true }, ...(options.tokens ?? [])];
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
  if (options.installCrds !== false) installCrds(store, frameworkCrds());

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
  const server = new ApiServer({
    store, registry, faults, rules, host,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    onRequest: options.onRequest,
    now: () => now().getTime(),
    tls: cert,
    // Token-less requests are admin only for plain http on loopback (kubectl sends no token over http).
    anonymous: !useTls && isLoopback(host) ? rules[0] : undefined,
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

  let stopped = false;
  return {
    url,
    kubeconfigPath,
    caPem: cert?.cert,
    adminToken,
    store,
    faults,
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const s of stoppers.reverse()) await s();
      await server.close();
      server.dispose();
      crdController.stop();
      await store.idle();
      stopDeviceTracker(store);
      store.close();
      if (options.stateFile) saveState(store, options.stateFile);
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
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
