import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columnOfSort, columnsFor, printRowTable, ROW_COLUMNS, SORT_KEYS, tableColumns } from './index.ts';
import { makeRow } from './test-rows.ts';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const rows = [
  makeRow({ name: 'llama', namespace: 'team-a', allocated: 12, requested: 12, desired: 16, ready: 3, total: 3, roles: [{ name: 'worker', pods: 3, desired: 4 }], createdAt: '2026-12-02T09:54:50Z', utilization: 42.4, idle: 2, idleSince: '2026-12-02T09:15:00Z' }),
  { ...makeRow({ name: 'shared', namespace: 'team-b', kind: 'Pod', apiVersion: 'v1', allocated: 0.5, requested: 0.5, desired: 0.5, statusReason: 'Running', createdAt: null }), stale: { since: '2026-12-02T09:58:00Z', reason: 'pods cannot be read: HTTP 500', kinds: ['pods'] } },
];

test('kubectl columns: the namespace only across namespaces, the rest only with -o wide', () => {
  const keys = (c: ReturnType<typeof columnsFor>) => c.map((x) => x.key);
  assert.deepEqual(keys(columnsFor({ wide: false, oneNamespace: true, oneCluster: true })), ['kind', 'name', 'status', 'gpus', 'pods', 'roles', 'age']);
  assert.deepEqual(keys(columnsFor({ wide: true, oneNamespace: false, oneCluster: true })), ['kind', 'name', 'namespace', 'status', 'gpus', 'util', 'memory', 'idle', 'pods', 'roles', 'age', 'definition', 'reason', 'stale']);
  // The dashboard: every default column, namespace and cluster included.
  assert.deepEqual(keys(columnsFor({ wide: false, oneNamespace: false, oneCluster: false })), ['kind', 'name', 'namespace', 'cluster', 'status', 'gpus', 'pods', 'roles', 'age']);
  // The table adds the utilization columns, which the CLI prints only wide.
  assert.deepEqual(keys(tableColumns()), ['kind', 'name', 'namespace', 'cluster', 'status', 'gpus', 'util', 'memory', 'idle', 'pods', 'roles', 'age']);
});

test('printed as kubectl prints: namespace first, padded columns, <none> for empty cells, kubectl ages', () => {
  const text = printRowTable(rows, columnsFor({ wide: true, oneNamespace: false, oneCluster: true }), NOW);
  const lines = text.split('\n');
  const cells = lines.map((l) => l.split(/ {3,}/));
  assert.deepEqual(cells[0], ['NAMESPACE', 'KIND', 'NAME', 'STATUS', 'GPUS(ALLOC/REQ/DESIRED)', 'UTIL', 'GPU-MEM', 'IDLE', 'PODS', 'ROLES', 'AGE', 'DEFINITION', 'REASON', 'STALE']);
  assert.deepEqual(cells[1], ['team-a', 'JobSet', 'llama', 'Running', '12/12/16', '42%', 'n/a', '2 (45m)', '3/3', '3 worker', '5m10s', 'jobset-x-k8s-io-jobset-v1alpha2', '<none>', '<none>']);
  assert.deepEqual(cells[2], ['team-b', 'Pod', 'shared', 'Running', '0.5/0.5/0.5', 'n/a', 'n/a', 'n/a', '0/0', '<none>', '<unknown>', 'jobset-x-k8s-io-jobset-v1alpha2', 'Running', '2m: pods']);
  // Columns line up.
  const at = lines[0].indexOf('STATUS');
  for (const l of lines) assert.equal(l.slice(at).startsWith('Running') || l.slice(at).startsWith('STATUS'), true, l);
});

test('every sort key belongs to exactly one column', () => {
  for (const k of SORT_KEYS) assert.equal(ROW_COLUMNS.filter((c) => c.sorts.some((s) => s.key === k)).length, 1, k);
  assert.equal(columnOfSort('requested')?.key, 'gpus');
});

test('a reason with newlines (a condition message ending in one) stays on its row', () => {
  const text = printRowTable([makeRow({ name: 'x', statusReason: 'BackoffLimitExceeded: Job has reached\nthe specified backoff limit\n' })], columnsFor({ wide: true, oneNamespace: true, oneCluster: true }), NOW);
  const lines = text.split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[1], /BackoffLimitExceeded: Job has reached the specified backoff limit/);
  assert.ok(!/\s$/.test(lines[1].split('   ').find((c) => c.startsWith('Backoff')) ?? ''));
});

test('finished pods are done, not not-ready: 4 done, 2/2 +2 done', () => {
  const pods = (ready: number, total: number, done?: number) => columnsFor({ wide: false, oneNamespace: true, oneCluster: true }).find((c) => c.key === 'pods')!.text({ ...makeRow({ ready, total }), pods: { ready, total, ...(done ? { done } : {}) } }, NOW);
  assert.equal(pods(0, 4, 4), '4 done');
  assert.equal(pods(2, 4, 2), '2/2 +2 done');
  assert.equal(pods(3, 4), '3/4');
});

test('the kind column names the group of a kind that shares its name with one of Kubernetes\' own', () => {
  const kind = ROW_COLUMNS.find((c) => c.key === 'kind')!;
  const row = (kindName: string, apiVersion: string) => ({ ...makeRow(), kind: kindName, apiVersion });
  assert.equal(kind.text(row('Job', 'batch/v1'), 0), 'Job');
  assert.equal(kind.text(row('Job', 'batch.volcano.sh/v1alpha1'), 0), 'Job.batch.volcano.sh');
  assert.equal(kind.text(row('Service', 'serving.knative.dev/v1'), 0), 'Service.serving.knative.dev');
  assert.equal(kind.text(row('Pod', 'v1'), 0), 'Pod');
  assert.equal(kind.text(row('JobSet', 'jobset.x-k8s.io/v1alpha2'), 0), 'JobSet');
});
