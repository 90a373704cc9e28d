import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GpuReading, UsageFigures } from '../../contract/index.ts';
import { combineFigures, coverageText, gpuReadingLine, idleForText, idleRuleText, naReason, secondsText, usageFreshness, usedText, utilizationTotals, utilTone } from './usage-text.ts';

const GiB = 1024 ** 3;

test('durations and the idle rule read as people say them', () => {
  assert.equal(secondsText(12), '12 s');
  assert.equal(secondsText(60), '1 min');
  assert.equal(secondsText(900), '15 min');
  assert.equal(secondsText(90), '90 s');
  assert.equal(secondsText(3600), '1 h');
  assert.equal(secondsText(5400), '1 h 30 min');
  assert.equal(secondsText(0), '0 s');
  assert.equal(idleRuleText({ thresholdPercent: 5, windowSeconds: 900 }), 'idle: < 5 % for 15 min');
  assert.equal(idleRuleText({ thresholdPercent: 2.5, windowSeconds: 10 }), 'idle: < 2.5 % for 10 s');
});

test('freshness: the age of the readings, stale beyond three intervals or when the last refresh failed', () => {
  const now = Date.parse('2026-01-01T00:01:00Z');
  const at = (s: number) => new Date(now - s * 1000).toISOString();
  assert.deepEqual(usageFreshness({ at: at(12), error: null, intervalSeconds: 30 }, now), { text: 'readings 12 s old', stale: false, why: null });
  assert.equal(usageFreshness({ at: at(90), error: null, intervalSeconds: 30 }, now).stale, false, 'exactly three intervals is not stale yet');
  const late = usageFreshness({ at: at(91), error: null, intervalSeconds: 30 }, now);
  assert.equal(late.stale, true);
  assert.match(late.why!, /refreshed every 30 s/);
  const failed = usageFreshness({ at: at(5), error: 'connection refused', intervalSeconds: 30 }, now);
  assert.equal(failed.stale, true);
  assert.match(failed.why!, /connection refused/);
  assert.deepEqual(usageFreshness({ at: null, error: null, intervalSeconds: 30 }, now), { text: 'no readings yet', stale: false, why: null });
  assert.equal(usageFreshness({ at: null, error: 'no exporter answers', intervalSeconds: 30 }, now).stale, true);
  // A clock a little behind the server's is not a negative age.
  assert.equal(usageFreshness({ at: at(-2), error: null, intervalSeconds: 30 }, now).text, 'readings 0 s old');
});

test('coverage: GPU pods with readings out of GPU pods, unknown before the first refresh', () => {
  assert.equal(coverageText({ gpuPods: 100, withMetrics: 98 }), '98 of 100 GPU pods measured');
  assert.equal(coverageText({ gpuPods: 1, withMetrics: 1 }), '1 of 1 GPU pod measured');
  assert.equal(coverageText({ gpuPods: 0, withMetrics: 0 }), 'no GPU pods');
  assert.equal(coverageText({ gpuPods: null, withMetrics: null }), 'GPU pods not known yet');
  assert.equal(coverageText({ gpuPods: 4, withMetrics: null }), '4 GPU pods, none measured yet');
});

test('totals: used out of allocated, or out of measured when some GPUs have no readings; n/a without any', () => {
  assert.equal(utilizationTotals({ allocated: 120, measured: 120, used: 47.32, idle: 12 }).text, 'used 47.3 of 120 allocated GPUs (39%) · 12 idle');
  const partial = utilizationTotals({ allocated: 120, measured: 100, used: 47.3, idle: 0 });
  assert.equal(partial.text, 'used 47.3 of 100 measured GPUs (47%)');
  assert.match(partial.title, /20 of the 120 allocated GPUs have no readings/);
  assert.equal(utilizationTotals({ allocated: 120, measured: 0, used: null, idle: null }).text, 'utilization n/a');
  assert.equal(utilizationTotals({ allocated: 0, measured: 0, used: null, idle: null }).text, 'utilization n/a');
  // 0 used of measured GPUs is a reading (all idle), not "n/a".
  assert.equal(utilizationTotals({ allocated: 2, measured: 2, used: 0, idle: 2 }).text, 'used 0 of 2 allocated GPUs (0%) · 2 idle');
  assert.equal(usedText(123.46), '123');
});

test('why a figure is n/a: no source, or no readings for its pods', () => {
  assert.match(naReason({ source: 'none', pods: { gpu: 2, withMetrics: 0 } }, { cluster: 'prod', detail: 'no Prometheus and no DCGM exporter found' }), /cluster prod has no utilization source: no Prometheus/);
  assert.equal(naReason({ source: 'exporters', pods: { gpu: 2, withMetrics: 0 } }), 'No readings for its 2 GPU pods (source: DCGM exporters)');
  assert.equal(naReason({ source: 'prometheus', pods: { gpu: 1, withMetrics: 0 } }), 'No readings for its GPU pod (source: Prometheus)');
});

test('bar tones: unknown, underused, fine, saturated', () => {
  assert.deepEqual([null, 0, 29.9, 30, 94, 95, 100].map(utilTone), ['na', 'under', 'under', 'ok', 'ok', 'saturated', 'saturated']);
});

test('a device reading in one line; idle since', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  const g: GpuReading = {
    node: 'n1', gpu: '3', uuid: 'GPU-x', model: 'NVIDIA H100 80GB HBM3', mig: { profile: '1g.10gb', instance: '2' }, utilization: 0,
    memory: { usedBytes: 2 * GiB, totalBytes: 10 * GiB }, idle: true, idleSince: '2026-01-01T00:15:00Z', shared: false, worth: 1 / 7,
  };
  assert.equal(gpuReadingLine(g, now), 'GPU 3 (NVIDIA H100 80GB HBM3) · MIG 1g.10gb (instance 2): 0%, 2.0/10Gi, idle for 45m');
  assert.equal(gpuReadingLine({ ...g, mig: null, model: null, utilization: null, memory: null, idle: null, idleSince: null, shared: true }, now), 'GPU 3: n/a, n/a, idle not known yet, shared (time-sliced: the device’s figures)');
  assert.equal(idleForText(null, now), '');
});

test('figures of several instances add up, utilization weighted by what is measured; unknown stays unknown', () => {
  const f = (o: Partial<UsageFigures>): UsageFigures => ({ allocated: 0, measured: 0, utilization: null, used: null, memory: null, idle: null, idleSince: null, pods: { gpu: 0, withMetrics: 0 }, ...o });
  assert.equal(combineFigures([]), null);
  const a = f({ allocated: 4, measured: 4, utilization: 100, used: 4, memory: { usedBytes: 1, totalBytes: 4 }, idle: 0, pods: { gpu: 1, withMetrics: 1 } });
  const b = f({ allocated: 4, measured: 2, utilization: 10, used: 0.2, idle: 2, idleSince: '2026-01-01T00:00:00Z', pods: { gpu: 2, withMetrics: 1 } });
  assert.equal(combineFigures([a]), a);
  const c = combineFigures([a, b, f({ allocated: 1, pods: { gpu: 1, withMetrics: 0 } })])!;
  assert.deepEqual(c, { allocated: 9, measured: 6, utilization: 70, used: 4.2, memory: { usedBytes: 1, totalBytes: 4 }, idle: 2, idleSince: '2026-01-01T00:00:00Z', pods: { gpu: 4, withMetrics: 2 } });
  const none = combineFigures([f({ allocated: 1 }), f({ allocated: 2 })])!;
  assert.equal(none.utilization, null);
  assert.equal(none.used, null);
  assert.equal(none.idle, null);
});
