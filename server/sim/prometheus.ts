/**
 * A real Prometheus (the `prometheus` binary on PATH — Debian's package) scraping the simulated
 * cluster's DCGM exporters the way an in-cluster Prometheus would reach them from outside: through the
 * API server's pod proxy (`/api/v1/namespaces/gpu-operator/pods/<pod>:9400/proxy/metrics`), over the
 * simulator's HTTPS with its CA and the admin token. The exporter pods are followed from the store and
 * written to a file_sd targets file (rewritten atomically when the set changes), so Prometheus picks up
 * new GPU nodes and drops gone ones without a restart. The instance registers itself as the backend of
 * `monitoring/prometheus-k8s:9090`, so the product can find it by listing Services and query it through
 * the service proxy, as in a real cluster.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { logger } from '../log/index.ts';
import { DCGM_NAMESPACE, DCGM_PORT, isDcgmExporterPod } from './gpu-metrics/index.ts';
import type { SimHandle } from './index.ts';
import type { KubeObject } from './store/object-store.ts';

export interface PrometheusOptions {
  sim: SimHandle;
  /** Default 5. */
  scrapeIntervalSeconds?: number;
  /** Working directory (config, targets, TSDB); default a fresh temp dir, removed on stop. */
  dir?: string;
  /** Listen port on 127.0.0.1; default a free one. */
  port?: number;
  /** The binary; default `prometheus` found on PATH. */
  binary?: string;
  /** Service port to register as this instance's backend (default PROMETHEUS_SERVICE, `monitoring/prometheus-k8s:9090`); false: none. */
  exposeAs?: string | false;
}

export interface PrometheusHandle {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  pid: number;
  /** Kills the process (by its pid), unregisters the Service backend and removes the temp dir. */
  stop(): Promise<void>;
  /** Exporter targets in the targets file right now. */
  targets: () => number;
  /**
   * Waits until at least `n` `DCGM_FI_DEV_GPU_UTIL` series have a current sample (an instant query's
   * result count); resolves with that count, rejects after `timeoutMs`.
   */
  waitForSamples(n: number, timeoutMs?: number): Promise<number>;
}

const log = logger('sim.prometheus');

/** Where `startPrometheus` registers itself unless told otherwise: kube-prometheus's Service. */
export const PROMETHEUS_SERVICE = 'monitoring/prometheus-k8s:9090';

/** Every started instance, killed when the process exits (a test that fails midway leaves none behind). */
const running = new Map<number, ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of running.keys()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function findOnPath(name: string): string | undefined {
  if (name.includes('/')) return name;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

interface Target {
  pod: string;
  node: string;
  ip: string;
}

function exporterTargets(sim: SimHandle): Target[] {
  const out: Target[] = [];
  for (const p of sim.store.list('v1', 'Pod', { namespace: DCGM_NAMESPACE })) {
    const st = (p.status ?? {}) as { phase?: string; podIP?: string };
    if (!isDcgmExporterPod(p) || st.phase !== 'Running' || p.metadata.deletionTimestamp) continue;
    out.push({ pod: p.metadata.name!, node: (p.spec as { nodeName?: string }).nodeName ?? '', ip: st.podIP ?? '' });
  }
  return out.sort((a, b) => (a.pod < b.pod ? -1 : 1));
}

/** The file_sd content: the API server as address, the pod proxy path as metrics path, per exporter pod. */
export function targetGroups(apiHostPort: string, targets: Target[]): unknown[] {
  return targets.map((t) => ({
    targets: [apiHostPort],
    labels: { __metrics_path__: `/api/v1/namespaces/${DCGM_NAMESPACE}/pods/${t.pod}:${DCGM_PORT}/proxy/metrics`, instance: `${t.ip}:${DCGM_PORT}`, node: t.node },
  }));
}

/** prometheus.yml: one job `dcgm`, honouring the exporter's pod labels, through the API server. */
export function prometheusConfig(o: { scrapeIntervalSeconds: number; https: boolean; caFile?: string; token: string; targetsFile: string }): string {
  const s = o.scrapeIntervalSeconds;
  const lines = [
    'global:',
    `  scrape_interval: ${s}s`,
    `  scrape_timeout: ${Math.max(1, Math.min(10, s))}s`,
    `  evaluation_interval: ${s}s`,
    'scrape_configs:',
    '  - job_name: dcgm',
    // The exporter's own pod/namespace/container labels name the GPU's user; they must win over target labels.
    '    honor_labels: true',
    `    scheme: ${o.https ? 'https' : 'http'}`,
    '    authorization:',
    '      type: Bearer',
    `      credentials: ${JSON.stringify(o.token)}`,
  ];
  if (o.https) lines.push('    tls_config:', o.caFile ? `      ca_file: ${JSON.stringify(o.caFile)}` : '      insecure_skip_verify: true');
  lines.push('    file_sd_configs:', `      - files: [${JSON.stringify(o.targetsFile)}]`, '        refresh_interval: 5s', '');
  return lines.join('\n');
}

export async function startPrometheus(o: PrometheusOptions): Promise<PrometheusHandle> {
  const binary = findOnPath(o.binary ?? 'prometheus');
  if (!binary) throw new Error('prometheus was not found on PATH: install it (Debian: apt-get install prometheus) or pass `binary`');
  const sim = o.sim;
  const interval = o.scrapeIntervalSeconds ?? 5;
  const ownDir = o.dir ? undefined : mkdtempSync(join(tmpdir(), 'wmap-prometheus-'));
  const dir = o.dir ?? ownDir!;
  const api = new URL(sim.url);
  const https = api.protocol === 'https:';
  const caFile = join(dir, 'sim-ca.pem');
  if (https && sim.caPem) writeFileSync(caFile, sim.caPem);
  const targetsFile = join(dir, 'targets.json');
  let lastTargets = '';
  let targetCount = 0;
  const writeTargets = (): void => {
    const targets = exporterTargets(sim);
    const text = JSON.stringify(targetGroups(api.host, targets), null, 1);
    if (text === lastTargets) return;
    // Atomic: Prometheus never reads a half-written file.
    const tmp = `${targetsFile}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, targetsFile);
    lastTargets = text;
    targetCount = targets.length;
  };
  writeTargets();
  let pending: NodeJS.Timeout | undefined;
  const unsubscribe = sim.store.subscribe((e) => {
    const p: KubeObject = e.object;
    if (p.kind !== 'Pod' || p.metadata.namespace !== DCGM_NAMESPACE || pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      writeTargets();
    }, 100);
    pending.unref();
  });
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig({ scrapeIntervalSeconds: interval, https, caFile: https && sim.caPem ? caFile : undefined, token: sim.adminToken, targetsFile }));

  const port = o.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(binary, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=2h',
    '--log.level=error',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer): void => {
    output = (output + c.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', (code) => {
    exited = code;
    if (child.pid) running.delete(child.pid);
    resolve();
  }));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  const pid = child.pid!;
  running.set(pid, child);
  installExitHook();

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    if (pending) clearTimeout(pending);
    if (o.exposeAs !== false) sim.setServiceBackend(o.exposeAs ?? PROMETHEUS_SERVICE, undefined);
    if (exited === undefined) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const killer = setTimeout(() => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5000);
      await exitedPromise;
      clearTimeout(killer);
    }
    running.delete(pid);
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  };

  try {
    await waitReady(url, () => exited, () => output, 30_000);
  } catch (e) {
    await stop();
    throw e;
  }
  if (o.exposeAs !== false) sim.setServiceBackend(o.exposeAs ?? PROMETHEUS_SERVICE, url);
  log.debug({ url, pid, targets: targetCount }, 'prometheus started');

  return {
    url,
    pid,
    stop,
    targets: () => targetCount,
    async waitForSamples(n, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs;
      let seen = 0;
      for (;;) {
        try {
          const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent('count(DCGM_FI_DEV_GPU_UTIL)')}`);
          const body = (await r.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
          seen = Number(body.data?.result?.[0]?.value[1] ?? 0);
          if (seen >= n) return seen;
        } catch {
          // not answering yet
        }
        if (exited !== undefined) throw new Error(`prometheus exited (${exited}): ${output.trim()}`);
        if (Date.now() > end) throw new Error(`prometheus: ${seen} DCGM_FI_DEV_GPU_UTIL series after ${timeoutMs} ms, waited for ${n} (${targetCount} targets)`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}

async function waitReady(url: string, exited: () => number | null | undefined, output: () => string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (exited() !== undefined) throw new Error(`prometheus exited (${exited()}) before it was ready: ${output().trim()}`);
    try {
      const r = await fetch(`${url}/-/ready`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`prometheus not ready after ${timeoutMs} ms: ${output().trim()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
