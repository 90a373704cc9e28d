/**
 * `pods/log` against real clients: kubectl 1.32 (`logs`, `-c`, `--previous`, `--tail`, `-f`,
 * `--timestamps`) and @kubernetes/client-node (readNamespacedPodLog, the Log follower), plus the raw
 * API's parameters and errors, on a simulator whose clock runs 20× so that logs grow while we watch.
 */

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import type { SimHandle } from '../index.ts';
import { openFollowStreams } from './handlers/pod-log.ts';
import { NO_LOGS, NS, podOf, startLifecycleSim } from './lifecycle-fixture.ts';
import { Kubectl, cleanupTempDirs, eventually, kubeconfigFor, kubectlSkip, raw } from './test-support.ts';

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z) /;

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

function logPath(pod: string, query = ''): string {
  return `/api/v1/namespaces/${NS}/pods/${pod}/log${query ? `?${query}` : ''}`;
}

describe('pods/log on the simulated kubelet', () => {
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

  /** A previous run's full log and its tail, read while that run stays the previous one. */
  async function stablePrevious(pod: string, fetchTail: () => Promise<string>): Promise<{ full: string[]; tail: string[] }> {
    for (let i = 0; i < 10; i++) {
      const id = podOf(sim, pod).status?.containerStatuses?.[0]?.lastState.terminated?.containerID;
      const full = await raw(sim, 'GET', logPath(pod, 'previous=true'));
      const tail = await fetchTail();
      if (podOf(sim, pod).status?.containerStatuses?.[0]?.lastState.terminated?.containerID === id && full.status === 200) return { full: lines(full.body), tail: lines(tail) };
    }
    throw new Error('the previous run kept changing');
  }

  it('training pods print step, loss falling over time, learning rate and tokens/s (kubectl logs)', { skip: kubectlSkip }, async () => {
    await eventually(async () => lines((await raw(sim, 'GET', logPath('trainer'))).body).filter((l) => / step \d+/.test(l)).length >= 8, 20_000, 'training lines');
    const out = lines(await k.ok(['logs', 'trainer', '-n', NS]));
    assert.match(out[0], /initializing process group backend=nccl rank=0/);
    const steps = out.map((l) => /step (\d+)\/20000 \| loss ([\d.]+) \| lr ([\d.e+-]+) \| grad_norm [\d.]+ \| tokens\/s (\d+)/.exec(l)).filter((m) => m !== null);
    assert.ok(steps.length >= 8, `${steps.length} step lines`);
    const first = steps[0]!;
    const last = steps[steps.length - 1]!;
    assert.ok(Number(last[1]) > Number(first[1]), 'steps advance');
    assert.ok(Number(last[2]) < Number(first[2]), `loss falls: ${first[2]} → ${last[2]}`);
    assert.ok(Number(last[4]) > 1000, 'tokens per second');
  });

  it('--tail=5 gives exactly the last five lines; --previous the crashed run, ending in its traceback', { skip: kubectlSkip }, async () => {
    const { full, tail } = await stablePrevious('crasher', () => k.ok(['logs', 'crasher', '-n', NS, '--previous', '--tail=5']));
    assert.equal(tail.length, 5);
    assert.deepEqual(tail, full.slice(-5));
    assert.equal(full[full.length - 1], "KeyError: 'CONFIG_PATH'");
    assert.ok(full.includes('Traceback (most recent call last):'));
    const st = podOf(sim, 'crasher').status!.containerStatuses![0];
    assert.ok(st.restartCount >= 1);
    assert.equal(st.lastState.terminated?.exitCode, 1);
    assert.equal(st.lastState.terminated?.reason, 'Error');
  });

  it('the OOM-killed container was restarted; its previous log ends at the memory limit, with no traceback', { skip: kubectlSkip }, async () => {
    const st = podOf(sim, 'oom').status!.containerStatuses![0];
    assert.ok(st.restartCount >= 1);
    assert.equal(st.lastState.terminated?.reason, 'OOMKilled');
    assert.equal(st.lastState.terminated?.exitCode, 137);
    const out = lines(await k.ok(['logs', 'oom', '-n', NS, '--previous']));
    assert.match(out[out.length - 1], /WARN indexer: memory usage at 98% of the container limit/);
    assert.ok(!out.some((l) => l.startsWith('Traceback')));
  });

  it('-c picks a container of a multi-container pod; without it the API names the choices', { skip: kubectlSkip }, async () => {
    await eventually(() => podOf(sim, 'multi').status?.phase === 'Running', 10_000, 'multi running');
    const b = await k.ok(['logs', 'multi', '-n', NS, '-c', 'b']);
    assert.match(lines(b)[0], /INFO b: starting \(image nginx:1\.27\)/);
    const r = await raw(sim, 'GET', logPath('multi'));
    assert.equal(r.status, 400);
    assert.equal((JSON.parse(r.body) as { message: string }).message, 'a container name must be specified for pod multi, choose one of: [a b]');
    const bad = await raw(sim, 'GET', logPath('multi', 'container=c'));
    assert.equal((JSON.parse(bad.body) as { message: string }).message, 'container c is not valid for pod multi');
    // kubectl itself defaults to the first container and says so.
    const def = await k.run(['logs', 'multi', '-n', NS]);
    assert.equal(def.code, 0);
    assert.match(def.stderr, /Defaulted container "a" out of: a, b/);
  });

  it('answers like the kubelet when there is no such run: waiting containers, no previous run, unscheduled pods', { skip: kubectlSkip }, async () => {
    const creating = await k.run(['logs', 'creating', '-n', NS]);
    assert.notEqual(creating.code, 0);
    assert.match(creating.stderr, /Error from server \(BadRequest\): container "main" in pod "creating" is waiting to start: ContainerCreating/);
    const prev = await k.run(['logs', 'trainer', '-n', NS, '--previous']);
    assert.match(prev.stderr, /previous terminated container "pytorch" in pod "trainer" not found/);
    const pending = await raw(sim, 'GET', logPath('pending'));
    assert.equal(pending.status, 200, 'an unscheduled pod has an empty log, as the API server answers');
    assert.equal(pending.body, '');
    const missing = await raw(sim, 'GET', logPath('nope'));
    assert.equal(missing.status, 404);
  });

  it('timestamps are RFC3339Nano prefixes in order; sinceSeconds, sinceTime and limitBytes cut as asked', async () => {
    const r = await raw(sim, 'GET', logPath('trainer', 'timestamps=true'));
    const ls = lines(r.body);
    const times = ls.map((l) => STAMP.exec(l)?.[1]);
    assert.ok(times.every((t) => t !== undefined), 'every line has a timestamp');
    const ms = times.map((t) => Date.parse(t!));
    for (let i = 1; i < ms.length; i++) assert.ok(ms[i] >= ms[i - 1], 'in order');
    const startedAt = Date.parse(podOf(sim, 'trainer').status!.containerStatuses![0].state.running!.startedAt);
    assert.ok(ms[0] >= startedAt && ms[0] < startedAt + 1000, 'the log starts when the container started');

    const asked = sim.now();
    const since = lines((await raw(sim, 'GET', logPath('trainer', 'timestamps=true&sinceSeconds=10'))).body);
    assert.ok(since.length > 0 && since.length < ls.length);
    for (const l of since) assert.ok(Date.parse(STAMP.exec(l)![1]) >= asked - 10_000 - 1000, `${l} is within the last 10 s`);
    const cut = ms[Math.floor(ms.length / 2)];
    const fromTime = lines((await raw(sim, 'GET', logPath('trainer', `timestamps=true&sinceTime=${new Date(cut).toISOString()}`))).body);
    assert.ok(Date.parse(STAMP.exec(fromTime[0])![1]) >= Math.floor(cut / 1000) * 1000);

    const limited = await raw(sim, 'GET', logPath('trainer', 'limitBytes=100'));
    assert.equal(Buffer.byteLength(limited.body), 100);
    const both = await raw(sim, 'GET', logPath('trainer', 'sinceSeconds=5&sinceTime=2020-01-01T00:00:00Z'));
    assert.equal(both.status, 422);
    assert.equal((await raw(sim, 'GET', logPath('trainer', 'tailLines=-1'))).status, 422);
  });

  it('kubectl logs -f keeps sending lines as simulated time passes, and the stream ends with the client', { skip: kubectlSkip }, async () => {
    const before = Date.parse(STAMP.exec(lines((await raw(sim, 'GET', logPath('trainer', 'timestamps=true&tailLines=1'))).body)[0])![1]);
    const child = k.spawn(['logs', '-f', 'trainer', '-n', NS, '--tail=1', '--timestamps']);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    try {
      await eventually(() => lines(out).length >= 6, 10_000, 'followed lines');
      const got = lines(out).map((l) => Date.parse(STAMP.exec(l)![1]));
      assert.ok(got[got.length - 1] > before, 'lines newer than when the stream opened');
      assert.equal(openFollowStreams(), 1);
    } finally {
      child.kill('SIGINT');
    }
    await eventually(() => openFollowStreams() === 0, 5_000, 'the follow stream to close with its client');
  });

  it('a followed container that exits ends the stream with its last lines', async () => {
    await eventually(() => !!podOf(sim, 'crasher').status?.containerStatuses?.[0]?.state.running, 20_000, 'crasher running again');
    const asked = sim.now();
    const r = await raw(sim, 'GET', logPath('crasher', 'follow=true&timestamps=true'));
    assert.equal(r.status, 200);
    const ls = lines(r.body);
    assert.match(ls[ls.length - 1], /Z KeyError: 'CONFIG_PATH'$/);
    assert.ok(Date.parse(STAMP.exec(ls[ls.length - 1])![1]) > asked, 'the ending came after the request, through the open stream');
    assert.equal(openFollowStreams(), 0);
  });

  it('is authorized as the pods/log subresource', { skip: kubectlSkip }, async () => {
    const carol = new Kubectl(kubeconfigFor(sim, NO_LOGS));
    const r = await carol.run(['logs', 'trainer', '-n', NS]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Forbidden/);
    assert.match(r.stderr, /pods\/log/);
    await carol.ok(['get', 'pod', 'trainer', '-n', NS]);
  });

  it('@kubernetes/client-node: readNamespacedPodLog with tailLines, and the Log follower', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const text = await core.readNamespacedPodLog({ name: 'trainer', namespace: NS, tailLines: 3 });
    assert.equal(lines(text).length, 3);
    assert.match(lines(text)[2], / step \d+\/20000 \| loss /);
    let got = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        got += chunk.toString('utf8');
        cb();
      },
    });
    const abort = await new k8s.Log(kc).log(NS, 'trainer', 'pytorch', sink, { follow: true, tailLines: 0 });
    try {
      await eventually(() => lines(got).length >= 3, 10_000, 'followed lines through client-node');
    } finally {
      abort.abort();
    }
    await eventually(() => openFollowStreams() === 0, 5_000, 'the follow stream to close');
  });
});
