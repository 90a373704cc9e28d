import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimClock } from './clock.ts';

test('manual clock fires timers in time order, hooks after each batch', () => {
  const c = SimClock.manual(0);
  const seen: string[] = [];
  c.setTimeout(() => seen.push('b@20'), 20);
  c.setTimeout(() => {
    seen.push('a@10');
    c.setTimeout(() => seen.push('c@15'), 5);
  }, 10);
  const cancelled = c.setTimeout(() => seen.push('never'), 12);
  c.clearTimeout(cancelled);
  c.onAfterTimers(() => seen.push(`hook@${c.now()}`));
  c.advance(25);
  assert.deepEqual(seen, ['a@10', 'hook@10', 'c@15', 'hook@15', 'b@20', 'hook@20']);
  assert.equal(c.now(), 25);
  assert.equal(c.pendingTimers(), 0);
  assert.equal(c.iso(), '1970-01-01T00:00:00Z');
});

test('manual clock interval and step', () => {
  const c = SimClock.manual(1000);
  let n = 0;
  const stop = c.setInterval(() => n++, 100);
  c.advance(350);
  assert.equal(n, 3);
  stop();
  c.advance(1000);
  assert.equal(n, 3);
  c.setTimeout(() => n++, 5000);
  assert.equal(c.step(), true);
  assert.equal(n, 4);
  assert.equal(c.step(), false);
});

test('real clock runs faster than real time with speed', async () => {
  const c = SimClock.realtime(100);
  const t0 = c.now();
  // The clock's own timers never keep the process alive; this one does, for the test.
  const keep = setTimeout(() => {}, 2000);
  const fired = await new Promise<number>((resolve) => c.setTimeout(() => resolve(c.now()), 1000));
  clearTimeout(keep);
  assert.ok(fired - t0 >= 1000);
  assert.ok(fired - t0 < 5000, `fired after ${fired - t0} simulated ms`);
  c.setSpeed(1);
  assert.equal(c.speed, 1);
  c.stop();
});
