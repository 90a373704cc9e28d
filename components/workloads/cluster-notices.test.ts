import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterNotices } from './cluster-notices.ts';
import type { ClusterInfo } from '../../contract/index.ts';

const base: ClusterInfo = { name: 'a', state: 'connected', message: null, server: 'https://x', servedKinds: 10, watchedKinds: [], forbiddenKinds: [], definitionApis: { karta: [], resourceInterface: [] }, lastSyncAt: null, synced: true };

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
