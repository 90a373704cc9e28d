import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterNotices } from './cluster-notices.ts';
import type { ClusterInfo } from '../../contract/index.ts';

const base: ClusterInfo = { name: 'a', state: 'connected', message: null, server: 'https://x', servedKinds: 10, watchedKinds: [], forbiddenKinds: [], failingKinds: [], definitionApis: { karta: [], resourceInterface: [] }, lastSyncAt: null, synced: true };

test('healthy clusters say nothing; unreachable and forbidden kinds are notices', () => {
  assert.deepEqual(clusterNotices([base]), []);
  const n = clusterNotices([
    { ...base, name: 'down', state: 'unreachable', message: 'connect ECONNREFUSED' },
    { ...base, name: 'ro', forbiddenKinds: ['pods', 'jobs.batch'] },
    { ...base, name: 'slow', synced: false },
  ]);
  assert.deepEqual(n.map((x) => x.tone), ['bad', 'warn', 'info']);
  assert.match(n[0].text, /down is unreachable: connect ECONNREFUSED/);
  assert.match(n[1].text, /not allowed to list pods, jobs.batch/);
});

test('a kind that keeps failing is a notice that says since when and why', () => {
  const n = clusterNotices([{ ...base, failingKinds: [{ kind: 'pods', since: '2026-12-02T10:00:00Z', message: 'HTTP 500: etcdserver: request timed out' }] }]);
  assert.equal(n.length, 1);
  assert.equal(n[0].tone, 'bad');
  assert.match(n[0].text, /pods cannot be read since .*etcdserver: request timed out.*marked stale/);
});

test('stale utilization readings are a notice: the last refresh failed, or no refresh for three intervals', () => {
  const now = Date.parse('2026-12-02T10:10:00Z');
  const usage = { cluster: 'a', source: 'exporters' as const, detail: '3 DCGM exporters', at: '2026-12-02T10:09:50Z', error: null, coverage: { gpuPods: 3, withMetrics: 3 }, history: false, idle: { thresholdPercent: 5, windowSeconds: 900 }, intervalSeconds: 30 };
  assert.deepEqual(clusterNotices([{ ...base, usage }], now), []);
  const failed = clusterNotices([{ ...base, usage: { ...usage, error: 'exporter gpu-1 timed out' } }], now);
  assert.equal(failed.length, 1);
  assert.match(failed[0].text, /utilization \(DCGM exporters\) is stale, readings 10 s old: the last refresh failed: exporter gpu-1 timed out/);
  const late = clusterNotices([{ ...base, usage: { ...usage, at: '2026-12-02T10:08:00Z' } }], now);
  assert.match(late[0].text, /readings 2 min old/);
  // An unreachable cluster says so once.
  assert.equal(clusterNotices([{ ...base, state: 'unreachable', usage: { ...usage, error: 'x' } }], now).length, 1);
});
