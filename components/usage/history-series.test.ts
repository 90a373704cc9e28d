import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyChartData } from './history-series.ts';

test('history: one record per step with a value per role, gaps as null, roles keyed apart from the time', () => {
  const d = historyChartData({
    available: true,
    reason: null,
    start: 100,
    end: 160,
    stepSeconds: 30,
    series: [
      { role: 'prefill', points: [[100, 2], [130, null], [160, 4]] },
      { role: 't', points: [[100, 99], [130, 100]] },
    ],
  });
  assert.deepEqual(d.records, [
    { t: 100_000, r0: 2, r1: 99 },
    { t: 130_000, r0: null, r1: 100 },
    { t: 160_000, r0: 4, r1: null },
  ]);
  assert.deepEqual(d.lines, [
    { key: 'r0', role: 'prefill', last: 4, average: 3 },
    { key: 'r1', role: 't', last: 100, average: 99.5 },
  ]);
  const empty = historyChartData({ available: true, reason: null, start: 0, end: 30, stepSeconds: 30, series: [{ role: 'decode', points: [[0, null], [30, null]] }] });
  assert.deepEqual(empty.lines, [{ key: 'r0', role: 'decode', last: null, average: null }]);
});
