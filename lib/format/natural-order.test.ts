import assert from 'node:assert/strict';
import { test } from 'node:test';
import { naturalCompare, roleCompare } from './natural-order.ts';

test('digits compare by value, so 2 comes before 10 and -0 before -1', () => {
  const names = ['w-10', 'w-1', 'w-2', 'w-0', 'w-0-10', 'w-0-2'];
  assert.deepEqual([...names].sort(naturalCompare), ['w-0', 'w-0-2', 'w-0-10', 'w-1', 'w-2', 'w-10']);
});

test('the order is total: names equal but for case still have one order', () => {
  assert.ok(naturalCompare('Worker', 'worker') !== 0);
  assert.equal(Math.sign(naturalCompare('Worker', 'worker')), -Math.sign(naturalCompare('worker', 'Worker')));
});

test('leader, launcher and head come before workers; the rest naturally', () => {
  assert.deepEqual(['worker', 'leader'].sort(roleCompare), ['leader', 'worker']);
  assert.deepEqual(['worker', 'launcher'].sort(roleCompare), ['launcher', 'worker']);
  assert.deepEqual(['workers', 'group/worker', 'headgroup', 'head'].sort(roleCompare), ['head', 'group/worker', 'headgroup', 'workers']);
  assert.deepEqual(['decode', 'prefill', 'frontend'].sort(roleCompare), ['frontend', 'decode', 'prefill']);
});
