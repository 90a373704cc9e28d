/**
 * Live-server benchmark on the simulated `scale` cluster (default 100,000 pods / 10,000 workloads /
 * 2,000 nodes): time from start to all rows resolved, event → SSE delta latency under churn, server
 * RSS, and `wmap get workloads -A -o json` against `kubectl get pods -A -o json` + summing GPUs per owner.
 *
 *   node --import tsx bench/live-bench.ts [--pods N] [--workloads N] [--nodes N] [--churn EVENTS_PER_S] [--seconds S]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startSim, type KubeObject } from '../server/sim/index.ts';
import { loadClusterConfigs } from '../server/cluster/index.ts';
import { loadCatalog } from '../server/catalog/index.ts';
import { LiveWorkloads } from '../server/workloads/index.ts';
import { streamResponse } from '../server/stream/index.ts';
import { podSpecGpus } from '../server/engine/index.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const PODS = arg('pods', 100_000);
const WORKLOADS = arg('workloads', 10_000);
const NODES = arg('nodes', 2_000);
const CHURN = arg('churn', 1_000);
const SECONDS = arg('seconds', 10);
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string; code: number | null }> {
  const t = performance.now();
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { env });
    const chunks: Buffer[] = [];
    p.stdout.on('data', (d: Buffer) => chunks.push(d));
    p.stderr.resume();
    p.on('close', (code) => resolve({ ms: performance.now() - t, stdout: Buffer.concat(chunks).toString('utf8'), code }));
  });
}

const t0 = performance.now();
const sim = await startSim({ scenario: 'scale', scale: { pods: PODS, workloads: WORKLOADS, nodes: NODES, churnPerSecond: 0 }, seed: 1 });
const podCount = sim.store.list('v1', 'Pod').length;
console.log(`sim: ${podCount} pods built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const rssBefore = process.memoryUsage().rss;
const tStart = performance.now();
const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig: sim.kubeconfigPath }), catalog: LiveWorkloads.catalogEntries(loadCatalog()), initialSyncTimeoutMs: 600_000 });
live.start();
let tLists = 0;
for (;;) {
  if (!tLists && live.clusters()[0]?.synced) tLists = performance.now();
  if (tLists) break;
  await new Promise((r) => setTimeout(r, 5));
}
let rows = 0;
let stableSince = performance.now();
let tRows = performance.now();
for (;;) {
  const n = live.index.allRows().length;
  if (n !== rows) { rows = n; stableSince = performance.now(); tRows = stableSince; }
  if (performance.now() - stableSince > 1000) break;
  await new Promise((r) => setTimeout(r, 5));
}
console.log(`live: lists arrived ${((tLists - tStart) / 1000).toFixed(2)} s after start; ${rows} rows resolved ${((tRows - tLists) / 1000).toFixed(2)} s after the lists (total ${((tRows - tStart) / 1000).toFixed(2)} s)`);
console.log(`live: RSS growth for the index ${mib(process.memoryUsage().rss - rssBefore)} (process ${mib(process.memoryUsage().rss)} including the simulated cluster)`);

// Churn: flip pod readiness at the target rate; measure the time until the SSE delta for its workload.
const abort = new AbortController();
const res = streamResponse(live, {}, null, abort.signal);
const reader = res.body!.getReader();
const pending = new Map<string, number>();
const latencies: number[] = [];
const decoder = new TextDecoder();
let buf = '';
void (async () => {
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value);
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (!frame.includes('event: delta')) continue;
      const now = performance.now();
      const data = JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Array<{ id: string }>;
      for (const d of data) {
        const t = pending.get(d.id);
        if (t !== undefined) { latencies.push(now - t); pending.delete(d.id); }
      }
    }
  }
})();
const pods = sim.store.list('v1', 'Pod').filter((p) => p.spec && (p.spec as { nodeName?: string }).nodeName);
const rowOfPod = (p: KubeObject): string | null => {
  let cur: KubeObject | undefined = p;
  for (let depth = 0; cur && depth < 8; depth++) {
    const id = `wmap-sim/${cur.metadata.namespace ?? '_'}/${cur.kind}/${cur.metadata.name}`;
    if (live.index.row(id)) return id;
    const ref: { apiVersion: string; kind: string; uid: string } | undefined = cur.metadata.ownerReferences?.[0];
    if (!ref) return null;
    const ns: string | undefined = cur.metadata.namespace;
    cur = sim.store.list(ref.apiVersion, ref.kind, { namespace: ns }).find((o) => o.metadata.uid === ref.uid);
  }
  return null;
};
const candidates = pods.slice(0, 5000).map((p) => ({ p, row: rowOfPod(p) })).filter((x): x is { p: KubeObject; row: string } => !!x.row);
let sent = 0;
const tChurn = performance.now();
const interval = 1000 / CHURN;
while (performance.now() - tChurn < SECONDS * 1000) {
  const due = Math.floor((performance.now() - tChurn) / interval);
  while (sent < due) {
    const { p, row } = candidates[sent % candidates.length];
    const cur = sim.store.get('v1', 'Pod', p.metadata.namespace, p.metadata.name ?? '');
    if (cur) {
      const st = (cur.status ?? {}) as { conditions?: Array<{ type: string; status: string }> };
      const ready = st.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      const conditions = [...(st.conditions ?? []).filter((c) => c.type !== 'Ready'), { type: 'Ready', status: ready ? 'False' : 'True' }];
      if (!pending.has(row)) pending.set(row, performance.now());
      sim.store.updateStatus({ ...cur, status: { ...st, conditions } });
    }
    sent++;
  }
  await new Promise((r) => setTimeout(r, 1));
}
await new Promise((r) => setTimeout(r, 500));
console.log(`churn: ${sent} pod events in ${SECONDS} s (${(sent / SECONDS).toFixed(0)}/s); event → SSE delta p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms (${latencies.length} measured)`);
abort.abort();
console.log(`live: RSS after churn ${mib(process.memoryUsage().rss - rssBefore)} growth (process ${mib(process.memoryUsage().rss)})`);
live.stop();

// The CLI against the kubectl route on the same server.
const env = { ...process.env, KUBECONFIG: sim.kubeconfigPath };
const wmap = await run(process.execPath, ['bin/wmap.mjs', 'get', 'workloads', '-A', '-o', 'json', '--timeout', '300'], env);
const wmapRows = wmap.code === 0 ? (JSON.parse(wmap.stdout) as unknown[]).length : -1;
console.log(`wmap get workloads -A -o json: ${(wmap.ms / 1000).toFixed(2)} s, ${wmapRows} workloads`);
if (existsSync('/usr/bin/kubectl')) {
  const k = await run('/usr/bin/kubectl', ['get', 'pods', '-A', '-o', 'json'], env);
  const t = performance.now();
  const list = JSON.parse(k.stdout) as { items: KubeObject[] };
  const byOwner = new Map<string, number>();
  for (const p of list.items) {
    const owner = p.metadata.ownerReferences?.[0]?.uid ?? p.metadata.uid!;
    const g = Object.values(podSpecGpus(p.spec)).reduce((a, b) => a + b, 0);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + g);
  }
  const sumMs = performance.now() - t;
  console.log(`kubectl get pods -A -o json + sum per owner: ${((k.ms + sumMs) / 1000).toFixed(2)} s (${list.items.length} pods, ${byOwner.size} direct owners — Jobs and ReplicaSets, not workloads)`);
}
await sim.stop();
process.exit(0);
