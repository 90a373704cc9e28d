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

test('the default timers are called as functions, never as methods of another object', async () => {
  // Browsers reject setTimeout called with a foreign `this`; emulate that check.
  const real = globalThis.setTimeout;
  let calls = 0;
  globalThis.setTimeout = function (this: unknown, ...args: Parameters<typeof setTimeout>) {
    if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
    calls++;
    return real(...args);
  } as typeof setTimeout;
  try {
    let n = 0;
    const t = throttle(() => n++, 5);
    t();
    t();
    await new Promise((r) => real(r, 30));
    assert.equal(n, 2);
    assert.equal(calls, 1);
  } finally {
    globalThis.setTimeout = real;
  }
});
