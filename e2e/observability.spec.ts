/**
 * Health, readiness and metrics of the app the other specs use (local mode): the probes answer on
 * any Host (a kubelet probes the pod's IP) and say nothing but their verdict; `/metrics` stays behind
 * the loopback Host check, and a real Prometheus scraping it gets the GPU figures the API shows.
 */
import { rawRequest } from '../server/auth/test-http.ts';
import type { WorkloadRow } from '../contract/index.ts';
import { expect, test } from './fixtures.ts';
import { startScraper } from './scraper.ts';

const port = Number(process.env.WMAP_E2E_PORT);

test('/healthz and /readyz answer on any Host with their verdict only; other methods are refused', async () => {
  const health = await rawRequest(port, { path: '/healthz', headers: { host: '10.1.2.3:3000' } });
  expect(health.status).toBe(200);
  expect(health.body).toBe('ok\n');
  await expect.poll(async () => (await rawRequest(port, { path: '/readyz', headers: { host: '10.1.2.3:3000' } })).status, { timeout: 60_000 }).toBe(200);
  const ready = await rawRequest(port, { path: '/readyz', headers: { host: '10.1.2.3:3000' } });
  expect(ready.body).toBe('ok\n');
  expect(ready.body).not.toContain('wmap-sim');
  expect((await rawRequest(port, { method: 'POST', path: '/healthz', headers: { host: `127.0.0.1:${port}` } })).status).toBe(405);
  // Every answer carries a request id; a caller's plain id is kept, anything else replaced.
  const echoed = await rawRequest(port, { path: '/api/clusters', headers: { host: `127.0.0.1:${port}`, 'x-request-id': 'trace-42' } });
  expect(echoed.headers['x-request-id']).toBe('trace-42');
  const replaced = await rawRequest(port, { path: '/api/clusters', headers: { host: `127.0.0.1:${port}`, 'x-request-id': 'bad id\twith spaces' } });
  expect(String(replaced.headers['x-request-id'])).toMatch(/^[0-9a-f-]{36}$/);
});

test('/metrics in local mode: loopback Host only, Prometheus text with the server\'s series', async () => {
  expect((await rawRequest(port, { path: '/metrics', headers: { host: 'evil.example:80' } })).status).toBe(421);
  const m = await rawRequest(port, { path: '/metrics', headers: { host: `127.0.0.1:${port}` } });
  expect(m.status).toBe(200);
  expect(String(m.headers['content-type'])).toContain('text/plain');
  for (const name of ['wmap_cluster_connection_state', 'wmap_cluster_synced', 'wmap_watch_state', 'wmap_objects', 'wmap_rows', 'wmap_list_duration_seconds_bucket', 'wmap_watch_events_total', 'wmap_resolve_duration_seconds_count', 'wmap_delta_latency_seconds_bucket', 'wmap_stream_clients', 'wmap_stream_frames_dropped_total', 'wmap_http_requests_total', 'wmap_gpus_allocated', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
    expect(m.body, name).toMatch(new RegExp(`^${name}[{ ]`, 'm'));
  }
});

test('a real Prometheus scrapes /metrics: the cluster is synced and its GPU totals are the API\'s', async () => {
  test.setTimeout(120_000);
  const prom = await startScraper({ target: `127.0.0.1:${port}` });
  try {
    await expect.poll(async () => (await prom.query('up{job="wmap"}'))[0]?.value[1], { timeout: 30_000 }).toBe('1');
    expect((await prom.query('wmap_cluster_synced'))[0]?.value[1]).toBe('1');
    expect(Number((await prom.query('sum(wmap_objects)'))[0]?.value[1])).toBeGreaterThan(100);
    expect(Number((await prom.query('sum(wmap_list_duration_seconds_count)'))[0]?.value[1])).toBeGreaterThan(10);
    // The scraped allocation per namespace equals the API's rows (retried: the demo's workloads move).
    await expect.poll(async () => {
      const api = JSON.parse((await rawRequest(port, { path: '/api/workloads?limit=5000', headers: { host: `127.0.0.1:${port}` } })).body) as { rows: WorkloadRow[] };
      const want = new Map<string, number>();
      for (const r of api.rows) want.set(r.namespace, (want.get(r.namespace) ?? 0) + r.gpus.allocated);
      const got = new Map((await prom.query('sum by (namespace) (wmap_gpus_allocated)')).map((s) => [s.metric.namespace, Number(s.value[1])]));
      const diff = [...new Set([...want.keys(), ...got.keys()])].filter((ns) => Math.abs((want.get(ns) ?? 0) - (got.get(ns) ?? 0)) > 1e-6);
      return diff.length === 0 && want.size > 0 ? 'equal' : `differ in ${diff.join(', ')}`;
    }, { timeout: 30_000 }).toBe('equal');
    // Its own scrapes are counted by route template, never by raw path.
    await expect.poll(async () => Number((await prom.query('wmap_http_requests_total{route="/metrics",code="200"}'))[0]?.value[1] ?? 0), { timeout: 10_000 }).toBeGreaterThan(1);
    expect((await prom.query('count(wmap_http_requests_total{route=~".*team-llm.*"})')).length).toBe(0);
  } finally {
    await prom.stop();
  }
});
