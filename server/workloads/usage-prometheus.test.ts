/**
 * Utilization end to end with a real Prometheus (Debian's `prometheus`, which the test setup installs
 * when missing) scraping the simulated cluster's DCGM exporters through the API server's pod proxy:
 * the rows' figures against the simulator's ground truth, discovery through the service proxy, idle
 * workloads, a role imbalance, and the history. Also the exporters read directly, without Prometheus.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { BUCKET_MS, startPrometheus, startSim, type PrometheusHandle, type SimHandle } from '../sim/index.ts';
import { LiveWorkloads, type WorkloadRow } from './index.ts';
import type { UsageSettings } from './live.ts';
import { workloadDetail } from './views.ts';

let sim: SimHandle;
let prom: PrometheusHandle;
const lives: LiveWorkloads[] = [];

before(async () => {
  sim = await startSim({ scenario: 'demo', seed: 7 });
  prom = await startPrometheus({ sim, scrapeIntervalSeconds: 1 });
  // Every exporter scraped (one GPU_UTIL series per whole device), then twice more, so that the idle window holds samples.
  await new Promise((r) => setTimeout(r, 3000));
  await prom.waitForSamples(sim.groundTruth().gpus.filter((g) => !g.mig).length, 60_000);
  await new Promise((r) => setTimeout(r, 2500));
});

after(async () => {
  for (const l of lives) l.stop();
  await prom?.stop();
  await sim?.stop();
});

async function liveWith(usage: UsageSettings): Promise<LiveWorkloads> {
  const live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig: sim.kubeconfigPath }), catalog: LiveWorkloads.catalogEntries(loadCatalog()), usage });
  lives.push(live);
  live.start();
  const until = Date.now() + 30_000;
  while (!live.clusters()[0]?.synced && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  live.index.flush();
  await live.refreshUsage();
  return live;
}

const gpuRows = (live: LiveWorkloads): WorkloadRow[] => live.index.allRows().filter((r) => r.usage !== null);

/** Each pod's device utilizations in the ground truth of the bucket at `at` and the one before (a scrape may straddle them). */
function truthByPod(at: number): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const t of [at, at - BUCKET_MS]) {
    for (const g of sim.groundTruth(t).gpus) {
      if (!g.pod || !g.namespace) continue;
      const k = `${g.namespace}/${g.pod}`;
      if (!out.has(k)) out.set(k, new Set());
      out.get(k)!.add(g.utilization);
    }
  }
  return out;
}

test('Prometheus: every GPU pod measured, each GPU figure as the simulator says, idle and imbalance found', async () => {
  const live = await liveWith({ prometheus: { '*': prom.url }, idle: { thresholdPercent: 5, windowSeconds: 3 }, intervalSeconds: 1 });
  const info = live.clusters()[0].usage!;
  assert.equal(info.source, 'prometheus');
  assert.equal(info.history, true);
  assert.equal(info.error, null);
  assert.ok(info.coverage.gpuPods! > 20, `gpu pods ${info.coverage.gpuPods}`);
  assert.equal(info.coverage.withMetrics, info.coverage.gpuPods, 'every GPU pod has readings');

  const rows = gpuRows(live);
  const snap = live.index.usage(rows[0].cluster).snapshot!;
  const truth = truthByPod(snap.at!);
  let checked = 0;
  for (const [pod, readings] of snap.byPod) {
    const expected = truth.get(pod);
    if (!expected) continue; // an exporter pod's own series, or a pod gone since
    for (const r of readings) {
      assert.ok(r.utilization !== null && expected.has(r.utilization), `${pod} ${r.uuid}: ${r.utilization} not in ${[...expected].join(',')}`);
      checked++;
    }
  }
  assert.ok(checked > 30, `readings checked: ${checked}`);

  for (const r of rows) {
    assert.notEqual(r.usage!.utilization, null, `${r.name} has a utilization`);
    assert.equal(r.usage!.source, 'prometheus');
  }
  const byName = new Map(rows.map((r) => [r.name, r]));
  // The stuck training job and the notebook hold GPUs and use none.
  for (const idle of ['llama-lora', 'notebook-alice']) {
    const u = byName.get(idle)!.usage!;
    assert.equal(u.utilization, 0, idle);
    assert.equal(u.idle, u.allocated, `${idle}: all its GPUs idle`);
    assert.ok(u.idleSince !== null && Date.parse(u.idleSince) <= Date.now());
  }
  // Training is busy; no GPU of it idle.
  const nccl = byName.get('nccl-allreduce')!.usage!;
  assert.ok(nccl.utilization! > 80 && nccl.idle === 0, JSON.stringify(nccl));

  // The disaggregated inference graph: decode saturated while prefill idles.
  const disagg = byName.get('vllm-disagg')!;
  const [cluster, namespace, kind, name] = disagg.id.split('/');
  const detail = workloadDetail(live.index, cluster, namespace, kind, name)!;
  const roles = new Map(detail.usage!.roles.map((r) => [r.name, r.figures]));
  const decode = [...roles].find(([n]) => /decode/i.test(n))![1];
  const prefill = [...roles].find(([n]) => /prefill/i.test(n))![1];
  assert.ok(decode.utilization! >= 99, `decode ${decode.utilization}`);
  assert.ok(prefill.utilization! <= 2 && prefill.idle === prefill.allocated, `prefill ${JSON.stringify(prefill)}`);
  // Every GPU pod of the page lists its devices.
  for (const [pod, p] of Object.entries(detail.usage!.pods)) assert.ok(p.gpus.length > 0 && p.gpus.every((g) => g.utilization !== null), pod);

  // History: one range query for the workload's pods, per role.
  const holders = live.index.holdersOf(disagg.id);
  const now = Math.floor(Date.now() / 1000);
  const series = await live.usageRange(cluster, holders.map((h) => ({ namespace: h.key.split('/')[0], pod: h.name })), now - 60, now, 1);
  assert.ok(series && series.size === holders.length, `series for ${series?.size} of ${holders.length} pods`);
});

test('Prometheus found among the cluster services and queried through the API server service proxy', async () => {
  const live = await liveWith({ idle: { thresholdPercent: 5, windowSeconds: 3 }, intervalSeconds: 1 });
  const info = live.clusters()[0].usage!;
  assert.equal(info.source, 'prometheus');
  assert.match(info.detail, /service monitoring\/prometheus-k8s:(9090|web) \(API server proxy\), found in the cluster/);
  assert.equal(info.coverage.withMetrics, info.coverage.gpuPods);
});

test('without Prometheus the exporters are read through the pod proxy: current values, idleness unknown until watched a whole window', async () => {
  // Stopping Prometheus unregisters its service backend: what is left to find are the exporters.
  await prom.stop();
  const fresh = await liveWith({ idle: { thresholdPercent: 5, windowSeconds: 3600 }, intervalSeconds: 1 });
  const info = fresh.clusters()[0].usage!;
  assert.equal(info.source, 'exporters', info.detail);
  assert.equal(info.history, false);
  assert.equal(info.coverage.withMetrics, info.coverage.gpuPods);
  const rows = gpuRows(fresh);
  assert.ok(rows.every((r) => r.usage!.utilization !== null));
  // One refresh is not a window: a quiet GPU's idleness is not known (and so not 0); a busy one is not idle.
  const byName = new Map(rows.map((r) => [r.name, r.usage!]));
  assert.deepEqual([byName.get('llama-lora')!.utilization, byName.get('llama-lora')!.idle], [0, null]);
  assert.deepEqual([byName.get('notebook-alice')!.idle, byName.get('nccl-allreduce')!.idle], [null, 0]);
});
