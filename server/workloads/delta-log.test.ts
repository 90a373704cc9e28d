import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeRow } from '../../lib/rows/test-rows.ts';
import { DeltaLog } from './delta-log.ts';

test('numbers deltas consecutively and hands out what came after a sequence number', () => {
  const log = new DeltaLog({ startSeq: 100 });
  const a = log.upsert(makeRow({ name: 'a' }), 500);
  const b = log.remove('sim/default/JobSet/a');
  assert.deepEqual([a.seq, b.seq, log.currentSeq], [101, 102, 102]);
  assert.deepEqual(log.since(100)?.map((d) => d.seq), [101, 102]);
  assert.deepEqual(log.since(101)?.map((d) => d.op), ['remove']);
  assert.deepEqual(log.since(102), []);
  // From the future (another process) or from before the log: a snapshot is needed.
  assert.equal(log.since(103), null);
  assert.equal(log.since(99), null);
});

test('bounded in bytes: the oldest deltas go first, and resuming from them needs a snapshot', () => {
  const log = new DeltaLog({ startSeq: 0, maxBytes: 10_000 });
  for (let i = 0; i < 100; i++) log.upsert(makeRow({ name: `w${i}` }), 1000);
  assert.ok(log.byteSize <= 10_000, String(log.byteSize));
  assert.ok(log.length >= 5 && log.length < 10, String(log.length));
  const oldest = 100 - log.length;
  assert.equal(log.since(oldest - 1), null);
  assert.equal(log.since(oldest)?.length, log.length);
  assert.equal(log.since(99)?.length, 1);
});

test('bounded in entries too; churn far beyond the bound keeps memory flat', () => {
  const log = new DeltaLog({ startSeq: 0, maxEntries: 1000 });
  for (let i = 0; i < 200_000; i++) log.remove(`c/ns/Pod/p${i % 5000}`);
  assert.equal(log.length, 1000);
  assert.deepEqual(log.since(199_999)?.map((d) => d.seq), [200_000]);
  assert.equal(log.since(199_000)?.length, 1000);
});
