/**
 * Chaos soak: the live index against the simulated demo cluster (its own process) while faults come
 * and go — dropped watches, 410 on resume, 429/500 with Retry-After, added latency, an API-server
 * restart, and one kind (pods) failing outright — under marker-pod churn. Every second the rows are
 * compared with ground truth computed independently from the cluster (every pod listed straight
 * from the API server: how many, and the GPUs the live ones request; each marker pod is its own row).
 * Prints, per phase: diffs while the fault is on and after it clears, recovery time (until 3 clean
 * samples), staleness shown vs real, the longest event-loop stall, RSS, and crashes.
 *
 *   node --import tsx bench/chaos-soak.ts [--phase-seconds 15] [--marker-ms 500]
 */
import { performance } from 'node:perf_hooks';
import { apiRequest, getJson, loadClusterConfigs } from '../server/cluster/index.ts';
import { loadCatalog } from '../server/catalog/index.ts';
import { createLogger, setRootLogger } from '../server/log/index.ts';
import { LiveWorkloads } from '../server/workloads/index.ts';
import { mib, numberArg, startSimProcess } from './measure.ts';

const PHASE_S = numberArg('phase-seconds', 15);
const MARKER_MS = numberArg('marker-ms', 500);

setRootLogger(createLogger({ level: process.env.WMAP_LOG_LEVEL ?? 'warn' }));
let crashes = 0;
process.on('uncaughtException', (e) => {
  crashes++;
  console.error('uncaught:', e);
});

// 1. The simulated demo cluster in its own process.
const { sim, kubeconfig } = await startSimProcess(['--scenario', 'demo', '--port', '0'], { ...process.env, WMAP_LOG_LEVEL: 'error' });
const [config] = loadClusterConfigs({ kubeconfig });
const kc = config.kc;
/** Sets (PUT) or clears (DELETE) the simulator's faults, retrying through the faults themselves. */
async function faults(body: Record<string, unknown>, method = 'PUT'): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await apiRequest(kc, method, '/__sim/faults', { body: JSON.stringify(body) });
      return;
    } catch (e) {
      if (i >= 20) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

// 2. The live index in this process, as the server runs it.
const live = new LiveWorkloads({ clusters: [config], catalog: LiveWorkloads.catalogEntries(loadCatalog()) });
live.start();
const t0 = performance.now();
while (!live.clusters()[0]?.synced) await new Promise((r) => setTimeout(r, 50));
console.log(`live: synced in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${live.index.allRows().length} rows`);

// Event-loop stalls: a 50 ms tick that arrives late.
let maxLag = 0;
let lastTick = performance.now();
const lagTimer = setInterval(() => {
  const now = performance.now();
  maxLag = Math.max(maxLag, now - lastTick - 50);
  lastTick = now;
}, 50);

// 3. Marker pods: created and deleted all along, each must be (and stop being) its own row.
interface Pod { metadata: { name: string; namespace: string; deletionTimestamp?: string; ownerReferences?: unknown[] }; spec?: { containers?: Array<{ resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }> }; status?: { phase?: string } }
let markerSeq = 0;
const markers = new Set<string>();
const markerTimer = setInterval(() => {
  const name = `marker-${++markerSeq}`;
  const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { 'wmap-bench': 'marker' } }, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { 'nvidia.com/gpu': '1' } } }] } };
  apiRequest(kc, 'POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify(body) }).then(() => markers.add(name), () => {});
  const old = [...markers].slice(0, Math.max(0, markers.size - 10));
  for (const o of old) apiRequest(kc, 'DELETE', `/api/v1/namespaces/default/pods/${o}?gracePeriodSeconds=0`).then(() => markers.delete(o), () => {});
}, MARKER_MS);

/** GPU resources as the product counts them (a MIG slice is one device). */
const GPU = /^(nvidia\.com\/(gpu|gpu\.shared|mig-.+)|amd\.com\/gpu|gpu\.intel\.com\/.+)$/;

/** Independent of the engine: a pod's GPUs as the sum of its containers' requests (or limits). */
function podGpus(p: Pod): number {
  let n = 0;
  for (const c of p.spec?.containers ?? []) {
    const names = new Set([...Object.keys(c.resources?.requests ?? {}), ...Object.keys(c.resources?.limits ?? {})]);
    for (const r of names) if (GPU.test(r)) n += Number(c.resources?.requests?.[r] ?? c.resources?.limits?.[r] ?? 0);
  }
  return n;
}

/**
 * Rows against the pods the API server holds: how many pods and how many requested GPUs the rows
 * miss or add, plus every marker pod without its row (or row without its pod). 0 = right.
 */
async function diffs(): Promise<number | null> {
  let pods: Pod[];
  try {
    pods = (await getJson<{ items: Pod[] }>(kc, '/api/v1/pods')).items;
  } catch {
    return null; // the truth is not reachable either (during API faults)
  }
  const rows = live.index.allRows();
  const truthPods = pods.length;
  const truthGpus = pods.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp).reduce((s, p) => s + podGpus(p), 0);
  const rowPods = rows.reduce((s, r) => s + r.pods.total, 0);
  const rowGpus = rows.reduce((s, r) => s + r.gpus.requested, 0);
  let d = Math.abs(truthPods - rowPods) + Math.abs(truthGpus - rowGpus);
  const markerRows = new Set(rows.filter((r) => r.kind === 'Pod' && r.name.startsWith('marker-')).map((r) => r.name));
  const markerPods = new Set(pods.filter((p) => p.metadata.name.startsWith('marker-')).map((p) => p.metadata.name));
  for (const m of markerPods) if (!markerRows.has(m)) d++;
  for (const m of markerRows) if (!markerPods.has(m)) d++;
  return d;
}

interface Phase { name: string; fault: Record<string, unknown> | null; action?: () => Promise<unknown>; staleKind?: boolean }
const PHASES: Phase[] = [
  { name: 'baseline', fault: null },
  { name: 'watch drops every 3 s', fault: { watchDropEverySeconds: 3 } },
  { name: '410 on every resume', fault: { watchGone: true, dropWatches: true } },
  { name: '429/500 on 30% of requests, Retry-After 1', fault: { errorRate: 0.3, errorCodes: [429, 500], retryAfterSeconds: 1 } },
  { name: 'latency 300 ms ± 200', fault: { latencyMs: 300, latencyJitterMs: 200 } },
  { name: 'API server restart', fault: null, action: () => apiRequest(kc, 'POST', '/__sim/restart') },
  { name: 'pods failing (500, Retry-After 0)', fault: { errorRate: 1, errorCodes: [500], retryAfterSeconds: 0, errorPathContains: '/api/v1/pods', dropWatches: true }, staleKind: true },
];

const rss: number[] = [];
// Pods that belong to no row even when nothing is wrong (a kind no definition serves, such as an
// operator's own CR owning a Job): measured once, reported, and subtracted from later samples.
// Settle first: the rows are emitted shortly after the lists, and the demo's controllers start up.
let gap = -1;
for (let i = 0, same = 0; i < 60 && same < 3; i++) {
  await new Promise((r) => setTimeout(r, 500));
  const d = await diffs();
  same = d !== null && d === gap ? same + 1 : 0;
  if (d !== null) gap = d;
}
console.log(`baseline gap: ${gap} (pods or GPUs no row counts while the cluster is healthy; workloads without a definition)`);
console.log(`phases of ${PHASE_S} s, marker pods every ${MARKER_MS} ms`);
for (const phase of PHASES) {
  maxLag = 0;
  const start = Date.now();
  let staleShownAt: number | null = null;
  if (phase.fault) await faults(phase.fault);
  if (phase.action) await phase.action().catch(() => {});
  const during: number[] = [];
  while (Date.now() - start < PHASE_S * 1000) {
    await new Promise((r) => setTimeout(r, 1000));
    rss.push(process.memoryUsage().rss);
    if (phase.staleKind && staleShownAt === null && live.index.allRows().some((r) => r.stale !== null)) staleShownAt = Date.now();
    const d = phase.staleKind ? null : await diffs();
    if (d !== null) during.push(Math.max(0, d - gap));
  }
  const cleared = Date.now();
  await faults({}, 'DELETE');
  // Recovery: until three samples in a row agree with the truth (and nothing is marked stale).
  let clean = 0;
  let recovered: number | null = null;
  const after: number[] = [];
  while (Date.now() - cleared < 60_000) {
    await new Promise((r) => setTimeout(r, 500));
    const raw = await diffs();
    const d = raw === null ? null : Math.max(0, raw - gap);
    const stale = live.index.allRows().some((r) => r.stale !== null);
    if (d !== null) after.push(d);
    clean = d === 0 && !stale ? clean + 1 : 0;
    if (clean === 3) {
      recovered = Date.now() - cleared;
      break;
    }
  }
  const staleText = phase.staleKind ? `; staleness shown ${staleShownAt === null ? 'never' : `${((staleShownAt - start) / 1000).toFixed(1)} s`} after the fault began` : '';
  console.log(
    `${phase.name.padEnd(42)} diffs during: max ${during.length ? Math.max(...during) : '-'}; after clearing: ${after.length ? after[after.length - 1] : '-'} (recovered ${recovered === null ? 'NOT within 60 s' : `in ${(recovered / 1000).toFixed(1)} s`})${staleText}; longest stall ${maxLag.toFixed(0)} ms; RSS ${mib(process.memoryUsage().rss)}`,
  );
}
clearInterval(markerTimer);
clearInterval(lagTimer);
console.log(`RSS over the run: min ${mib(Math.min(...rss))}, max ${mib(Math.max(...rss))}; marker pods created: ${markerSeq}; crashes: ${crashes}`);
live.stop();
sim.kill('SIGTERM');
process.exit(0);
