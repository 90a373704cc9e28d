import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalidBoundText, rangeConflict, readBound } from './range-input.ts';

test('numbers within range are values; empty is no bound', () => {
  assert.deepEqual(readBound('8'), { kind: 'value', value: 8 });
  assert.deepEqual(readBound(' 0.5 '), { kind: 'value', value: 0.5 });
  assert.deepEqual(readBound('0'), { kind: 'value', value: 0 });
  assert.deepEqual(readBound('100', { max: 100 }), { kind: 'value', value: 100 });
  assert.deepEqual(readBound(''), { kind: 'empty' });
  assert.deepEqual(readBound('   '), { kind: 'empty' });
});

test('a negative bound is invalid, not silently ignored', () => {
  assert.deepEqual(readBound('-3'), { kind: 'invalid', message: '-3 is below 0' });
  assert.deepEqual(readBound('-0.5'), { kind: 'invalid', message: '-0.5 is below 0' });
});

test('beyond the maximum, and what is no plain number, are invalid', () => {
  assert.deepEqual(readBound('150', { max: 100 }), { kind: 'invalid', message: '150 is above 100' });
  for (const t of ['abc', '-', '1e', '0x10', '1,5', 'Infinity', '1e999']) assert.equal(readBound(t).kind, 'invalid', t);
});

test('the message names the box and what stays applied', () => {
  assert.equal(invalidBoundText('Maximum GPUs', '-3 is below 0', 8), 'Maximum GPUs: -3 is below 0, so it is not applied (8 is still in use).');
  assert.equal(invalidBoundText('Minimum GPUs', '"x" is not a number', null), 'Minimum GPUs: "x" is not a number, so it is not applied (no bound is in use).');
});

test('min above max is a conflict; equal or open ends are not', () => {
  assert.equal(rangeConflict('GPUs', 10, 4), 'GPUs: the minimum 10 is above the maximum 4, so no workload can match.');
  assert.equal(rangeConflict('GPUs', 4, 4), null);
  assert.equal(rangeConflict('GPUs', null, 4), null);
  assert.equal(rangeConflict('GPUs', 10, null), null);
});
