/**
 * The metrics of a live index against the simulated cluster over real HTTPS: what the cluster does
 * to the watches (410 Gone, 429 with Retry-After) and what the index does with events shows up in
 * the scraped text, counted where it happened.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSim, type KubeObject, type SimHandle } from '../sim/index.ts';
import { loadClusterConfigs } from '../cluster/index.ts';
import { loadCatalog } from '../catalog/index.ts';
import { LiveWorkloads, readinessOf, servedState } from '../workloads/index.ts';
import { createMetricsRegistry } from './prometheus.ts';
import { setInstruments } from './instruments.ts';

let sim: SimHandle | null = null;
let live: LiveWorkloads | null = null;
after(async () => {
  live?.stop();
  setInstruments(null);
  await sim?.stop();
});

async function until(what: string, fn: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The sum of a series' samples whose labels include every given label. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

function pod(name: string, gpus: number): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName: 'gpu-a', containers: [{ name: 'main', image: 'x', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

test('410s, 429s with Retry-After, relists, events, delta latency and GPU gauges are counted from a real cluster', { timeout: 60_000 }, async () => {
  sim = await startSim({ scenario: 'empty', controllers: false, historySize: 50 });
  const catalog = LiveWorkloads.catalogEntries(loadCatalog());
  live = new LiveWorkloads({ clusters: loadClusterConfigs({ kubeconfig: sim.kubeconfigPath }), catalog, connection: { listWatch: { minBackoffMs: 50, maxBackoffMs: 200 } } });
  const metrics = createMetricsRegistry(servedState(live));
  setInstruments(metrics.instruments);
  const scrape = async () => (await metrics.render()).body;
  assert.equal(readinessOf(live).ready, false, 'no cluster has settled before the start');
  live.start();
  await until('initial sync', () => readinessOf(live!).ready);
  assert.deepEqual(readinessOf(live).clusters, [{ name: 'wmap-sim', state: 'synced' }]);
  let text = await scrape();
  assert.equal(sample(text, 'wmap_cluster_synced', { cluster: 'wmap-sim' }), 1);
  assert.ok(sample(text, 'wmap_list_duration_seconds_count', { resource: 'pods' }) >= 1);
  assert.equal(sample(text, 'wmap_relists_total', { resource: 'pods' }), 0);

  // Events after the sync: counted, and each one's workload delta timed.
  sim.store.create(pod('a', 2));
  sim.store.create(pod('b', 1));
  await until('two rows', () => live!.index.allRows().length === 2);
  text = await scrape();
  assert.ok(sample(text, 'wmap_watch_events_total', { resource: 'pods' }) >= 2);
  assert.ok(sample(text, 'wmap_delta_latency_seconds_count') >= 2);
  assert.equal(sample(text, 'wmap_gpus_allocated', { namespace: 'default', kind: 'Pod' }), 3);
  assert.equal(sample(text, 'wmap_objects', { kind: 'Pod' }), 2);

  // History compacted: every resume is a 410, and the watches relist.
  sim.faults.set({ watchGone: true });
  sim.faults.dropWatches();
  await until('a 410 and a relist of pods', async () => {
    const t = await scrape();
    return sample(t, 'wmap_apiserver_errors_total', { resource: 'pods', code: '410' }) >= 1 && sample(t, 'wmap_relists_total', { resource: 'pods' }) >= 1 && sample(t, 'wmap_watch_restarts_total', { resource: 'pods', reason: 'expired' }) >= 1;
  });
  sim.faults.set({ watchGone: null });

  // Throttled: pods answer 429 with Retry-After 1 s, longer than the 50–200 ms backoff, which waits for it.
  sim.faults.set({ errorRate: 1, errorCodes: [429], retryAfterSeconds: 1, errorPathContains: '/api/v1/pods' });
  sim.faults.dropWatches();
  await until('a 429 honoured', async () => {
    const t = await scrape();
    return sample(t, 'wmap_apiserver_errors_total', { resource: 'pods', code: '429' }) >= 1 && sample(t, 'wmap_retry_after_wait_seconds_total', { resource: 'pods' }) > 0.5;
  });
  sim.faults.set({ errorRate: 0, errorPathContains: null });
  sim.faults.dropWatches();
  await until('the pods watch healthy again', async () => sample(await scrape(), 'wmap_watch_state', { resource: 'pods', state: 'watching' }) === 1);
  assert.equal(sample(await scrape(), 'wmap_gpus_allocated', { namespace: 'default' }), 3, 'the figures survive the faults');
});
