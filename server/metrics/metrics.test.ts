import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkloadRow } from '../../contract/row.ts';
import { createMetricsRegistry, gpuGroups } from './prometheus.ts';
import { routeTemplate } from './route-template.ts';

function row(p: { ns: string; kind?: string; apiVersion?: string; allocated: number; idle?: number | null; used?: number | null }): WorkloadRow {
  return {
    cluster: 'c', namespace: p.ns, kind: p.kind ?? 'JobSet', apiVersion: p.apiVersion ?? 'jobset.x-k8s.io/v1alpha2',
    gpus: { allocated: p.allocated, requested: p.allocated + 1, desired: p.allocated + 2 },
    usage: p.idle === undefined ? null : { idle: p.idle, used: p.used ?? null },
  } as unknown as WorkloadRow;
}

test('route templates keep the fixed words of our routes and drop every name', () => {
  assert.equal(routeTemplate('/api/workloads'), '/api/workloads');
  assert.equal(routeTemplate('/api/workloads/prod/team-a/JobSet.jobset.x-k8s.io/llama'), '/api/workloads/:id');
  assert.equal(routeTemplate('/api/workloads/prod/team-a/JobSet.jobset.x-k8s.io/llama/events'), '/api/workloads/:id/events');
  assert.equal(routeTemplate('/api/workloads/prod/team-a/JobSet.jobset.x-k8s.io/llama/usage/history'), '/api/workloads/:id/history');
  assert.equal(routeTemplate('/api/pods/prod/team-a/p-0/log'), '/api/pods/:id/log');
  assert.equal(routeTemplate('/api/definitions/validate'), '/api/definitions/validate');
  assert.equal(routeTemplate('/api/studio/trial'), '/api/studio/trial');
  assert.equal(routeTemplate('/api/secret-area/x'), '/api/other');
  assert.equal(routeTemplate('/workloads/prod/team-a/JobSet/llama'), '/workloads/:id');
  assert.equal(routeTemplate('/'), '/');
  assert.equal(routeTemplate('/etc/passwd'), '/other');
  assert.equal(routeTemplate('/_next/static/chunks/x.js'), '/_next');
  assert.equal(routeTemplate('/metrics'), '/metrics');
});

test('GPU groups sum per namespace and kind.group; idle and used stay unknown (null) without readings, never 0', () => {
  const groups = gpuGroups([row({ ns: 'a', allocated: 8, idle: 2, used: 5 }), row({ ns: 'a', allocated: 4 }), row({ ns: 'b', allocated: 1, kind: 'Pod', apiVersion: 'v1' })]);
  const a = groups.find((g) => g.namespace === 'a')!;
  assert.deepEqual({ kind: a.kind, workloads: a.workloads, allocated: a.allocated, requested: a.requested, desired: a.desired, idle: a.idle, used: a.used }, { kind: 'JobSet.jobset.x-k8s.io', workloads: 2, allocated: 12, requested: 14, desired: 16, idle: 2, used: 5 });
  const b = groups.find((g) => g.namespace === 'b')!;
  assert.equal(b.kind, 'Pod');
  assert.equal(b.idle, null);
  assert.equal(b.used, null);
});

test('the registry: scrape-time gauges from the state, instruments counted, unknown idle GPUs absent', async () => {
  const state = {
    clusters: () => [{ name: 'c', state: 'connected' as const, synced: true, kinds: [{ resource: 'pods', state: 'watching' }], objects: [{ kind: 'Pod', count: 3 }] }],
    rows: () => [row({ ns: 'a', allocated: 8, idle: 2, used: 5 }), row({ ns: 'b', allocated: 1 })],
  };
  const m = createMetricsRegistry(state);
  const w = m.instruments.watch('c', 'pods');
  w.listed(0.2, false);
  w.listed(0.3, true);
  w.failed(410);
  w.restarted('expired');
  w.failed(429);
  w.retryAfterHonoured(4);
  w.event();
  w.event();
  m.instruments.deltaLatency(0.004);
  m.instruments.streamClients(1);
  m.instruments.request('/api/workloads', 'GET', 200, 0.01);
  const { body, contentType } = await m.render();
  assert.match(contentType, /text\/plain/);
  const has = (line: string) => assert.ok(body.split('\n').includes(line), `${line}\n--- in ---\n${body.split('\n').filter((l) => l.startsWith('wmap_')).join('\n')}`);
  has('wmap_cluster_connection_state{cluster="c",state="connected"} 1');
  has('wmap_cluster_connection_state{cluster="c",state="unreachable"} 0');
  has('wmap_cluster_synced{cluster="c"} 1');
  has('wmap_watch_state{cluster="c",resource="pods",state="watching"} 1');
  has('wmap_objects{cluster="c",kind="Pod"} 3');
  has('wmap_rows{cluster="c"} 2');
  has('wmap_list_duration_seconds_count{cluster="c",resource="pods"} 2');
  has('wmap_relists_total{cluster="c",resource="pods"} 1');
  has('wmap_apiserver_errors_total{cluster="c",resource="pods",code="410"} 1');
  has('wmap_apiserver_errors_total{cluster="c",resource="pods",code="429"} 1');
  has('wmap_retry_after_wait_seconds_total{cluster="c",resource="pods"} 4');
  has('wmap_watch_restarts_total{cluster="c",resource="pods",reason="expired"} 1');
  has('wmap_watch_events_total{cluster="c",resource="pods"} 2');
  has('wmap_delta_latency_seconds_bucket{le="0.005"} 1');
  has('wmap_stream_clients 1');
  has('wmap_http_requests_total{route="/api/workloads",method="GET",code="200"} 1');
  has('wmap_gpus_allocated{cluster="c",namespace="a",kind="JobSet.jobset.x-k8s.io"} 8');
  has('wmap_gpus_idle{cluster="c",namespace="a",kind="JobSet.jobset.x-k8s.io"} 2');
  assert.doesNotMatch(body, /wmap_gpus_idle\{[^}]*namespace="b"/, 'no readings: no idle series');
  assert.match(body, /^process_resident_memory_bytes \d+/m);
  assert.match(body, /^nodejs_heap_size_used_bytes \d+/m);
});
