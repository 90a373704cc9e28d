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

test('the same order as Intl.Collator (en, numeric, base) then exact, on 50,000 random names of Kubernetes characters and punctuation', () => {
  const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
  const reference = (a: string, b: string) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
  const alphabet = ` !"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_\`az{|}~éÉñ`;
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const name = () => Array.from({ length: 1 + Math.floor(next() * 8) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  const differ: string[] = [];
  for (let k = 0; k < 50_000; k++) {
    const a = name();
    const b = name();
    if (Math.sign(naturalCompare(a, b)) !== Math.sign(reference(a, b))) differ.push(JSON.stringify([a, b]));
  }
  assert.deepEqual(differ.slice(0, 10), []);
});

test('leading zeros and long digit runs: by value, then exactly', () => {
  assert.deepEqual(['n-010', 'n-9', 'n-10', 'n-0010', 'n-99999999999999999999', 'n-100000000000000000000'].sort(naturalCompare), ['n-9', 'n-0010', 'n-010', 'n-10', 'n-99999999999999999999', 'n-100000000000000000000']);
});
