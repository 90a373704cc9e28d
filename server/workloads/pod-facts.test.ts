import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventItem, newestFirst, podConditions, podContainers } from './pod-facts.ts';

test('containers: init first, current and last state, restarts, own GPUs', () => {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
    spec: {
      initContainers: [{ name: 'fetch', image: 'busybox' }],
      containers: [{ name: 'trainer', image: 'pytorch:2', resources: { limits: { 'nvidia.com/gpu': '8' } } }, { name: 'sidecar', image: 'envoy' }],
    },
    status: {
      initContainerStatuses: [{ name: 'fetch', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2026-12-03T10:00:00Z', finishedAt: '2026-12-03T10:00:05Z' } } }],
      containerStatuses: [{ name: 'trainer', ready: true, restartCount: 2, image: 'pytorch:2', state: { running: { startedAt: '2026-12-03T10:05:00Z' } }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }],
    },
  };
  const cs = podContainers(pod);
  assert.deepEqual(cs.map((c) => [c.name, c.init, c.current.state, c.restarts]), [['fetch', true, 'terminated', 0], ['trainer', false, 'running', 2], ['sidecar', false, 'unknown', 0]]);
  assert.deepEqual(cs[1].last, { state: 'terminated', reason: 'OOMKilled', message: null, exitCode: 137, startedAt: null, finishedAt: null });
  assert.deepEqual(cs[1].gpus, { 'nvidia.com/gpu': 8 });
  assert.deepEqual(cs[2].gpus, {});
  assert.equal(cs[0].current.finishedAt, '2026-12-03T10:00:05Z');
});

test('conditions keep their reason, message and transition time', () => {
  const c = podConditions({ status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available\n', lastTransitionTime: '2026-12-03T10:00:00Z' }] } });
  assert.deepEqual(c, [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available', lastTransitionTime: '2026-12-03T10:00:00Z' }]);
});

test('core v1 and events.k8s.io/v1 events read alike', () => {
  const core = eventItem({ type: 'Warning', reason: 'FailedScheduling', message: '0/3 nodes', count: 4, firstTimestamp: '2026-12-03T10:00:00Z', lastTimestamp: '2026-12-03T10:03:00Z', involvedObject: { kind: 'Pod', name: 'p', uid: 'u1' }, source: { component: 'default-scheduler' } });
  assert.deepEqual(core, { type: 'Warning', reason: 'FailedScheduling', message: '0/3 nodes', count: 4, first: '2026-12-03T10:00:00Z', last: '2026-12-03T10:03:00Z', object: { kind: 'Pod', name: 'p', uid: 'u1' }, source: 'default-scheduler' });
  const v1 = eventItem({ type: 'Normal', reason: 'Scheduled', note: 'Successfully assigned ns/p to n1', eventTime: '2026-12-03T10:04:00.000000Z', series: { count: 2, lastObservedTime: '2026-12-03T10:05:00.000000Z' }, regarding: { kind: 'Pod', name: 'p', uid: 'u1' }, reportingController: 'default-scheduler' });
  assert.equal(v1.message, 'Successfully assigned ns/p to n1');
  assert.equal(v1.count, 2);
  assert.equal(v1.last, '2026-12-03T10:05:00.000000Z');
  assert.equal(v1.source, 'default-scheduler');
  assert.deepEqual([core, v1].sort(newestFirst).map((e) => e.reason), ['Scheduled', 'FailedScheduling']);
});

test('at the same time, warnings come first', () => {
  const at = '2026-12-03T10:00:00Z';
  const a = eventItem({ type: 'Normal', reason: 'Started', lastTimestamp: at });
  const b = eventItem({ type: 'Warning', reason: 'BackOff', lastTimestamp: at });
  assert.deepEqual([a, b].sort(newestFirst).map((e) => e.reason), ['BackOff', 'Started']);
});
