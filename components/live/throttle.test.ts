import { test } from 'node:test';
import assert from 'node:assert/strict';
import { throttle } from './throttle.ts';

test('first call at once, a burst collapses into one trailing call', async () => {
  let n = 0;
  const t = throttle(() => n++, 30);
  t();
  assert.equal(n, 1);
  for (let i = 0; i < 50; i++) t();
  assert.equal(n, 1);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(n, 2);
  t.cancel();
});
