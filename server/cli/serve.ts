/**
 * `wmap serve` (what `npm start` runs): the dashboard and API on 127.0.0.1, fed by every context of
 * the kubeconfig — or by the embedded simulated cluster's demo scenario when there is no kubeconfig
 * (or with `--demo`). Binding beyond loopback requires an access token.
 */
import http from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chooseUsageSettings } from '../workloads/usage-settings.ts';
import type { UsageSettings } from '../workloads/live.ts';
import { fileURLToPath } from 'node:url';
import { hasKubeconfig, kubeconfigFiles, loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { LiveWorkloads } from '../workloads/index.ts';
import { setRuntime, type Runtime } from '../workloads/runtime.ts';
import { logger } from '../log/index.ts';
import type { PrometheusHandle, SimHandle } from '../sim/index.ts';
import { simTestHooks } from './test-hooks.ts';
import { buildScriptHashes, hostPolicy, isLoopbackBind, parseHostList, requestGate, setAccessSettings, setValidator, startJobRunner, startValidator, type OidcConfig, type ProxyAuthOptions } from '../auth/index.ts';
import { accessOf } from './serve-access.ts';
import { probes as makeProbes } from './serve-probes.ts';
import { startRequestLog } from './request-log.ts';
import { createMetricsRegistry } from '../metrics/prometheus.ts';
import { setInstruments } from '../metrics/index.ts';
import { servedState } from '../workloads/index.ts';

export interface ServeOptions {
  port: number;
  host: string;
  demo: boolean;
  kubeconfig?: string;
  contexts?: string[];
  token?: string;
  /** Host names an exposed server answers to besides its bind address (also WMAP_ALLOWED_HOSTS). */
  allowedHosts?: string[];
  /** Which extended resources count as GPUs (default: the engine's). */
  gpuResources?: string[];
  /** GPU utilization settings; null switches it off (default: usage-settings.ts's defaults). */
  usage?: UsageSettings | null;
  /** Shared mode on loopback too (it is always on when bound beyond loopback or running in a cluster). */
  shared?: boolean;
  /** Kubernetes token sign-in in shared mode (default on): tokens are reviewed by `authCluster`. */
  tokenSignIn?: boolean;
  /** The cluster (context) whose TokenReview validates sign-in tokens (default: the first). */
  authCluster?: string;
  oidc?: OidcConfig;
  proxy?: ProxyAuthOptions;
  /** No writes at all. */
  readOnly?: boolean;
  /** Writes in shared mode (off by default there; on by default in local mode). */
  allowWrites?: boolean;
  /** The dashboard's external URL (OIDC redirects; https makes cookies Secure). */
  publicUrl?: string;
}

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

export interface Served {
  url: string;
  runtime: Runtime;
  close(): Promise<void>;
}

/**
 * With the demo cluster, a real Prometheus scraping its exporters when the `prometheus` binary is
 * there (history and the idle window from the start); the dashboard finds it among the cluster's
 * services as it would in a real cluster. Without the binary (or `WMAP_DEMO_PROMETHEUS=off`) the
 * exporters are read directly.
 */
async function demoPrometheus(sim: SimHandle, opts: ServeOptions, log: ReturnType<typeof logger>): Promise<PrometheusHandle | null> {
  if (usageOf(opts) === undefined || process.env.WMAP_DEMO_PROMETHEUS === 'off') return null;
  const { startPrometheus } = await import('../sim/index.ts');
  try {
    const p = await startPrometheus({ sim, scrapeIntervalSeconds: 15 });
    log.info({ url: p.url, pid: p.pid }, 'Prometheus scraping the demo cluster\'s DCGM exporters');
    return p;
  } catch (e) {
    log.info({ reason: e instanceof Error ? e.message : String(e) }, 'no Prometheus for the demo cluster: its DCGM exporters are read directly (no history)');
    return null;
  }
}

function usageOf(opts: ServeOptions): UsageSettings | undefined {
  if (opts.usage === null) return undefined;
  return opts.usage ?? chooseUsageSettings() ?? undefined;
}

/** The path of a request target, for routing the probes (the gate validates the target itself). */
function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

/** Running in a pod: the service account's token is mounted and the API server is in the environment. */
function inCluster(): boolean {
  return !!process.env.KUBERNETES_SERVICE_HOST && existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');
}

export async function serve(opts: ServeOptions): Promise<Served> {
  const log = logger('serve');
  const exposed = !isLoopbackBind(opts.host);
  const token = opts.token ?? process.env.WMAP_TOKEN;
  const sharedMode = exposed || opts.shared === true || token !== undefined || opts.oidc !== undefined || opts.proxy !== undefined || inCluster();
  const allowedHosts = opts.allowedHosts ?? parseHostList(process.env.WMAP_ALLOWED_HOSTS);
  // Fails now (before anything starts) when the host names an exposed server answers to are unknown.
  hostPolicy({ bindHost: opts.host, port: opts.port || 1, allowedHosts });

  let sim: SimHandle | null = null;
  let prometheus: PrometheusHandle | null = null;
  let clusters;
  const useDemo = opts.demo || !hasKubeconfig(opts.kubeconfig);
  if (useDemo) {
    const { startSim } = await import('../sim/index.ts');
    const dir = join(ROOT, '.wmap');
    mkdirSync(dir, { recursive: true });
    sim = await startSim({ scenario: 'demo', kubeconfigPath: join(dir, 'sim-kubeconfig'), seed: 7 });
    log.info({ url: sim.url, kubeconfig: sim.kubeconfigPath }, 'embedded simulated cluster (demo scenario) started');
    prometheus = await demoPrometheus(sim, opts, log);
    clusters = loadClusterConfigs({ kubeconfig: sim.kubeconfigPath });
  } else {
    clusters = loadClusterConfigs({ kubeconfig: opts.kubeconfig, contexts: opts.contexts });
    if (clusters.length === 0) throw new Error('the kubeconfig has no usable context');
  }

  // Quarantined definitions are remembered across restarts in the working directory's .wmap/.
  const live = new LiveWorkloads({ clusters, catalog: LiveWorkloads.catalogEntries(loadCatalog()), stateFile: join(ROOT, '.wmap', 'state.json'), gpuResources: opts.gpuResources, usage: usageOf(opts) });
  // The metrics registry is in place before the first watch starts, so that every list is counted.
  const metrics = createMetricsRegistry(servedState(live));
  setInstruments(metrics.instruments);
  live.start();
  // A rewritten kubeconfig (a new CA, refreshed credentials, contexts added or removed) is picked up live.
  const kubeconfigPath = sim ? sim.kubeconfigPath : opts.kubeconfig;
  live.watchConfig(() => loadClusterConfigs({ kubeconfig: kubeconfigPath, contexts: sim ? undefined : opts.contexts }), kubeconfigFiles(kubeconfigPath));
  const hooks = sim && process.env.WMAP_TEST_HOOKS === '1' && !exposed ? simTestHooks(sim) : null;
  const runtime: Runtime = { live, startedAt: new Date().toISOString(), demo: sim ? { kubeconfigPath: sim.kubeconfigPath } : null, testHooks: hooks };
  setRuntime(runtime);

  const access = await accessOf(opts, live, clusters.map((c) => c.name), sharedMode, token);
  setAccessSettings(access.settings);

  const { default: next } = await import('next');
  const app = next({ dev: false, dir: ROOT, hostname: opts.host, port: opts.port, customServer: true });
  await app.prepare();
  const nextApp = app as unknown as { close?: () => Promise<void> };
  const handle = app.getRequestHandler();

  // Definition validation (client-sized YAML and expressions) runs in a worker with its own limits.
  const validator = startValidator({ module: join(ROOT, 'server', 'workloads', 'views.ts') });
  setValidator(validator);
  // The studio's drafts and trials: a client's definition text, or a whole workload, under the same limits.
  const studio = startJobRunner({ name: 'studio', module: join(ROOT, 'server', 'workloads', 'studio-jobs.ts'), exportName: 'runStudioJob', what: 'the studio job', limits: { timeMs: 10_000, maxOldGenerationSizeMb: 512 } });
  const scriptHashes = buildScriptHashes(join(ROOT, '.next'));
  // The gate needs the port the server really listens on (port 0 picks one), so it is made on listen.
  let gate: ReturnType<typeof requestGate> | null = null;
  const probes = makeProbes({ live, metrics, shared: access.shared, reviewer: access.settings.reviewer, authCluster: opts.authCluster ?? clusters[0]?.name, log: logger('probes') });
  const httpLog = logger('http');
  const server = http.createServer((req, res) => {
    const g = gate;
    if (!g) return;
    startRequestLog(req, res, httpLog);
    const pathname = pathOf(req.url);
    (async () => {
      if (await probes.beforeGate(req, res, pathname)) return;
      if (await g.answer(req, res)) return;
      if (await probes.afterGate(req, res, pathname)) return;
      await handle(req, res);
    })().catch((e: unknown) => {
      log.error({ err: e instanceof Error ? e.message : String(e), requestId: req.headers['x-request-id'] }, 'the request failed before reaching a route');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"internal","message":"internal error"}}');
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port, opts.host, () => ok());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  gate = requestGate({ bindHost: opts.host, port, shared: access.shared ?? undefined, allowedHosts, scriptHashes });
  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
  log.info({ url, clusters: clusters.map((c) => c.name), mode: access.settings.mode, writes: access.settings.writes.enabled }, `workload-map at ${url}`);
  return {
    url,
    runtime,
    async close() {
      await new Promise<void>((ok) => { server.close(() => ok()); server.closeAllConnections(); });
      live.stop();
      setInstruments(null);
      setRuntime(null);
      setAccessSettings(null);
      setValidator(null);
      await validator.close();
      await studio.close();
      await nextApp.close?.();
      await prometheus?.stop();
      await sim?.stop();
    },
  };
}
