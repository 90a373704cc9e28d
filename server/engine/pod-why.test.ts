import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podController, podWhy } from './pod-why.ts';
import type { KubeObject } from './k8s.ts';

const pod = (spec: Record<string, unknown>, status: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', uid: 'u', ...metadata },
  spec: { containers: [{ name: 'main' }], ...spec },
  status,
});

const UNSCHEDULABLE = '0/14 nodes are available: 8 Insufficient nvidia.com/gpu, 6 node(s) didn\'t match Pod\'s node affinity/selector. preemption: 0/14 nodes are available: 14 Preemption is not helpful for scheduling.';

test('an unschedulable pod gives the scheduler\'s own message', () => {
  const why = podWhy(pod({}, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: UNSCHEDULABLE }] }));
  assert.deepEqual(why, { kind: 'unschedulable', reason: 'Unschedulable', message: UNSCHEDULABLE });
});

test('a gated pod says which gates hold it, with or without the scheduler\'s condition', () => {
  const gates = { schedulingGates: [{ name: 'grove.io/podgang-pending-creation' }] };
  assert.deepEqual(podWhy(pod(gates, { phase: 'Pending' })), { kind: 'gated', reason: 'SchedulingGated', message: 'waiting for scheduling gates: grove.io/podgang-pending-creation' });
  const withCond = podWhy(pod(gates, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }] }));
  assert.equal(withCond?.kind, 'gated');
  assert.equal(withCond?.message, 'Scheduling is blocked due to non-empty scheduling gates');
});

test('a pod no scheduler looked at yet names the scheduler it waits for', () => {
  assert.equal(podWhy(pod({ schedulerName: 'kai-scheduler' }, { phase: 'Pending' }))?.message, 'waiting for kai-scheduler to place it');
  assert.equal(podWhy(pod({}, {}))?.kind, 'unscheduled');
});

test('a crash-looping container gives its back-off and how it ended last time', () => {
  const why = podWhy(pod({ nodeName: 'n1' }, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }],
    containerStatuses: [{ name: 'main', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=main pod=p_ns(u)' } }, lastState: { terminated: { reason: 'OOMKilled', exitCode: 137 } } }],
  }));
  assert.deepEqual(why, {
    kind: 'waiting',
    reason: 'CrashLoopBackOff',
    message: 'container main: CrashLoopBackOff: back-off 40s restarting failed container=main pod=p_ns(u) (last: OOMKilled (exit 137))',
    container: 'main',
    exitCode: 137,
  });
});

test('a failed pod names the container that exited non-zero, else the pod\'s reason', () => {
  const oom = podWhy(pod({ nodeName: 'n1' }, { phase: 'Failed', containerStatuses: [{ name: 'side', state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { name: 'main', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }] }));
  assert.deepEqual(oom, { kind: 'failed', reason: 'OOMKilled', message: 'container main ended: OOMKilled (exit 137)', container: 'main', exitCode: 137 });
  const evicted = podWhy(pod({ nodeName: 'n1' }, { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory. ' }));
  assert.deepEqual(evicted, { kind: 'failed', reason: 'Evicted', message: 'The node was low on resource: memory.' });
});

test('running and ready, or finished successfully: nothing to explain', () => {
  assert.equal(podWhy(pod({ nodeName: 'n1' }, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'main', state: { running: {} } }] })), null);
  assert.equal(podWhy(pod({ nodeName: 'n1' }, { phase: 'Succeeded' })), null);
});

test('running but not ready: the Ready condition\'s reason; bound without statuses: being created', () => {
  assert.deepEqual(podWhy(pod({ nodeName: 'n1' }, { phase: 'Running', conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [main]' }] })), {
    kind: 'unready', reason: 'ContainersNotReady', message: 'containers with unready status: [main]',
  });
  assert.equal(podWhy(pod({ nodeName: 'n1' }, { phase: 'Pending' }))?.reason, 'ContainerCreating');
});

test('the controller is the ownerReference marked controller, not merely the first', () => {
  const p = pod({}, {}, { ownerReferences: [{ kind: 'Node', name: 'x' }, { kind: 'Job', name: 'llama-finetune-workers-0', controller: true }] });
  assert.deepEqual(podController(p), { kind: 'Job', name: 'llama-finetune-workers-0' });
  assert.equal(podController(pod({}, {})), null);
});
