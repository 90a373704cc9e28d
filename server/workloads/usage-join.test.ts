import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReadingState, UsageSnapshot } from '../usage/index.ts';
import { figuresOf, rowUsageOf, type GpuHolder } from './usage-join.ts';
import { usageHistory } from './usage-history.ts';
import { chooseUsageSettings, parseSeconds } from './usage-settings.ts';

const AT = Date.parse('2026-12-03T10:00:00Z');
const GiB = 1024 ** 3;

function holder(name: string, worth: number, o: Partial<GpuHolder> = {}): GpuHolder {
  return { key: `ns/${name}`, name, worth, shared: false, component: 'worker', instance: '', role: 'worker', startedAt: AT - 3_600_000, ...o };
}

function reading(pod: string, util: number | null, o: Partial<ReadingState> = {}): ReadingState {
  return { key: `n1/${pod}/${o.uuid ?? ''}`, node: 'n1', gpu: '0', uuid: `GPU-${pod}`, model: 'H100', mig: null, namespace: 'ns', pod, container: null, utilization: util, memUsedMiB: 40 * 1024, memFreeMiB: 40 * 1024, idle: false, since: null, ...o };
}

function snap(readings: ReadingState[]): UsageSnapshot {
  const byPod = new Map<string, ReadingState[]>();
  for (const r of readings) byPod.set(`${r.namespace}/${r.pod}`, [...(byPod.get(`${r.namespace}/${r.pod}`) ?? []), r]);
  return { cluster: 'c', source: 'prometheus', detail: '', at: AT, error: null, history: true, idle: { thresholdPercent: 5, windowSeconds: 900 }, intervalSeconds: 30, byPod, byNode: new Map(), version: 1, lastRefresh: null };
}

test('figures: worth-weighted average, used GPUs, memory, idle GPUs and the longest idle since', () => {
  // Two whole GPUs at 90 % and 10 % (one pod), a 1g MIG slice (1/7) idle since 09:00.
  const holders = [holder('train-0', 2), holder('embed-0', 1 / 7)];
  const s = snap([
    reading('train-0', 90), reading('train-0', 10, { uuid: 'GPU-2', gpu: '1' }),
    reading('embed-0', 0, { mig: { profile: '1g.10gb', instance: '7' }, memUsedMiB: 1024, memFreeMiB: 8832, idle: true, since: Date.parse('2026-12-03T09:00:00Z') }),
  ]);
  const f = figuresOf(holders, s);
  assert.equal(f.allocated, 2.143);
  assert.equal(f.measured, 2.143);
  assert.equal(f.utilization, Math.round(((90 + 10) / 2.142857) * 10) / 10);
  assert.equal(f.used, 1);
  assert.deepEqual(f.memory, { usedBytes: 81 * GiB, totalBytes: 169.625 * GiB });
  assert.equal(f.idle, 0.143);
  assert.equal(f.idleSince, '2026-12-03T09:00:00.000Z');
  assert.deepEqual(f.pods, { gpu: 2, withMetrics: 2 });
});

test('figures without readings are null (n/a), never 0; a row without GPUs has no usage', () => {
  const f = figuresOf([holder('a', 1)], snap([]));
  assert.deepEqual([f.allocated, f.measured, f.utilization, f.used, f.memory, f.idle, f.idleSince], [1, 0, null, null, null, null, null]);
  assert.equal(rowUsageOf([], snap([])), null);
  const u = rowUsageOf([holder('a', 1)], null)!;
  assert.deepEqual([u.source, u.at, u.utilization], ['none', null, null]);
  // Readings exist but say nothing about utilization: measured stays 0.
  const noUtil = figuresOf([holder('a', 1)], snap([reading('a', null, { idle: null })]));
  assert.deepEqual([noUtil.utilization, noUtil.idle, noUtil.pods.withMetrics], [null, null, 1]);
});

test('a pod younger than the idle window is not idle yet; a time-sliced GPU counts its memory by share', () => {
  const young = figuresOf([holder('new', 1, { startedAt: AT - 60_000 })], snap([reading('new', 0, { idle: true, since: AT - 7_200_000 })]));
  assert.equal(young.idle, 0);
  const old = figuresOf([holder('old', 1, { startedAt: AT - 1_800_000 })], snap([reading('old', 0, { idle: true, since: AT - 7_200_000 })]));
  // Idle since the pod started, not since the device was last busy for somebody else.
  assert.deepEqual([old.idle, old.idleSince], [1, new Date(AT - 1_800_000).toISOString()]);
  const shared = figuresOf([holder('s', 0.25, { shared: true })], snap([reading('s', 60)]));
  assert.deepEqual([shared.utilization, shared.used, shared.memory?.totalBytes], [60, 0.15, 20 * GiB]);
});

test('history: per role, weighted by worth, every step present and gaps null', async () => {
  const holders = [holder('w-0', 1), holder('w-1', 1), holder('lead', 1, { role: 'leader' })];
  const now = 1_800_000_000_000;
  const h = await usageHistory(holders, {
    history: true, reasonWithout: '',
    range: async (pods, start, _end, step) => {
      assert.equal(pods.length, 3);
      const pts = (v: number) => [[start, v], [start + step, v]] as Array<[number, number]>;
      return new Map([['ns/w-0', new Map([['a', pts(100)]])], ['ns/w-1', new Map([['b', pts(50)]])], ['ns/lead', new Map([['c', [[start, 10]] as Array<[number, number]>]])]]);
    },
  }, now);
  assert.equal(h.available, true);
  assert.equal(h.stepSeconds, 30);
  assert.deepEqual(h.series.map((s) => s.role), ['worker', 'leader']);
  assert.deepEqual(h.series[0].points.slice(0, 3).map((p) => p[1]), [75, 75, null]);
  assert.deepEqual(h.series[1].points.slice(0, 2).map((p) => p[1]), [10, null]);
  const none = await usageHistory(holders, { history: false, reasonWithout: 'exporters only', range: () => Promise.reject(new Error('not asked')) }, now);
  assert.deepEqual([none.available, none.reason, none.series], [false, 'exporters only', []]);
});

test('settings: flags over env over file; malformed values name where they came from', () => {
  assert.equal(parseSeconds('15m', 'x'), 900);
  assert.equal(parseSeconds('1h30m', 'x'), 5400);
  assert.throws(() => parseSeconds('soon', '--idle-window'), /--idle-window: "soon" is not a duration/);
  const s = chooseUsageSettings({ flags: { prometheus: ['http://127.0.0.1:9090', 'prod=service:monitoring/prometheus-k8s:9090'], idleWindow: '10m' }, env: { WMAP_IDLE_THRESHOLD: '3', WMAP_IDLE_WINDOW: '1h' }, file: '/nonexistent' })!;
  assert.deepEqual(s.prometheus, { '*': 'http://127.0.0.1:9090', prod: 'service:monitoring/prometheus-k8s:9090' });
  assert.deepEqual(s.idle, { thresholdPercent: 3, windowSeconds: 600 });
  assert.equal(s.intervalSeconds, 30);
  assert.equal(chooseUsageSettings({ flags: { usage: false }, env: {}, file: '/nonexistent' }), null);
  assert.throws(() => chooseUsageSettings({ env: { WMAP_PROMETHEUS: 'prometheus:9090' }, file: '/nonexistent' }), /WMAP_PROMETHEUS: "prometheus:9090" is not a Prometheus URL/);
  assert.throws(() => chooseUsageSettings({ flags: { idleThreshold: '120' }, env: {}, file: '/nonexistent' }), /--idle-threshold: "120" is not a percentage/);
  assert.throws(() => chooseUsageSettings({ flags: { idleWindow: '10s', usageInterval: '30s' }, env: {}, file: '/nonexistent' }), /idle window \(10 s\) must be at least the refresh interval/);
});
