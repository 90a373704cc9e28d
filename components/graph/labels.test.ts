import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commonPrefix, middleEllipsis, shortLabels } from './labels.ts';

test('siblings keep the part they differ in: four pods never read the same', () => {
  const names = ['llama-finetune-workers-0-0-x7k2p', 'llama-finetune-workers-0-1-9dq4m', 'llama-finetune-workers-0-2-b8c1z', 'llama-finetune-workers-0-3-kk3n9'];
  assert.equal(commonPrefix(names), 'llama-finetune-workers-0-');
  const labels = shortLabels(names, 28);
  assert.equal(new Set(labels).size, 4);
  for (const [i, l] of labels.entries()) {
    assert.ok(l.length <= 28, l);
    assert.ok(l.endsWith(names[i].slice('llama-finetune-workers-0-'.length)), l);
  }
  assert.equal(labels[0], 'llama-finetune-worke…0-x7k2p');
});

test('names that fit are themselves; a lone long name is cut in the middle, its end kept', () => {
  assert.deepEqual(shortLabels(['vllm-405b-0', 'vllm-405b-0-1']), ['vllm-405b-0', 'vllm-405b-0-1']);
  const [only] = shortLabels(['vllm-disagg-0-vllmprefillworker-0-vllmprefillworker-ldr-7s2kx'], 28);
  assert.equal(only.length, 28);
  assert.ok(only.endsWith('worker-ldr-7s2kx'), only);
  assert.equal(middleEllipsis('abcdefghij', 5), 'a…hij');
  assert.equal(middleEllipsis('short', 10), 'short');
});

test('the common prefix is cut at a separator and never swallows a whole name', () => {
  assert.equal(commonPrefix(['w-10', 'w-11']), 'w-');
  assert.equal(commonPrefix(['vllm-405b-0', 'vllm-405b-0-1']), 'vllm-405b-');
  assert.equal(commonPrefix(['a', 'b']), '');
  assert.equal(commonPrefix(['only-one']), '');
  // Siblings whose distinct part is itself too long: the distinct part is cut in its middle instead.
  const long = shortLabels(['p-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-1', 'p-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-2'], 20);
  assert.ok(long.every((l) => l.length === 20));
  assert.ok(long[0].endsWith('-1') && long[1].endsWith('-2'));
});
