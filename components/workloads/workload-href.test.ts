import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeRow } from '../../lib/rows/test-rows.ts';
import { decodeSegment, definitionHref, keyId, workloadApi, workloadHref } from './workload-href.ts';

test('hrefs encode each segment and use _ for cluster-scoped workloads', () => {
  const k = { cluster: 'prod/eu', namespace: '', kind: 'RayCluster', name: 'a b' };
  assert.equal(workloadHref(k), '/workloads/prod%2Feu/_/RayCluster/a%20b');
  assert.equal(workloadApi(k), '/api/workloads/prod%2Feu/_/RayCluster/a%20b');
  assert.equal(keyId(k), 'prod/eu/_/RayCluster/a b');
  assert.equal(decodeSegment('prod%2Feu'), 'prod/eu');
  assert.equal(decodeSegment('%E0%A4%A'), '%E0%A4%A');
  // A row links with its kind's group, so Job.batch and Job.batch.volcano.sh never share a page.
  assert.equal(workloadHref({ ...makeRow({ name: 'x', kind: 'Job', apiVersion: 'batch.volcano.sh/v1alpha1', namespace: 'team-a' }), cluster: 'c' }), '/workloads/c/team-a/Job.batch.volcano.sh/x');
  assert.equal(workloadHref({ ...makeRow({ name: 'p', kind: 'Pod', apiVersion: 'v1' }), cluster: 'c' }), '/workloads/c/default/Pod/p');
  assert.equal(definitionHref({ name: 'jobset', source: 'cluster', cluster: 'sim' }), '/definitions/jobset?source=cluster&cluster=sim');
});
