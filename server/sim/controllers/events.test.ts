/**
 * The Events and container states the simulated scheduler and kubelet leave, on a manual clock:
 * FailedScheduling as a growing series then Scheduled, gated and gang-waiting pods, the kubelet's
 * start / crash-loop / OOM-kill sequence with restart counts and back-off, Killing on deletion, and
 * Events expiring an hour after their last write.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../store/object-store.ts';
import { startEventTtl } from '../store/event-ttl.ts';
import { SIM } from './pods.ts';
import { GANG_LABEL } from './scheduler.ts';
import { cond, container, fixture } from './testing.ts';
import type { Pod } from './types.ts';

function pod(name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations, labels }, spec: { restartPolicy: 'Always', ...spec }, status: { phase: 'Pending' } };
}

const gpuTol = [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }];

type Ev = KubeObject & { reason: string; message: string; type: string; count?: number; series?: { count: number }; involvedObject: { name: string; kind: string; fieldPath?: string } };

function eventsOf(list: KubeObject[], name: string): Ev[] {
  return (list as Ev[]).filter((e) => e.involvedObject.name === name);
}

test('scheduler: one FailedScheduling event whose series grows on retries, then Scheduled when capacity frees', async () => {
  const f = fixture();
  try {
    // Two 8-GPU nodes: a 16-GPU holder leaves no room for the waiter.
    f.store.create(pod('holder-a', { tolerations: gpuTol, restartPolicy: 'Never', containers: [container('c', { 'nvidia.com/gpu': 8 })] }, { [SIM.duration]: '120s' }));
    f.store.create(pod('holder-b', { tolerations: gpuTol, restartPolicy: 'Never', containers: [container('c', { 'nvidia.com/gpu': 8 })] }, { [SIM.duration]: '300s' }));
    await f.run(5_000);
    f.store.create(pod('waiter', { tolerations: gpuTol, containers: [container('c', { 'nvidia.com/gpu': 8 })] }));
    await f.run(5_000);
    let evs = eventsOf(f.list('v1', 'Event'), 'waiter');
    assert.deepEqual(evs.map((e) => e.reason), ['FailedScheduling']);
    const failed = evs[0];
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.reportingComponent, 'default-scheduler');
    assert.deepEqual(failed.source, {});
    assert.equal(failed.message, cond(f.get('v1', 'Pod', 'waiter'), 'PodScheduled')?.message);
    assert.equal(failed.message, '0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.');
    // A pod of another shape finishing frees capacity: the waiter is retried (and still does not fit).
    f.store.create(pod('cpu-job', { restartPolicy: 'Never', containers: [container('c', { cpu: '1' })] }, { [SIM.duration]: '10s' }));
    await f.run(20_000);
    await f.run(15_000);
    evs = eventsOf(f.list('v1', 'Event'), 'waiter');
    assert.equal(evs.length, 1, 'repeats are one Event');
    assert.ok((evs[0].series?.count ?? 0) >= 2, `series ${JSON.stringify(evs[0].series)}`);
    // holder-a ends about 120 s in: the waiter binds.
    await f.run(90_000);
    const bound = f.get('v1', 'Pod', 'waiter') as Pod;
    assert.ok(bound.spec.nodeName);
    const scheduled = eventsOf(f.list('v1', 'Event'), 'waiter').find((e) => e.reason === 'Scheduled');
    assert.equal(scheduled?.message, `Successfully assigned default/waiter to ${bound.spec.nodeName}`);
    assert.equal(scheduled?.action, 'Binding');
    assert.match(String(scheduled?.eventTime), /\.\d{6}Z$/);
  } finally {
    f.stop();
  }
});

test('scheduler: gated pods say SchedulingGated with no event; gang members say they wait for their gang', async () => {
  const f = fixture();
  try {
    f.store.create(pod('gated', { schedulingGates: [{ name: 'example.com/hold' }], containers: [container('c', { cpu: '1' })] }));
    const gang = { [GANG_LABEL]: 'g-0' };
    f.store.create(pod('g-a', { containers: [container('c', { cpu: '1' })] }, {}, gang));
    f.store.create(pod('g-b', { schedulingGates: [{ name: 'grove.io/podgang-pending-creation' }], containers: [container('c', { cpu: '1' })] }, {}, gang));
    await f.run(3_000);
    const gated = cond(f.get('v1', 'Pod', 'gated'), 'PodScheduled');
    assert.deepEqual([gated?.status, gated?.reason, gated?.message], ['False', 'SchedulingGated', 'Scheduling is blocked due to non-empty scheduling gates']);
    assert.equal(eventsOf(f.list('v1', 'Event'), 'gated').length, 0);
    const waiting = cond(f.get('v1', 'Pod', 'g-a'), 'PodScheduled');
    assert.equal(waiting?.reason, 'SchedulingGated');
    assert.equal(waiting?.message, 'waiting for pod gang g-0: 1 of its 2 pods are still gated (grove.io/podgang-pending-creation)');
  } finally {
    f.stop();
  }
});

test('kubelet: Pulling → Pulled → Created → Started, then a crash loop with restarts, back-off doubling and BackOff events', async () => {
  const f = fixture({ podStartup: 2000 });
  try {
    f.store.create(pod('crash', { containers: [container('main', { cpu: '1' })] }, { [SIM.duration]: '20s', [SIM.exitCode]: '1' }));
    await f.run(10_000);
    let evs = eventsOf(f.list('v1', 'Event'), 'crash');
    assert.deepEqual(evs.map((e) => e.reason).sort(), ['Created', 'Pulled', 'Pulling', 'Scheduled', 'Started']);
    const started = evs.find((e) => e.reason === 'Started')!;
    assert.deepEqual(started.source, { component: 'kubelet', host: (f.get('v1', 'Pod', 'crash') as Pod).spec.nodeName });
    assert.equal(started.involvedObject.fieldPath, 'spec.containers{main}');
    assert.equal(evs.find((e) => e.reason === 'Created')?.message, 'Created container: main');
    assert.match(evs.find((e) => e.reason === 'Pulled')!.message, /^Successfully pulled image "registry\.example\.com\/main:1\.0" in 2s \(2s including waiting\)\. Image size: \d+ bytes\.$/);
    // 20 s after the start the container exits 1: CrashLoopBackOff with a 10 s back-off.
    await f.run(15_000);
    let p = f.get('v1', 'Pod', 'crash') as Pod;
    let st = p.status!.containerStatuses![0];
    assert.equal(st.restartCount, 1);
    assert.equal(st.state.waiting?.reason, 'CrashLoopBackOff');
    assert.equal(st.state.waiting?.message, `back-off 10s restarting failed container=main pod=crash_default(${p.metadata.uid})`);
    assert.deepEqual([st.lastState.terminated?.exitCode, st.lastState.terminated?.reason], [1, 'Error']);
    assert.ok(st.lastState.terminated?.startedAt && st.lastState.terminated.finishedAt);
    evs = eventsOf(f.list('v1', 'Event'), 'crash');
    assert.equal(evs.find((e) => e.reason === 'BackOff')?.message, `Back-off restarting failed container main in pod crash_default(${p.metadata.uid})`);
    // Restarted after the back-off; the second crash backs off 20 s; repeats count on the same Events.
    await f.run(40_000);
    p = f.get('v1', 'Pod', 'crash') as Pod;
    st = p.status!.containerStatuses![0];
    assert.equal(st.restartCount, 2);
    assert.match(st.state.waiting?.message ?? '', /^back-off 20s restarting failed container=main /);
    evs = eventsOf(f.list('v1', 'Event'), 'crash');
    assert.equal(evs.find((e) => e.reason === 'Started')?.count, 2);
    assert.equal(evs.find((e) => e.reason === 'BackOff')?.count, 2);
    assert.equal(evs.find((e) => e.message === 'Container image "registry.example.com/main:1.0" already present on machine')?.count, 1);
  } finally {
    f.stop();
  }
});

test('kubelet: an OOM kill is lastState OOMKilled / 137 and a kernel-monitor OOMKilling event on the node; deletion records Killing', async () => {
  const f = fixture({ podStartup: 2000 });
  try {
    f.store.create(pod('oom', { containers: [container('worker', { cpu: '1', memory: '2Gi' })] }, { [SIM.duration]: '20s', [SIM.exitCode]: '137', [SIM.exitReason]: 'OOMKilled' }));
    await f.run(25_000);
    const p = f.get('v1', 'Pod', 'oom') as Pod;
    const st = p.status!.containerStatuses![0];
    assert.deepEqual([st.restartCount, st.lastState.terminated?.reason, st.lastState.terminated?.exitCode], [1, 'OOMKilled', 137]);
    const node = eventsOf(f.list('v1', 'Event'), p.spec.nodeName!).find((e) => e.reason === 'OOMKilling');
    assert.equal(node?.involvedObject.kind, 'Node');
    assert.equal(node?.type, 'Warning');
    assert.deepEqual(node?.source, { component: 'kernel-monitor', host: p.spec.nodeName });
    assert.match(node!.message, /^Memory cgroup out of memory: Killed process \d+ \(main\) total-vm:\d+kB, anon-rss:(\d+)kB/);
    assert.ok(Number(/anon-rss:(\d+)kB/.exec(node!.message)![1]) > 2_000_000, 'close to the 2Gi limit');
    // Running again, then deleted: the kubelet stops the container.
    await f.run(15_000);
    f.store.delete('v1', 'Pod', 'default', 'oom', { gracePeriodSeconds: 30 });
    await f.run(1_000);
    const reasons = eventsOf(f.list('v1', 'Event'), 'oom').map((e) => `${e.reason}: ${e.message}`);
    assert.ok(reasons.includes('Killing: Stopping container worker'), reasons.join('\n'));
  } finally {
    f.stop();
  }
});

test('Events expire an hour after their last write; a busy scheduler writes a bounded number of series updates', async () => {
  const f = fixture();
  try {
    const ttl = startEventTtl(f.store, { now: () => f.clock.now(), every: (fn, ms) => f.clock.setInterval(fn, ms) });
    f.store.create(pod('never', { tolerations: gpuTol, containers: [container('c', { 'nvidia.com/gpu': 64 })] }));
    await f.run(2_000);
    const writesBefore = f.ctl.runtime.writes;
    // Hammer the scheduler with retries within one 30 s window: one series write at most.
    for (let i = 0; i < 200; i++) f.ctl.runtime.enqueue('scheduler', 'default', 'never');
    await f.settle();
    assert.ok(f.ctl.runtime.writes - writesBefore <= 1, `${f.ctl.runtime.writes - writesBefore} writes`);
    assert.equal(eventsOf(f.list('v1', 'Event'), 'never').length, 1);
    f.store.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'old', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'x' }, reason: 'R', message: 'm', type: 'Normal', lastTimestamp: f.clock.iso(), count: 1 });
    await f.run(59 * 60_000, 60_000);
    assert.ok(f.get('v1', 'Event', 'old'), 'kept within the hour');
    await f.run(2 * 60_000, 60_000);
    assert.equal(f.get('v1', 'Event', 'old'), undefined, 'gone after the hour');
    ttl.stop();
  } finally {
    f.stop();
  }
});
