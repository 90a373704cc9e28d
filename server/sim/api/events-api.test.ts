/**
 * Events as clients read them: `kubectl get events` (-A, --field-selector), `kubectl events` (the
 * events.k8s.io API), `kubectl describe pod` (its Events section and container states), watches of both
 * APIs with field selectors, and @kubernetes/client-node's CoreV1 and EventsV1 clients — on pods the
 * simulated scheduler and kubelet really moved through pending, crash loops and OOM kills.
 */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import type { SimHandle } from '../index.ts';
import { NS, podOf, startLifecycleSim } from './lifecycle-fixture.ts';
import { Kubectl, cleanupTempDirs, eventually, kubectlSkip, openWatch, raw } from './test-support.ts';

// 64 GPUs fit neither the 8-GPU node nor the CPU node (which has none): both lack the resource.
const NO_GPU = /^0\/2 nodes are available: 2 Insufficient nvidia\.com\/gpu\. preemption: 0\/2 nodes are available: 2 No preemption victims found for incoming pod\.$/;

describe('Events of the simulated cluster through the core and events.k8s.io APIs', () => {
  let sim: SimHandle;
  let k: Kubectl;

  before(async () => {
    sim = await startLifecycleSim();
    k = new Kubectl(sim.kubeconfigPath);
  });

  after(async () => {
    await sim?.stop();
    cleanupTempDirs();
  });

  it('the unschedulable pod: PodScheduled=False with kube-scheduler\'s message, and one FailedScheduling event', async () => {
    const c = podOf(sim, 'pending').status?.conditions?.find((x) => x.type === 'PodScheduled');
    assert.equal(c?.status, 'False');
    assert.equal(c?.reason, 'Unschedulable');
    assert.match(c?.message ?? '', NO_GPU);
    const evs = sim.store.list('v1', 'Event', { namespace: NS }).filter((e) => (e.involvedObject as { name: string }).name === 'pending');
    assert.deepEqual(evs.map((e) => e.reason), ['FailedScheduling']);
    const e = evs[0];
    assert.equal(e.type, 'Warning');
    assert.equal(e.reportingComponent, 'default-scheduler');
    assert.equal(e.action, 'Scheduling');
    assert.match(String(e.eventTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(e.message, c?.message);
  });

  it('kubectl get events -A and --field-selector involvedObject.name / reason / type', { skip: kubectlSkip }, async () => {
    const all = await k.ok(['get', 'events', '-A']);
    assert.match(all.split('\n')[0], /^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    assert.match(all, /Warning\s+FailedScheduling\s+pod\/pending\s+0\/2 nodes are available: 2 Insufficient nvidia\.com\/gpu/);
    assert.match(all, /Normal\s+Scheduled\s+pod\/trainer\s+Successfully assigned life\/trainer to gpu-h100-00/);
    const started = (): number => Number(sim.store.list('v1', 'Event', { namespace: NS }).find((e) => e.reason === 'Started' && (e.involvedObject as { name: string }).name === 'crasher')?.count ?? 0);
    await eventually(() => started() >= 2, 20_000, 'crasher started twice');
    const crasher = await k.ok(['get', 'events', '-n', NS, '--field-selector', 'involvedObject.name=crasher']);
    const reasons = new Set(crasher.trim().split('\n').slice(1).map((l) => /\s(?:Normal|Warning)\s+(\S+)\s/.exec(l)?.[1]));
    for (const r of ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started', 'BackOff']) assert.ok(reasons.has(r), `${r} in ${[...reasons].join(',')}`);
    assert.match(crasher, /Back-off restarting failed container main in pod crasher_life\([0-9a-f-]{36}\)/);
    // Repeats are one Event with a count, shown as "(xN over …)".
    assert.match(crasher, /\(x\d+ over [^)]+\)\s+Normal\s+Started\s+pod\/crasher\s+Started container main/);
    const warnings = await k.ok(['get', 'events', '-n', NS, '--field-selector', 'type=Warning,reason=BackOff', '-o', 'json']);
    const items = (JSON.parse(warnings) as { items: Array<{ reason: string; type: string; source: { component: string; host: string }; count: number }> }).items;
    assert.ok(items.length >= 2, 'crasher and oom back off');
    for (const i of items) {
      assert.equal(i.reason, 'BackOff');
      assert.deepEqual(i.source, { component: 'kubelet', host: 'cpu-00' });
    }
    const bad = await k.run(['get', 'events', '-n', NS, '--field-selector', 'involvedObject.color=red']);
    assert.match(bad.stderr, /field label not supported: involvedObject\.color/);
  });

  it('the OOM kill: the node-problem-detector\'s OOMKilling event on the node', async () => {
    const ev = sim.store.list('v1', 'Event', { namespace: 'default' }).find((e) => e.reason === 'OOMKilling');
    assert.ok(ev, 'an OOMKilling event');
    assert.equal((ev.involvedObject as { kind: string; name: string }).kind, 'Node');
    assert.equal((ev.involvedObject as { name: string }).name, podOf(sim, 'oom').spec.nodeName);
    assert.deepEqual(ev.source, { component: 'kernel-monitor', host: 'cpu-00' });
    assert.match(String(ev.message), /^Memory cgroup out of memory: Killed process \d+ \(python3\) total-vm:\d+kB, anon-rss:\d+kB/);
  });

  it('kubectl describe pod: container states with restarts and exit codes, and the Events section', { skip: kubectlSkip }, async () => {
    const crash = await k.ok(['describe', 'pod', 'crasher', '-n', NS]);
    assert.match(crash, /Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+1\n/);
    assert.match(crash, /Restart Count:\s+[1-9]/);
    assert.match(crash, /Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message/);
    assert.match(crash, /Normal\s+Scheduled\s+.*\s+default-scheduler\s+Successfully assigned life\/crasher to cpu-00/);
    assert.match(crash, /Warning\s+BackOff\s+.*kubelet\s+Back-off restarting failed container main in pod crasher_life/);
    const oom = await k.ok(['describe', 'pod', 'oom', '-n', NS]);
    assert.match(oom, /Last State:\s+Terminated\n\s+Reason:\s+OOMKilled\n\s+Exit Code:\s+137\n/);
    const pending = await k.ok(['describe', 'pod', 'pending', '-n', NS]);
    assert.match(pending, /PodScheduled\s+False/);
    // (Ages are kubectl's own clock against the 20× simulated one: not asserted.)
    assert.match(pending, /Warning\s+FailedScheduling\s+.*\s+default-scheduler\s+0\/2 nodes are available: 2 Insufficient nvidia\.com\/gpu/);
  });

  it('kubectl events reads events.k8s.io/v1, with --for and --types', { skip: kubectlSkip }, async () => {
    const out = await k.ok(['events', '-n', NS, '--for', 'pod/pending']);
    assert.match(out.split('\n')[0], /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    assert.match(out, /Warning\s+FailedScheduling\s+Pod\/pending\s+0\/2 nodes are available/);
    const warnings = await k.ok(['events', '-n', NS, '--types=Warning']);
    assert.ok(!/\bNormal\b/.test(warnings));
    assert.match(warnings, /BackOff/);
  });

  it('events.k8s.io/v1 shows the same objects with the new field names; both APIs watch with field selectors', async () => {
    const uid = podOf(sim, 'pending').metadata.uid!;
    const v1 = await raw(sim, 'GET', `/apis/events.k8s.io/v1/namespaces/${NS}/events?fieldSelector=regarding.name=pending,reason=FailedScheduling`);
    assert.equal(v1.status, 200);
    const list = JSON.parse(v1.body) as { kind: string; apiVersion: string; items: Array<Record<string, unknown>> };
    assert.equal(list.kind, 'EventList');
    assert.equal(list.apiVersion, 'events.k8s.io/v1');
    assert.equal(list.items.length, 1);
    const e = list.items[0] as { regarding: { uid: string; kind: string }; note: string; reportingController: string; reportingInstance: string; action: string; type: string; message?: string; involvedObject?: unknown };
    assert.equal(e.regarding.uid, uid);
    assert.equal(e.regarding.kind, 'Pod');
    assert.match(e.note, NO_GPU);
    assert.equal(e.reportingController, 'default-scheduler');
    assert.equal(e.reportingInstance, 'default-scheduler-sim-control-plane');
    assert.equal(e.action, 'Scheduling');
    assert.equal(e.message, undefined, 'no core field names');
    assert.equal(e.involvedObject, undefined);
    const kubelet = JSON.parse((await raw(sim, 'GET', `/apis/events.k8s.io/v1/namespaces/${NS}/events?fieldSelector=regarding.name=crasher,reportingController=kubelet`)).body) as { items: Array<{ deprecatedSource: unknown; deprecatedCount: number; eventTime: unknown }> };
    assert.ok(kubelet.items.length >= 5);
    assert.deepEqual(kubelet.items[0].deprecatedSource, { component: 'kubelet', host: 'cpu-00' });
    assert.ok(kubelet.items.every((i) => i.deprecatedCount >= 1 && i.eventTime === null));

    // A new event arrives on both watches, each in its API's shape.
    const core = openWatch(sim, `/api/v1/namespaces/${NS}/events?watch=true&fieldSelector=involvedObject.uid=${uid}&resourceVersion=${sim.store.resourceVersion()}`);
    const neu = openWatch(sim, `/apis/events.k8s.io/v1/namespaces/${NS}/events?watch=true&fieldSelector=regarding.uid=${uid}&resourceVersion=${sim.store.resourceVersion()}`);
    try {
      await eventually(() => sim.openWatches() >= 2, 5000, 'watches open');
      sim.store.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'pending.manual', namespace: NS }, involvedObject: { kind: 'Pod', name: 'pending', namespace: NS, uid, apiVersion: 'v1' }, reason: 'Nudged', message: 'by a test', type: 'Normal', source: { component: 'test' }, count: 1 });
      sim.store.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'other.manual', namespace: NS }, involvedObject: { kind: 'Pod', name: 'trainer', namespace: NS, uid: 'x', apiVersion: 'v1' }, reason: 'Nudged', message: 'elsewhere', type: 'Normal', count: 1 });
      await core.waitFor(1);
      await neu.waitFor(1);
      assert.deepEqual(core.events.map((x) => [x.type, x.object.reason, x.object.message]), [['ADDED', 'Nudged', 'by a test']]);
      assert.deepEqual(neu.events.map((x) => [x.type, x.object.apiVersion, x.object.reason, x.object.note]), [['ADDED', 'events.k8s.io/v1', 'Nudged', 'by a test']]);
    } finally {
      core.close();
      neu.close();
    }
  });

  it('events.k8s.io/v1 is in discovery (read verbs) and refuses writes', { skip: kubectlSkip }, async () => {
    const out = await k.ok(['api-resources', '--api-group=events.k8s.io', '-o', 'wide', '--no-headers']);
    assert.match(out, /^events\s+ev\s+events\.k8s\.io\/v1\s+true\s+Event\s+get,list,watch/m);
    const post = await raw(sim, 'POST', `/apis/events.k8s.io/v1/namespaces/${NS}/events`, { body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'x' } } });
    assert.equal(post.status, 405);
    const got = await k.ok(['get', 'events.v1.events.k8s.io', '-n', NS, '--field-selector', 'regarding.name=pending']);
    assert.match(got, /Warning\s+FailedScheduling\s+pod\/pending/);
  });

  it('@kubernetes/client-node: CoreV1 events by involvedObject.uid (as describe asks) and EventsV1 by regarding.name', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const uid = podOf(sim, 'crasher').metadata.uid!;
    const core = await kc.makeApiClient(k8s.CoreV1Api).listNamespacedEvent({ namespace: NS, fieldSelector: `involvedObject.name=crasher,involvedObject.namespace=${NS},involvedObject.kind=Pod,involvedObject.uid=${uid}` });
    assert.ok(core.items.some((e) => e.reason === 'BackOff' && (e.count ?? 0) >= 1));
    const ev1 = await kc.makeApiClient(k8s.EventsV1Api).listNamespacedEvent({ namespace: NS, fieldSelector: 'regarding.name=crasher' });
    assert.ok(ev1.items.some((e) => e.reason === 'Started' && e.note === 'Started container main' && e.regarding?.fieldPath === 'spec.containers{main}'));
  });
});
