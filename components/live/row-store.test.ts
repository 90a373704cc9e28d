import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RowStore } from './row-store.ts';
import { makeRow } from '../../lib/rows/test-rows.ts';

const a = makeRow({ name: 'a' });
const b = makeRow({ name: 'b' });
const c = makeRow({ name: 'c' });

test('a snapshot replaces everything; deltas upsert and remove', () => {
  const s = new RowStore();
  let notified = 0;
  s.subscribe(() => notified++);
  assert.equal(s.hasSnapshot, false);
  s.applySnapshot({ seq: 10, rows: [a, b], clusters: [] });
  assert.equal(s.hasSnapshot, true);
  assert.deepEqual(s.list().map((r) => r.name), ['a', 'b']);
  const b2 = { ...b, status: 'Failed' as const };
  assert.equal(s.applyDeltas([{ seq: 11, op: 'upsert', id: b.id, row: b2 }, { seq: 12, op: 'upsert', id: c.id, row: c }, { seq: 13, op: 'remove', id: a.id }]), 3);
  assert.deepEqual(s.list().map((r) => `${r.name}:${r.status}`), ['b:Failed', 'c:Running']);
  assert.equal(s.seq, 13);
  s.applySnapshot({ seq: 20, rows: [c], clusters: [] });
  assert.deepEqual(s.list().map((r) => r.name), ['c']);
  assert.equal(notified, 3);
});

test('deltas already applied (re-sent on resume) are skipped', () => {
  const s = new RowStore();
  s.applySnapshot({ seq: 5, rows: [a], clusters: [] });
  assert.equal(s.applyDeltas([{ seq: 4, op: 'remove', id: a.id }, { seq: 5, op: 'remove', id: a.id }]), 0);
  assert.equal(s.size, 1);
  assert.equal(s.applyDeltas([{ seq: 6, op: 'remove', id: 'nope' }]), 0);
  assert.equal(s.seq, 6);
});

test('list() is stable between changes; unchanged rows keep their identity across snapshots', () => {
  const s = new RowStore();
  s.applySnapshot({ seq: 1, rows: [a, b], clusters: [] });
  const l1 = s.list();
  assert.equal(s.list(), l1);
  s.applySnapshot({ seq: 2, rows: [structuredClone(a), { ...b, name: 'b', status: 'Failed' }], clusters: [] });
  assert.notEqual(s.list(), l1);
  assert.equal(s.get(a.id), a);
  assert.notEqual(s.get(b.id), b);
});

test('clusters come with the snapshot and on their own', () => {
  const s = new RowStore();
  const info = { name: 'sim', state: 'connected' as const, message: null, server: 'https://127.0.0.1:1', servedKinds: 3, watchedKinds: [], forbiddenKinds: [], failingKinds: [], definitionApis: { karta: [], resourceInterface: [] }, lastSyncAt: null, synced: true };
  s.applySnapshot({ seq: 1, rows: [], clusters: [info] });
  assert.equal(s.clusters[0].name, 'sim');
  s.setClusters([{ ...info, state: 'unreachable', message: 'dial tcp: refused' }]);
  assert.equal(s.clusters[0].state, 'unreachable');
});
