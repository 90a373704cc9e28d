/**
 * Row visibility in shared mode: decided per kind cluster-wide and, where that is denied, per
 * namespace — so 3,000 rows cost a handful of access reviews, cached — and failing closed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessReviewer } from '../auth/access-review.ts';
import type { Principal } from '../auth/principal.ts';
import type { LiveWorkloads } from './live.ts';
import { mayListRow, rowScope } from './row-access.ts';
import type { WorkloadRow } from './row.ts';

function rows(): WorkloadRow[] {
  const out: WorkloadRow[] = [];
  for (const ns of ['team-a', 'team-b', 'team-c']) {
    for (let i = 0; i < 500; i++) {
      out.push({ cluster: 'c1', namespace: ns, apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: `js-${i}` } as WorkloadRow);
      out.push({ cluster: 'c1', namespace: ns, apiVersion: 'apps/v1', kind: 'Deployment', name: `d-${i}` } as WorkloadRow);
    }
  }
  return out;
}

/** Enough of LiveWorkloads for rowScope: the rows and the cluster's served kinds. */
function liveOf(all: WorkloadRow[]): LiveWorkloads {
  const served = [
    { group: 'jobset.x-k8s.io', version: 'v1alpha2', resource: 'jobsets', kind: 'JobSet', namespaced: true, verbs: [] },
    { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: [] },
  ];
  return { index: { allRows: () => all, currentSeq: 1 }, connection: (c: string) => (c === 'c1' ? { servedResources: () => served } : undefined) } as unknown as LiveWorkloads;
}

const alice: Principal = { user: 'alice', groups: ['g'], via: 'token', credential: { kind: 'impersonate' } };

test('3,000 rows: one review per kind cluster-wide, then per namespace only where that was denied; cached after', async () => {
  const asked: string[] = [];
  let now = 0;
  const reviewer = new AccessReviewer(
    async (_c, _p, a) => {
      asked.push(`${a.resource}@${a.namespace ?? '*'}`);
      // Deployments everywhere; JobSets only in team-b.
      return { allowed: a.resource === 'deployments' || a.namespace === 'team-b', reason: '' };
    },
    { ttlMs: 30_000, now: () => now },
  );
  const all = rows();
  const live = liveOf(all);
  const may = (cluster: string, q: { verb: string; group: string; resource: string; namespace?: string }) => reviewer.check(cluster, alice, q);
  const scope = await rowScope(live, may);
  assert.deepEqual(asked.sort(), ['deployments@*', 'jobsets@*', 'jobsets@team-a', 'jobsets@team-b', 'jobsets@team-c']);
  const visible = all.filter((r) => scope.test(r));
  assert.equal(visible.filter((r) => r.kind === 'Deployment').length, 1500);
  assert.deepEqual([...new Set(visible.filter((r) => r.kind === 'JobSet').map((r) => r.namespace))], ['team-b']);
  // A row of a namespace it has not seen is not decided (the stream asks again soon).
  const fresh = { cluster: 'c1', namespace: 'team-d', apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'x' } as WorkloadRow;
  assert.equal(scope.knows(fresh), false);
  assert.equal(scope.test(fresh), false);
  assert.equal(await mayListRow(live, may, fresh), false);
  // The same question again within the TTL is not sent again; after it, it is.
  const before = asked.length;
  const again = await rowScope(live, may);
  assert.equal(again.key, scope.key);
  assert.equal(asked.length, before, 'nothing is asked twice within the TTL');
  assert.equal(asked.filter((a) => a === 'jobsets@team-d').length, 1);
  now += 30_001;
  await rowScope(live, may);
  assert.equal(asked.length, before + 5);
});

test('a review that fails is a denial with the reason, remembered only briefly; the server\'s own identity is not reviewed', async () => {
  let fail = true;
  let now = 0;
  let sent = 0;
  const reviewer = new AccessReviewer(
    async () => {
      sent++;
      if (fail) throw new Error('connect ECONNREFUSED');
      return { allowed: true, reason: 'RBAC: allowed' };
    },
    { errorTtlMs: 5_000, now: () => now },
  );
  const q = { verb: 'list', group: '', resource: 'pods', namespace: 'a' };
  assert.deepEqual(await reviewer.check('c1', alice, q), { allowed: false, reason: 'the access review failed: connect ECONNREFUSED' });
  fail = false;
  assert.equal((await reviewer.check('c1', alice, q)).allowed, false);
  now += 5_001;
  assert.equal((await reviewer.check('c1', alice, q)).allowed, true);
  assert.equal(sent, 2);
  const own: Principal = { user: 'kubeconfig', groups: [], via: 'local', credential: { kind: 'own' } };
  assert.equal((await reviewer.check('c1', own, q)).allowed, true);
  assert.equal(sent, 2);
  // Two users never share an answer.
  await reviewer.check('c1', { ...alice, user: 'bob' }, q);
  assert.equal(sent, 3);
});
