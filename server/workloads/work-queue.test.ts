import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkQueue } from './work-queue.ts';

test('a key added while it waits is done once, in first-added order', () => {
  const q = new WorkQueue<string>();
  for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k);
  assert.equal(q.size, 3);
  assert.deepEqual([...q.drain()], ['a', 'b', 'c']);
  assert.equal(q.size, 0);
});

test('taking in slices: stops when asked, the rest waits, and taken keys can come back', () => {
  const q = new WorkQueue<number>();
  for (let i = 0; i < 100; i++) q.add(i);
  const done: number[] = [];
  q.takeWhile((k) => done.push(k), () => done.length < 32, 16);
  assert.equal(done.length, 32);
  assert.equal(q.size, 68);
  q.add(0);
  assert.ok(q.has(0));
  assert.deepEqual([...q.drain()].slice(0, 2), [32, 33]);
});

test('a key keeps the time it was first queued: adding it again while it waits does not reset it', () => {
  let t = 100;
  const q = new WorkQueue<string>(() => t);
  q.add('a');
  t = 150;
  q.add('b');
  q.add('a');
  const seen: Array<[string, number]> = [];
  q.takeWhile((k, at) => seen.push([k, at]), () => true);
  assert.deepEqual(seen, [['a', 100], ['b', 150]]);
  t = 200;
  q.add('a');
  q.takeWhile((k, at) => seen.push([k, at]), () => true);
  assert.deepEqual(seen.at(-1), ['a', 200]);
});
