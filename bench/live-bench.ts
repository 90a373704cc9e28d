/**
 * Live-server benchmark on the simulated `scale` cluster (default 100,000 pods / 10,000 workloads /
 * 2,000 nodes), with the cluster, the server and the churn in separate processes as in real use:
 * time from start to all rows resolved (reported by the server process, bench/live-server.ts), event → SSE delta latency under churn (p50/p99), the server's
 * RSS, and `wmap get workloads -A -o json` against `kubectl get pods -A -o json` + summing GPUs per owner.
 *
 *   node --import tsx bench/live-bench.ts [--pods N] [--workloads N] [--nodes N] [--churn EVENTS_PER_S] [--seconds S] [--no-cli]
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { getJson, loadClusterConfigs, streamLines } from '../server/cluster/index.ts';
import { podSpecGpus, type KubeObject } from '../server/engine/index.ts';
import { mib, numberArg, percentile, startSimProcess } from './measure.ts';

const PODS = numberArg('pods', 100_000);
const WORKLOADS = numberArg('workloads', 10_000);
const NODES = numberArg('nodes', 2_000);
const CHURN = numberArg('churn', 1_000);
const SECONDS = numberArg('seconds', 10);
const node = process.execPath;

/** Runs a command with its output into a file (kubectl's JSON for 100k pods is larger than a JS string may be). */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, outFile: string): Promise<{ ms: number; code: number | null }> {
  const t = performance.now();
  return new Promise((resolve) => {
    const fd = openSync(outFile, 'w');
    const p = spawn(cmd, args, { env, stdio: ['ignore', fd, 'ignore'] });
    p.on('close', (code) => {
      closeSync(fd);
      resolve({ ms: performance.now() - t, code });
    });
  });
}

/** Calls `onItem` with each element of the top-level `items` array of a JSON file, without one giant string. */
function forEachListItem(file: string, onItem: (item: unknown) => void): void {
  const buf = readFileSync(file);
  let i = buf.indexOf('"items"');
  if (i < 0) return;
  i = buf.indexOf('[', i) + 1;
  let depth = 0;
  let start = -1;
  let inString = false;
  for (; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b) {
      if (depth === 0) start = i;
      depth++;
    } else if (c === 0x7d) {
      depth--;
      if (depth === 0) onItem(JSON.parse(buf.subarray(start, i + 1).toString('utf8')));
    } else if (c === 0x5d && depth === 0) break;
  }
}

// 1. The simulated cluster in its own process.
const t0 = performance.now();
const { sim, kubeconfig } = await startSimProcess(['--scenario', 'scale', '--pods', String(PODS), '--workloads', String(WORKLOADS), '--nodes', String(NODES), '--churn', '0']);
const work = mkdtempSync(join(tmpdir(), 'wmap-live-bench-'));
console.log(`sim: scale scenario (${PODS} pods, ${WORKLOADS} workloads, ${NODES} nodes) ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (separate process)`);

try {
  // 2. The server in its own process: connect, list, resolve; it reports when its rows settled.
  const server = spawn(node, ['--import', 'tsx', 'bench/live-server.ts', kubeconfig], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => server.kill('SIGTERM'));
  const serverLines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  const nextReport = async () => JSON.parse(((await serverLines.next()).value as string | undefined) ?? '{}') as Record<string, number>;
  const ready = await nextReport();
  console.log(`live: lists arrived ${(ready.listsMs / 1000).toFixed(2)} s after start; ${ready.rows} rows resolved ${(ready.rowsMs / 1000).toFixed(2)} s after the lists`);
  console.log(`live: server RSS ${mib(ready.rssBytes)} holding ${ready.objects} objects`);

  // 3. Churn from a third process; each write's send time is matched to the delta of its workload.
  const clusters = loadClusterConfigs({ kubeconfig });
  const pending = new Map<string, number>();
  const latencies: number[] = [];
  const sse = await fetch(`http://127.0.0.1:${ready.port}/stream`);
  const reader = sse.body!.getReader();
  const decoder = new TextDecoder();
  const rowOfPod = new Map<string, string>();
  let snapshotSeen = false;
  let buf = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (frame.includes('event: snapshot')) { snapshotSeen = true; continue; }
        if (!frame.includes('event: delta')) continue;
        const now = Date.now();
        for (const d of JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Array<{ id: string }>) {
          const t = pending.get(d.id);
          if (t !== undefined) { latencies.push(now - t); pending.delete(d.id); }
        }
      }
    }
  })();
  while (!snapshotSeen) await new Promise((r) => setTimeout(r, 10));
  // Pods to flip, with their workload's row id (as the server forms it) from their owner chain.
  const podList = await getJson<{ items: KubeObject[] }>(clusters[0].kc, '/api/v1/pods?limit=6000&fieldSelector=status.phase%3DRunning');
  const asked = podList.items.map((p) => [`${p.metadata!.namespace}/${p.metadata!.name}`, p.metadata!.uid!]);
  const rowsOf = (await (await fetch(`http://127.0.0.1:${ready.port}/rows-of-pods`, { method: 'POST', body: JSON.stringify(asked) })).json()) as Record<string, string>;
  for (const [pod, row] of Object.entries(rowsOf)) rowOfPod.set(pod, row);
  const chosen = [...rowOfPod.keys()].slice(0, 5000);
  // A raw watch beside the server's, to tell the API server's share of the latency from ours.
  const sentAt = new Map<string, number>();
  const watchLatencies: number[] = [];
  const rawAbort = new AbortController();
  const rv = (await getJson<{ metadata: { resourceVersion: string } }>(clusters[0].kc, '/api/v1/pods?limit=1')).metadata.resourceVersion;
  void streamLines(clusters[0].kc, `/api/v1/pods?watch=1&resourceVersion=${rv}`, (ev) => {
    const o = (ev as { object?: KubeObject }).object;
    const key = `${o?.metadata?.namespace}/${o?.metadata?.name}`;
    const t = sentAt.get(key);
    if (t !== undefined) {
      watchLatencies.push(Date.now() - t);
      sentAt.delete(key);
    }
  }, rawAbort.signal).catch(() => {});
  const writer = spawn(node, ['--import', 'tsx', 'bench/churn-writer.ts', kubeconfig, String(CHURN), String(SECONDS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  writer.stdin.end(chosen.join('\n') + '\n');
  let sent = 0;
  for await (const line of createInterface({ input: writer.stdout })) {
    const [pod, at] = line.split(' ');
    const row = rowOfPod.get(pod);
    if (row && !pending.has(row)) pending.set(row, Number(at));
    if (!sentAt.has(pod)) sentAt.set(pod, Number(at));
    sent++;
  }
  await new Promise((r) => setTimeout(r, 1000));
  rawAbort.abort();
  server.stdin.write('report\n');
  const report = await nextReport();
  console.log(`churn: ${sent} pod writes in ${SECONDS} s (${(sent / SECONDS).toFixed(0)}/s) over ${new Set(chosen.map((p) => rowOfPod.get(p))).size} workloads; write → SSE delta at a client p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms (${latencies.length} deltas timed)`);
  console.log(`churn: write → watch event at a plain client (the API server's share) p50 ${percentile(watchLatencies, 50).toFixed(0)} ms, p99 ${percentile(watchLatencies, 99).toFixed(0)} ms`);
  console.log(`churn: watch event → row delta inside the server (its own share) p50 ${report.p50.toFixed(1)} ms, p99 ${report.p99.toFixed(1)} ms, max ${report.max.toFixed(0)} ms (${report.timed} timed)`);
  console.log(`live: server RSS after churn ${mib(report.rssBytes)} (heap ${mib(report.heapBytes)})`);
  console.log(`metrics: one /metrics render ${report.scrapeMs.toFixed(0)} ms, ${(report.scrapeBytes / 1024).toFixed(0)} KiB`);
  await reader.cancel().catch(() => {});
  server.stdin.end();
  server.kill('SIGTERM');

  // 4. The CLI against the kubectl route on the same server.
  if (process.argv.includes('--no-cli')) process.exit(0);
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const wmapOut = join(work, 'wmap.json');
  const wmap = await run(node, ['bin/wmap.cjs', 'get', 'workloads', '-A', '-o', 'json', '--timeout', '600'], env, wmapOut);
  const wmapRows = wmap.code === 0 ? (JSON.parse(readFileSync(wmapOut, 'utf8')) as unknown[]).length : -1;
  console.log(`wmap get workloads -A -o json: ${(wmap.ms / 1000).toFixed(2)} s, ${wmapRows} workloads with roles, status and GPU totals`);
  if (existsSync('/usr/bin/kubectl')) {
    const kOut = join(work, 'pods.json');
    const k = await run('/usr/bin/kubectl', ['get', 'pods', '-A', '-o', 'json'], env, kOut);
    const t = performance.now();
    const byOwner = new Map<string, number>();
    let n = 0;
    forEachListItem(kOut, (item) => {
      const p = item as KubeObject;
      n++;
      const owner = p.metadata?.ownerReferences?.[0]?.uid ?? p.metadata?.uid ?? '';
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + Object.values(podSpecGpus(p.spec)).reduce((a, b) => a + b, 0));
    });
    console.log(`kubectl get pods -A -o json + GPUs per owner: ${((k.ms + performance.now() - t) / 1000).toFixed(2)} s (kubectl ${(k.ms / 1000).toFixed(2)} s for ${(statSync(kOut).size / 2 ** 20).toFixed(0)} MiB; ${n} pods into ${byOwner.size} direct owners — Jobs, ReplicaSets, StatefulSets, not workloads)`);
  }
} finally {
  sim.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
