/** The bound on what one owner makes the simulated operators create (limits.ts). */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bounded, BOUNDED_COUNT, MAX_CHILDREN_PER_OWNER } from './limits.ts';
import { container, fixture } from './testing.ts';
import type { KubeObject } from './types.ts';

function hugeJobSet(name: string, replicas: number, suspend: boolean): KubeObject {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2',
    kind: 'JobSet',
    metadata: { name, namespace: 'default' },
    spec: {
      suspend,
      replicatedJobs: [{ name: 'w', replicas, template: { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [container('c', { cpu: '1' })] } } } } }],
    },
  };
}

test('bounded: whole, non-negative, at most the per-owner maximum', () => {
  assert.equal(bounded(3), 3);
  assert.equal(bounded(2.9), 2);
  assert.equal(bounded(-1), 0);
  assert.equal(bounded(1e15), BOUNDED_COUNT);
  assert.equal(bounded(Infinity), BOUNDED_COUNT);
  assert.equal(BOUNDED_COUNT, MAX_CHILDREN_PER_OWNER + 1);
  assert.equal(bounded(Number.NaN, 1), 1);
  assert.equal(bounded('3', 1), 1);
});

test('a suspended JobSet with replicas 1e15 gets at most 10000 Jobs and a JobCreationFailed event, not an out-of-memory', async () => {
  const f = fixture({ maxReconcilesPerSettle: 5_000_000 });
  try {
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = Date.now();
    f.store.create(hugeJobSet('huge', 1e15, true));
    await f.settle();
    const jobs = f.store.count('batch/v1', 'Job');
    assert.equal(jobs, MAX_CHILDREN_PER_OWNER);
    // A second, equally hostile JobSet next to it is bounded on its own.
    f.store.create(hugeJobSet('huge2', 3e9, true));
    await f.settle();
    assert.equal(f.store.count('batch/v1', 'Job'), 2 * MAX_CHILDREN_PER_OWNER);
    assert.ok(Date.now() - t0 < 120_000, 'bounded in time too');
    assert.ok(process.memoryUsage().heapUsed - heapBefore < 1024 * 1024 * 1024, 'bounded in memory');
    const events = f.list('v1', 'Event').filter((e) => (e.involvedObject as { name?: string }).name === 'huge');
    assert.equal(events.length, 1);
    const ev = events[0] as KubeObject & { reason: string; type: string; message: string; count: number };
    assert.equal(ev.reason, 'JobCreationFailed');
    assert.ok(ev.count >= 1 && ev.count <= 25, `count ${ev.count}: the recorder's spam filter`);
    assert.equal(ev.type, 'Warning');
    assert.match(ev.message, /^not creating Job huge-w-10000: JobSet default\/huge already has 10000 of them/);
    assert.ok(f.get('v1', 'Service', 'huge'), 'the headless Service is still there');
    // The JobSet itself is still reconciled (status written, suspended).
    const js = f.get('jobset.x-k8s.io/v1alpha2', 'JobSet', 'huge')!;
    assert.equal(((js.status as { conditions?: Array<{ type: string; status: string }> }).conditions ?? []).find((c) => c.type === 'Suspended')?.status, 'True');
  } finally {
    f.stop();
  }
});

test('a ReplicaSet asking for 1e15 pods gets 10000 and a FailedCreate event', async () => {
  const f = fixture({ maxReconcilesPerSettle: 5_000_000, pools: [] });
  try {
    f.store.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'many', namespace: 'default' },
      spec: { replicas: 1e15, selector: { matchLabels: { app: 'many' } }, template: { metadata: { labels: { app: 'many' } }, spec: { containers: [container('c', { cpu: '1' })] } } },
    });
    await f.settle();
    assert.equal(f.store.count('v1', 'Pod'), MAX_CHILDREN_PER_OWNER);
    const ev = f.list('v1', 'Event').find((e) => (e.involvedObject as { name?: string }).name === 'many') as (KubeObject & { reason: string }) | undefined;
    assert.equal(ev?.reason, 'FailedCreate');
  } finally {
    f.stop();
  }
});
