import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMPTY_LOG, allLines, appendChunk } from './log-buffer.ts';

test('chunks cut mid-line are joined; the unfinished line waits', () => {
  let b = appendChunk(EMPTY_LOG, 'step 1 loss 2.3\nstep 2 lo', 100);
  assert.deepEqual(b.lines, ['step 1 loss 2.3']);
  assert.equal(b.partial, 'step 2 lo');
  b = appendChunk(b, 'ss 2.1\n', 100);
  assert.deepEqual(b.lines, ['step 1 loss 2.3', 'step 2 loss 2.1']);
  assert.equal(b.partial, '');
  assert.deepEqual(allLines(appendChunk(b, 'tail', 100)), ['step 1 loss 2.3', 'step 2 loss 2.1', 'tail']);
});

test('only the newest lines are kept, and the dropped ones counted', () => {
  let b = EMPTY_LOG;
  for (let i = 0; i < 10; i++) b = appendChunk(b, `line ${i}\n`, 4);
  assert.deepEqual(b.lines, ['line 6', 'line 7', 'line 8', 'line 9']);
  assert.equal(b.dropped, 6);
});
