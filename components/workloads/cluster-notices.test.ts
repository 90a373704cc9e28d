import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterNotices } from './cluster-notices.ts';
import type { ClusterInfo } from '../../contract/index.ts';

const base: ClusterInfo = { name: 'a', state: 'connected', message: null, server: 'https://x', servedKinds: 10, watchedKinds: [], forbiddenKinds: [], failingKinds: [], definitionApis: { karta: [], resourceInterface: [] }, lastSyncAt: null, synced: true };

test('healthy clusters say nothing; unreachable and forbidden kinds are notices', () => {
  assert.deepEqual(clusterNotices([base]), []);
  const n = clusterNotices([
    { ...base, name: 'down', state: 'unreachable', message: 'connect ECONNREFUSED' },
    { ...base, name: 'ro', forbiddenKinds: ['pods', 'jobs.batch'] },
    { ...base, name: 'slow', synced: false },
  ]);
  assert.deepEqual(n.map((x) => x.tone), ['bad', 'warn', 'info']);
  assert.match(n[0].text, /down is unreachable: connect ECONNREFUSED/);
  assert.match(n[1].text, /not allowed to list pods, jobs.batch/);
});

test('a kind that keeps failing is a notice that says since when and why', () => {
  const n = clusterNotices([{ ...base, failingKinds: [{ kind: 'pods', since: '2026-12-02T10:00:00Z', message: 'HTTP 500: etcdserver: request timed out' }] }]);
  assert.equal(n.length, 1);
  assert.equal(n[0].tone, 'bad');
  assert.match(n[0].text, /pods cannot be read since .*etcdserver: request timed out.*marked stale/);
});
