/** Planning and running workload actions against an index fed directly (no cluster): specs, roles, summaries, the writer's calls, the audit log. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jobSetObjects } from '../engine/test-support.ts';
import type { KubeObject } from '../engine/index.ts';
import { captureLogs } from '../log/test-support.ts';
import { directIndex } from './test-support.ts';
import type { WorkloadIndex } from './workload-index.ts';
import { actionSpecSchema, kubectlName, planAction, runAction, type ActionPlan, type ActionSpec, type ObjectWriter } from './actions.ts';

const indexOf = directIndex;

/** A JobSet `train` (leader: 1 Job, worker: 2 Jobs, one pod each), as the catalog definition reads it. */
function jobSet(): { index: WorkloadIndex; uid: string } {
  return { index: indexOf(jobSetObjects()), uid: 'uid-train' };
}

function plan(spec: ActionSpec | ActionSpec[], at = jobSet()): ActionPlan {
  const p = planAction(at.index, 'c1', at.uid, spec);
  assert.ok(!('error' in p), JSON.stringify(p));
  return p;
}

const rj = (o: KubeObject | null, i: number) => (o!.spec as { replicatedJobs: Array<{ template: { spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: Array<Record<string, unknown>> } } } } }> }).replicatedJobs[i].template.spec.template;

test('the zod schema accepts each action and refuses unknown fields, a missing role and a bad propagation', () => {
  const good: ActionSpec[] = [
    { action: 'suspend' },
    { action: 'labels', set: { a: 'b', c: null } },
    { action: 'annotations', role: 'worker', set: {} },
    { action: 'image', role: 'worker', container: 'trainer', image: 'img:v2' },
    { action: 'env', role: 'worker', container: 'trainer', set: { A: '1', B: null } },
    { action: 'resources', role: 'worker', container: 'trainer', limits: { 'nvidia.com/gpu': '2' } },
    { action: 'delete', propagation: 'Foreground' },
  ];
  for (const s of good) assert.deepEqual(actionSpecSchema.parse(s), s);
  for (const bad of [{ action: 'suspend', role: 'x' }, { action: 'image', container: 'c', image: 'i' }, { action: 'delete', propagation: 'Later' }, { action: 'labels', set: { a: 1 } }, { action: 'scale' }]) {
    assert.equal(actionSpecSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
});

test('image of one role: the patch starts with the precondition, the summary counts templates and pods', () => {
  const p = plan({ action: 'image', role: 'worker', container: 'trainer', image: 'img:v2' });
  assert.deepEqual(p.errors, []);
  assert.deepEqual(p.patch, [
    { op: 'test', path: '/metadata/resourceVersion', value: '100' },
    { op: 'add', path: '/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image', value: 'img:v2' },
  ]);
  assert.equal(rj(p.after, 1).spec.containers[0].image, 'img:v2');
  assert.equal(rj(p.after, 0).spec.containers[0].image, 'nvcr.io/nvidia/pytorch:24.05-py3', 'the leader is left alone');
  assert.equal(p.summary, 'set image of role worker container trainer to img:v2 (1 pod template, for 2 pods)');
  assert.match(p.diff, /^-\s+image: nvcr\.io\/nvidia\/pytorch:24\.05-py3$/m);
  assert.match(p.diff, /^\+\s+image: img:v2$/m);
  // The component name reaches every instance.
  const all = plan({ action: 'image', role: 'replicatedjob', container: 'trainer', image: 'img:v2' });
  assert.equal(all.patch.length, 3);
  assert.equal(all.summary, 'set image of role replicatedjob container trainer to img:v2 (2 pod templates, for 3 pods)');
});

test('unknown roles and containers name the alternatives; invalid values name the rule', () => {
  const at = jobSet();
  assert.deepEqual(planAction(at.index, 'c1', at.uid, { action: 'image', role: 'chief', container: 'trainer', image: 'x:1' }), {
    error: 'no role "chief" in JobSet train (roles: leader, worker; or a component, for all its instances: replicatedjob)',
  });
  const c = plan({ action: 'env', role: 'worker', container: 'main', set: { A: '1' } }, at);
  assert.deepEqual(c.errors.map((e) => e.message), ['role worker has no container "main" (containers in its pod template: trainer)']);
  assert.deepEqual(c.patch, []);
  assert.match(plan({ action: 'labels', set: { 'bad key': 'v' } }, at).errors[0].message, /invalid label bad key=v: the name part must be 63 characters or less/);
  assert.match(plan({ action: 'resources', role: 'worker', container: 'trainer', requests: { cpu: 'one' } }, at).errors[0].message, /invalid quantity "one" for requests\.cpu/);
  assert.deepEqual(planAction(at.index, 'c1', at.uid, { action: 'labels', set: {} }), { error: 'nothing to change: the labels action was given no keys' });
});

test('labels on every role: merged key by key, replaced values reported, removal of an absent key is no change', () => {
  const p = plan({ action: 'labels', set: { team: 'vision', app: 'other' } });
  assert.equal(p.summary, 'set labels of every role (leader, worker): team=vision, app=other (2 pod templates, for 3 pods)');
  for (const i of [0, 1]) assert.deepEqual(rj(p.after, i).metadata.labels, { app: 'other', team: 'vision' });
  assert.deepEqual(p.replaced, [{ field: 'labels', key: 'app', from: 'train', to: 'other' }]);
  const none = plan({ action: 'labels', role: 'leader', set: { absent: null } });
  assert.equal(none.noChange, true);
  assert.deepEqual(none.patch, []);
});

test('several image specs become one patch with one precondition', () => {
  const p = plan([
    { action: 'image', role: 'worker', container: 'trainer', image: 'a:1' },
    { action: 'image', role: 'leader', container: 'trainer', image: 'b:1' },
  ]);
  assert.deepEqual(p.patch.filter((o) => o.op === 'test').length, 1);
  assert.equal(p.patch.length, 3);
  assert.equal(p.summary, 'set image of role worker container trainer to a:1, role leader container trainer to b:1 (2 pod templates, for 3 pods)');
  const at = jobSet();
  assert.match(String((planAction(at.index, 'c1', at.uid, [{ action: 'suspend' }, { action: 'delete', propagation: 'Background' }]) as { error: string }).error), /several actions/);
});

test("an LWS leader without a leaderTemplate: changing its image says the worker's template changes too", () => {
  const lws: KubeObject = {
    apiVersion: 'leaderworkerset.x-k8s.io/v1',
    kind: 'LeaderWorkerSet',
    metadata: { name: 'serve', namespace: 'default', uid: 'uid-serve', resourceVersion: '5' },
    spec: { replicas: 2, leaderWorkerTemplate: { size: 3, workerTemplate: { spec: { containers: [{ name: 'vllm', image: 'vllm:1' }] } } } },
  };
  const p = plan({ action: 'image', role: 'leader', container: 'vllm', image: 'vllm:2' }, { index: indexOf([lws]), uid: 'uid-serve' });
  assert.equal(p.summary, 'set image of role leader container vllm to vllm:2 (1 pod template, for 2 pods); role worker runs the same pod template and changes too');
});

test('delete: no patch, a precondition, the whole object in the diff, and what goes with it', () => {
  const p = plan({ action: 'delete', propagation: 'Background' });
  assert.deepEqual(p.patch, []);
  assert.deepEqual(p.delete, { propagationPolicy: 'Background', resourceVersion: '100', dependents: [{ kind: 'Job', count: 3 }, { kind: 'Pod', count: 3 }] });
  assert.equal(p.after, null);
  assert.equal(p.summary, 'delete JobSet default/train and its 3 Jobs, 3 pods (background: the garbage collector removes them after it)');
  assert.match(p.diff, /^\+\+\+ jobset\/train \(deleted\)$/m);
  assert.ok(p.diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).length === 0, 'nothing is added');
  assert.match(p.diff, /^-kind: JobSet$/m);
  assert.equal(plan({ action: 'delete', propagation: 'Orphan' }).summary, 'delete JobSet default/train only, leaving its 3 Jobs, 3 pods behind (orphaned)');
});

/** A writer that records what it is asked and answers as the API server would (or fails as told). */
function fakeWriter(fail?: { status: number; message: string }): ObjectWriter & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async patchJson(ref, ops, dryRun) {
      calls.push(`patch ${ref.name} ${dryRun ? 'dry' : 'write'}`);
      if (fail) throw Object.assign(new Error(fail.message), fail);
      return { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name }, spec: { ops: ops.length } };
    },
    async deleteObject(ref, opts) {
      calls.push(`delete ${ref.name} ${opts.propagationPolicy} rv=${opts.resourceVersion} ${opts.dryRun ? 'dry' : 'write'}`);
      if (fail) throw Object.assign(new Error(fail.message), fail);
      return {};
    },
  };
}

test("runAction: client sends nothing, server dry-runs, none dry-runs then writes; kubectl's words; every attempt audited", async () => {
  const logs = captureLogs('error');
  try {
    const p = plan({ action: 'labels', role: 'worker', set: { team: 'vision' } });
    const w = fakeWriter();
    assert.deepEqual(await runAction(p, w, 'client', 'me'), { result: 'planned', message: 'jobset.jobset.x-k8s.io/train labeled (dry run)', diff: p.diff, summary: p.summary });
    assert.deepEqual(w.calls, []);
    assert.equal((await runAction(p, w, 'server', 'me')).message, 'jobset.jobset.x-k8s.io/train labeled (server dry run)');
    assert.equal((await runAction(p, w, 'none', 'me')).message, 'jobset.jobset.x-k8s.io/train labeled');
    assert.deepEqual(w.calls, ['patch train dry', 'patch train dry', 'patch train write']);
    const d = plan({ action: 'delete', propagation: 'Foreground' });
    const dw = fakeWriter();
    const out = await runAction(d, dw, 'none', 'me');
    assert.equal(out.message, 'jobset.jobset.x-k8s.io/train deleted');
    assert.deepEqual(dw.calls, ['delete train Foreground rv=100 dry', 'delete train Foreground rv=100 write']);
    const audit = logs.records().filter((x) => x.component === 'audit');
    assert.deepEqual(audit.map((x) => [x.who, x.action, x.dryRun, x.result]), [['me', 'labels', 'client', 'planned'], ['me', 'labels', 'server', 'dry-run'], ['me', 'labels', 'none', 'applied'], ['me', 'delete', 'none', 'applied']]);
    assert.deepEqual(audit[3].delete, { propagationPolicy: 'Foreground', resourceVersion: '100' });
    assert.equal(audit[3].summary, d.summary);
  } finally {
    logs.restore();
  }
});

test('runAction: a 409 is a conflict and the write is never sent; unlabeling says so; other verbs', async () => {
  const logs = captureLogs('error');
  try {
    const d = plan({ action: 'delete', propagation: 'Background' });
    const w = fakeWriter({ status: 409, message: 'Precondition failed: ResourceVersion in precondition: 100' });
    const out = await runAction(d, w, 'none', 'me');
    assert.equal(out.result, 'conflict');
    assert.match(out.message, /^JobSet default\/train changed since you looked \(resourceVersion 100\)/);
    assert.deepEqual(w.calls, ['delete train Background rv=100 dry']);
    const cases: Array<[ActionSpec, string]> = [
      [{ action: 'labels', set: { app: null } }, 'unlabeled'],
      [{ action: 'annotations', role: 'worker', set: { note: 'x' } }, 'annotated'],
      [{ action: 'env', role: 'worker', container: 'trainer', set: { A: '1' } }, 'env updated'],
      [{ action: 'resources', role: 'worker', container: 'trainer', requests: { cpu: '1' } }, 'resource requirements updated'],
    ];
    for (const [spec, verb] of cases) assert.equal((await runAction(plan(spec), fakeWriter(), 'none', 'me')).message, `jobset.jobset.x-k8s.io/train ${verb}`);
    assert.equal((await runAction(plan({ action: 'labels', role: 'leader', set: { absent: null } }), fakeWriter(), 'none', 'me')).message, 'jobset.jobset.x-k8s.io/train not labeled');
  } finally {
    logs.restore();
  }
});

test("kubectl's names: group and lowercase kind, the core group without one", () => {
  assert.equal(kubectlName({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', namespace: 'd', name: 'llama' }), 'jobset.jobset.x-k8s.io/llama');
  assert.equal(kubectlName({ apiVersion: 'v1', kind: 'Pod', namespace: 'd', name: 'p' }), 'pod/p');
});
