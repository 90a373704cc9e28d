/** `wmap describe` and `wmap logs` against the simulated cluster (its scheduler, kubelet and pods/log). */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startSim, type SimHandle, type KubeObject } from '../sim/index.ts';
import { runWmap } from './run-for-tests.ts';
import { cmdLogs } from './logs-command.ts';

let sim: SimHandle;

function node(name: string, gpus: number): KubeObject {
  const cap = { cpu: '96', memory: '1024Gi', pods: '110', 'nvidia.com/gpu': String(gpus) };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, status: { capacity: cap, allocatable: cap, conditions: [{ type: 'Ready', status: 'True' }] } };
}
const tpl = (gpus: number) => ({
  spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'pytorch', resources: { requests: { cpu: '4', memory: '16Gi' }, limits: { 'nvidia.com/gpu': gpus } } }] } } },
});
const phase = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;

before(async () => {
  sim = await startSim({ scenario: 'empty', controllers: true });
  sim.store.create(node('gpu-a', 8));
  // Leader and two workers of 4 GPUs fit on one 8-GPU node only two at a time: one pod stays pending.
  sim.store.create({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train', namespace: 'default' }, spec: { replicatedJobs: [{ name: 'leader', replicas: 1, template: tpl(4) }, { name: 'worker', replicas: 2, template: tpl(4) }] } });
  for (let i = 0; i < 400; i++) {
    const pods = sim.store.list('v1', 'Pod', { namespace: 'default' });
    if (pods.length === 3 && pods.filter((p) => phase(p) === 'Running').length === 2) break;
    await new Promise((r) => setTimeout(r, 25));
  }
});
after(async () => { await sim.stop(); });

test('describe: tree, resources per role with a total, the scheduler\'s reason, and its warning event', async () => {
  const r = await runWmap(['describe', 'jobset/train', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Name:\s+train$/m);
  assert.match(r.out, /^Status:\s+\S+/m);
  assert.match(r.out, /^GPUs:\s+desired 12, requested 12, allocated 8$/m);
  // Resources: 3 pods asked for, 3 live (one pending), 4 CPU and 16Gi each.
  assert.match(r.out, /^\s+TOTAL\s+3\/3\s+2\s+12\s+12\s+48Gi$/m);
  assert.match(r.out, /^\s+worker\s+2\/2\s+\d\s+8\s+8\s+32Gi$/m);
  // One pod cannot be scheduled: kube-scheduler's own words, and the FailedScheduling warning.
  assert.match(r.out, /Unschedulable \(1 pod\): 0\/1 nodes are available: 1 Insufficient nvidia\.com\/gpu/);
  assert.match(r.out, /^\s+Warning\s+FailedScheduling\s+\d+s( \(x\d+\))?\s+pod\/train-worker-\S+\s+0\/1 nodes are available/m);
});

test('describe -f: the same page from a file, with no cluster and no live status', async () => {
  const file = fileURLToPath(new URL('../../catalog/fixtures/jobset-x-k8s-io-jobset-v1alpha2/running.yaml', import.meta.url));
  const r = await runWmap(['describe', '-f', file]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Status:.*from the file, not live$/m);
  assert.match(r.out, /^Events: <none: file mode, no cluster>$/m);
  assert.match(r.out, /^\s+TOTAL\s+/m);
});

test('logs: every pod of a role, prefixed, --tail exact; a pending pod is an error on stderr', async () => {
  const r = await runWmap(['logs', 'jobset/train', '--role', 'worker', '--tail', '2', '--kubeconfig', sim.kubeconfigPath]);
  const lines = r.out.split('\n').filter(Boolean);
  const byPod = new Map<string, number>();
  for (const l of lines) {
    const m = /^\[pod\/(train-worker-\d-0-\w+)\/trainer\] \S/.exec(l);
    assert.ok(m, `unprefixed line: ${l}`);
    byPod.set(m[1], (byPod.get(m[1]) ?? 0) + 1);
  }
  // One worker runs (2 lines), the other is pending: its log cannot be read and stderr says why.
  assert.deepEqual([...byPod.values()], [2]);
  assert.match(r.err, /^wmap: pod train-worker-\d-0-\w+: not scheduled yet \(Unschedulable: 0\/1 nodes are available: 1 Insufficient nvidia\.com\/gpu\..*\): no log yet$/m);
  assert.equal(r.code, 0);
});

test('logs -f: lines keep coming until stopped', async () => {
  const out: string[] = [];
  const stop = new AbortController();
  const running = cmdLogs('jobset/train', { kubeconfig: sim.kubeconfigPath, role: 'leader', follow: true, tail: '0' }, { out: (s) => out.push(s), err: () => {} }, stop.signal);
  for (let i = 0; i < 200 && out.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  stop.abort();
  assert.equal(await running, 0);
  assert.ok(out.length >= 2, `followed ${out.length} lines`);
  assert.ok(out.every((l) => /^\[pod\/train-leader-0-0-\w+\/trainer\] /.test(l)));
});

test('logs: an unknown role names the roles there are', async () => {
  const r = await runWmap(['logs', 'jobset/train', '--role', 'nope', '--kubeconfig', sim.kubeconfigPath]);
  assert.equal(r.code, 1);
  assert.match(r.err, /no role "nope".*\(roles: leader, worker\)/);
});

test('describe: warnings with the same reason and message from several pods are one line', async () => {
  const { eventLines } = await import('./describe.ts');
  const at = '2026-12-03T10:00:00Z';
  const ev = (name: string, count: number) => ({ type: 'Warning', reason: 'FailedScheduling', message: '0/2 nodes are available:\n 2 Insufficient nvidia.com/gpu.', count, first: at, last: at, object: { kind: 'Pod', name, uid: name }, source: 'default-scheduler' });
  const lines = eventLines({ events: [ev('a', 2), ev('b', 3), { ...ev('c', 1), reason: 'BackOff', message: 'Back-off restarting failed container' }], at, truncated: 0, error: null }, Date.parse(at) + 60_000);
  assert.equal(lines.length, 3);
  assert.match(lines[1], /^\s+Warning\s+FailedScheduling\s+60s \(x5\)\s+2 pods\s+0\/2 nodes are available: 2 Insufficient nvidia\.com\/gpu\.$/);
  assert.match(lines[2], /^\s+Warning\s+BackOff\s+60s\s+pod\/c\s+Back-off restarting failed container$/);
});
