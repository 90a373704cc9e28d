import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clockTime, describeConnection } from './connection-label.ts';

const T = new Date(2026, 11, 2, 14, 3, 22).getTime();
const base = { since: T, lastDataAt: T, attempts: 0, error: null };

test('connecting, unreachable, loading and live', () => {
  assert.equal(describeConnection({ ...base, status: 'connecting' }, T, false).label, 'Connecting…');
  const down = describeConnection({ ...base, status: 'connecting', attempts: 2, error: 'HTTP 503' }, T, false);
  assert.equal(down.tone, 'bad');
  assert.match(down.detail, /attempt 3.*HTTP 503/);
  assert.equal(describeConnection({ ...base, status: 'live' }, T, false).label, 'Loading…');
  assert.equal(describeConnection({ ...base, status: 'live' }, T, true).tone, 'ok');
});

test('reconnecting first, then stale since the last data', () => {
  const s = { ...base, status: 'reconnecting' as const, since: T + 1000, lastDataAt: T };
  const early = describeConnection(s, T + 5000, true);
  assert.equal(early.tone, 'warn');
  assert.equal(early.label, 'Reconnecting…');
  assert.match(early.detail, /as of 14:03:22/);
  const late = describeConnection(s, T + 20_000, true);
  assert.equal(late.tone, 'bad');
  assert.equal(late.label, 'Stale since 14:03:22 · reconnecting');
  assert.equal(clockTime(T), '14:03:22');
});

test('never "Live" while a watched kind of a cluster keeps failing', () => {
  const cluster = { name: 'prod', state: 'connected' as const, message: null, server: 'https://x', servedKinds: 10, watchedKinds: ['pods'], forbiddenKinds: [], definitionApis: { karta: [], resourceInterface: [] }, lastSyncAt: null, synced: true };
  const live = { ...base, status: 'live' as const };
  assert.equal(describeConnection(live, T, true, [{ ...cluster, failingKinds: [] }]).label, 'Live');
  const failing = describeConnection(live, T, true, [{ ...cluster, failingKinds: [{ kind: 'pods', since: new Date(T).toISOString(), message: 'HTTP 500' }, { kind: 'jobs.batch', since: new Date(T + 1000).toISOString(), message: 'HTTP 500' }] }]);
  assert.equal(failing.tone, 'warn');
  assert.equal(failing.label, 'Stale since 14:03:22: pods in prod (+1 more)');
  assert.match(failing.detail, /HTTP 500.*marked stale/);
  const down = describeConnection(live, T, true, [{ ...cluster, failingKinds: [], state: 'unreachable', message: 'ECONNREFUSED' }]);
  assert.match(down.label, /^Stale: cluster prod$/);
});
