/**
 * Live-server benchmark on the simulated `scale` cluster (default 100,000 pods / 10,000 workloads /
 * 2,000 nodes), with the cluster, the server and the churn in separate processes as in real use:
 * time from start to all rows resolved, event → SSE delta latency under churn (p50/p99), the server's
 * RSS, and `wmap get workloads -A -o json` against `kubectl get pods -A -o json` + summing GPUs per owner.
 *
 *   node --import tsx bench/live-bench.ts [--pods N] [--workloads N] [--nodes N] [--churn EVENTS_PER_S] [--seconds S]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { getJson, loadClusterConfigs } from '../server/cluster/index.ts';
import { loadCatalog } from '../server/catalog/index.ts';
import { LiveWorkloads } from '../server/workloads/index.ts';
import { streamResponse } from '../server/stream/index.ts';
import { podSpecGpus, type KubeObject } from '../server/engine/index.ts';

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
const node = process.execPath;

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

// 1. The simulated cluster in its own process.
const t0 = performance.now();
const sim = spawn(node, ['bin/wmap.mjs', 'sim', '--scenario', 'scale', '--pods', String(PODS), '--workloads', String(WORKLOADS), '--nodes', String(NODES), '--churn', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const kubeconfig = await new Promise<string>((resolve, reject) => {
  let out = '';
  sim.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /^kubeconfig: (.+)$/m.exec(out);
    if (m) resolve(m[1].trim());
  });
  sim.on('exit', (code) => reject(new Error(`wmap sim exited with ${code}`)));
});
console.log(`sim: scale scenario (${PODS} pods, ${WORKLOADS} workloads, ${NODES} nodes) ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (separate process)`);

try {
  // 2. The server side in this process: connect, list, resolve.
  const rssBefore = process.memoryUsage().rss;
  const tStart = performance.now();
  const clusters = loadClusterConfigs({ kubeconfig });
  const live = new LiveWorkloads({ clusters, catalog: LiveWorkloads.catalogEntries(loadCatalog()), initialSyncTimeoutMs: 600_000 });
  live.start();
  while (!live.clusters()[0]?.synced) await new Promise((r) => setTimeout(r, 5));
  const tLists = performance.now();
  let rows = -1;
  let tRows = tLists;
  let stableSince = performance.now();
  for (;;) {
    const n = live.index.allRows().length;
    if (n !== rows) { rows = n; tRows = performance.now(); stableSince = tRows; }
    if (performance.now() - stableSince > 1500) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  global.gc?.();
  console.log(`live: lists arrived ${((tLists - tStart) / 1000).toFixed(2)} s after start; ${rows} rows resolved ${((tRows - tLists) / 1000).toFixed(2)} s after the lists`);
  console.log(`live: server RSS ${mib(process.memoryUsage().rss)} (+${mib(process.memoryUsage().rss - rssBefore)} for the index of ${live.index.objectCount()} objects)`);

  // 3. Churn from a third process; each write's send time is matched to the delta of its workload.
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
        const now = Date.now();
        for (const d of JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Array<{ id: string }>) {
          const t = pending.get(d.id);
          if (t !== undefined) { latencies.push(now - t); pending.delete(d.id); }
        }
      }
    }
  })();
  const podList = await getJson<{ items: KubeObject[] }>(clusters[0].kc, '/api/v1/pods?limit=20000&fieldSelector=status.phase%3DRunning');
  const rowOfPod = new Map<string, string>();
  for (const p of podList.items) {
    const row = live.index.rowIdOf(clusters[0].name, p.metadata!.uid!);
    if (row) rowOfPod.set(`${p.metadata!.namespace}/${p.metadata!.name}`, row);
  }
  const chosen = [...rowOfPod.keys()].slice(0, 5000);
  const writer = spawn(node, ['--import', 'tsx', 'bench/churn-writer.ts', kubeconfig, String(CHURN), String(SECONDS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  writer.stdin.end(chosen.join('\n') + '\n');
  let sent = 0;
  for await (const line of createInterface({ input: writer.stdout })) {
    const [pod, at] = line.split(' ');
    const row = rowOfPod.get(pod);
    if (row && !pending.has(row)) pending.set(row, Number(at));
    sent++;
  }
  await new Promise((r) => setTimeout(r, 1000));
  console.log(`churn: ${sent} pod writes in ${SECONDS} s (${(sent / SECONDS).toFixed(0)}/s) over ${new Set(chosen.map((p) => rowOfPod.get(p))).size} workloads; event → SSE delta p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms (${latencies.length} deltas timed)`);
  console.log(`live: server RSS after churn ${mib(process.memoryUsage().rss)}`);
  abort.abort();
  live.stop();

  // 4. The CLI against the kubectl route on the same server.
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const wmap = await run(node, ['bin/wmap.mjs', 'get', 'workloads', '-A', '-o', 'json', '--timeout', '600'], env);
  const wmapRows = wmap.code === 0 ? (JSON.parse(wmap.stdout) as unknown[]).length : -1;
  console.log(`wmap get workloads -A -o json: ${(wmap.ms / 1000).toFixed(2)} s, ${wmapRows} workloads with roles, status and GPU totals`);
  if (existsSync('/usr/bin/kubectl')) {
    const k = await run('/usr/bin/kubectl', ['get', 'pods', '-A', '-o', 'json'], env);
    const t = performance.now();
    const list = JSON.parse(k.stdout) as { items: KubeObject[] };
    const byOwner = new Map<string, number>();
    for (const p of list.items) {
      const owner = p.metadata?.ownerReferences?.[0]?.uid ?? p.metadata?.uid ?? '';
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + Object.values(podSpecGpus(p.spec)).reduce((a, b) => a + b, 0));
    }
    console.log(`kubectl get pods -A -o json + GPUs per owner: ${((k.ms + performance.now() - t) / 1000).toFixed(2)} s (${list.items.length} pods into ${byOwner.size} direct owners — Jobs, ReplicaSets, StatefulSets; not workloads)`);
  }
} finally {
  sim.kill('SIGTERM');
}
process.exit(0);
