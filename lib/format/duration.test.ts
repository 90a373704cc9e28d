import assert from 'node:assert/strict';
import { test } from 'node:test';
import { humanAge, humanDuration } from './duration.ts';

test('durations read as kubectl prints them (HumanDuration thresholds)', () => {
  const s = 1000;
  const cases: Array<[number, string]> = [
    [5 * s, '5s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [150 * s, '2m30s'],
    [600 * s, '10m'],
    [179 * 60 * s, '179m'],
    [3 * 3600 * s, '3h'],
    [3 * 3600 * s + 120 * s, '3h2m'],
    [8 * 3600 * s, '8h'],
    [30 * 3600 * s, '30h'],
    [48 * 3600 * s, '2d'],
    [52 * 3600 * s, '2d4h'],
    [8 * 86400 * s, '8d'],
    [400 * 86400 * s, '400d'],
    [2 * 365 * 86400 * s, '2y'],
    [2 * 365 * 86400 * s + 30 * 86400 * s, '2y30d'],
    [3 * 365 * 86400 * s, '3y'],
    [9 * 365 * 86400 * s + 86400 * s, '9y'],
    [-500, '0s'],
    [-5 * s, '<invalid>'],
  ];
  for (const [ms, text] of cases) assert.equal(humanDuration(ms), text, `${ms} ms`);
});

test('ages of timestamps: unknown and unreadable ones say so', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  assert.equal(humanAge('2026-01-01T11:54:50Z', now), '5m10s');
  assert.equal(humanAge(null, now), '<unknown>');
  assert.equal(humanAge('', now), '<unknown>');
  assert.equal(humanAge('yesterday', now), '<invalid>');
});
