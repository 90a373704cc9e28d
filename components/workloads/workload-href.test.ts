import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeSegment, definitionHref, keyId, workloadApi, workloadHref } from './workload-href.ts';

test('hrefs encode each segment and use _ for cluster-scoped workloads', () => {
  const k = { cluster: 'prod/eu', namespace: '', kind: 'RayCluster', name: 'a b' };
  assert.equal(workloadHref(k), '/workloads/prod%2Feu/_/RayCluster/a%20b');
  assert.equal(workloadApi(k), '/api/workloads/prod%2Feu/_/RayCluster/a%20b');
  assert.equal(keyId(k), 'prod/eu/_/RayCluster/a b');
  assert.equal(decodeSegment('prod%2Feu'), 'prod/eu');
  assert.equal(decodeSegment('%E0%A4%A'), '%E0%A4%A');
  assert.equal(definitionHref({ name: 'jobset', source: 'cluster', cluster: 'sim' }), '/definitions/jobset?source=cluster&cluster=sim');
});
