import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planComponentUpdate, planSuspend } from './updates.ts';
import { compileOne, JOBSET_DEFINITION, jobSetObjects } from './test-support.ts';
import { applyJsonPatch } from './json-patch.ts';

const def = compileOne(JOBSET_DEFINITION);

test('labels and scheduler name on every instance: one patch with an optimistic-concurrency test', () => {
  const [root] = jobSetObjects();
  const r = planComponentUpdate(def, root, 'replicatedjob', { labels: { team: 'vision' }, schedulerName: 'kai-scheduler' });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.patch[0], { op: 'test', path: '/metadata/resourceVersion', value: '100' });
  const spec = r.object.spec as { replicatedJobs: Array<{ template: { spec: { template: { metadata: { labels: Record<string, string> }; spec: { schedulerName: string } } } } }> };
  for (const rj of spec.replicatedJobs) {
    assert.equal(rj.template.spec.template.metadata.labels.team, 'vision');
    assert.equal(rj.template.spec.template.metadata.labels.app, 'train', 'existing labels are kept');
    assert.equal(rj.template.spec.template.spec.schedulerName, 'kai-scheduler');
  }
  // The patch reproduces the object when applied to the original.
  assert.deepEqual(applyJsonPatch(root, r.patch), r.object);
  // The input is not mutated.
  assert.equal((root.spec as typeof spec).replicatedJobs[0].template.spec.template.spec.schedulerName, undefined);
});

test('per-instance changes never write null into the instances that have none', () => {
  const [root] = jobSetObjects();
  const r = planComponentUpdate(def, root, 'replicatedjob', { byInstance: { worker: { annotations: { 'kai.scheduler/topology': 'rack' } } } });
  assert.deepEqual(r.errors, []);
  const ops = r.patch.filter((o) => o.op !== 'test');
  assert.ok(ops.every((o) => o.path.startsWith('/spec/replicatedJobs/1/')), JSON.stringify(ops));
  assert.ok(ops.every((o) => 'value' in o && o.value !== null));
  const spec = r.object.spec as { replicatedJobs: Array<{ template: { spec: { template: { metadata: Record<string, unknown> } } } }> };
  assert.equal(spec.replicatedJobs[0].template.spec.template.metadata.annotations, undefined);
  assert.deepEqual(spec.replicatedJobs[1].template.spec.template.metadata.annotations, { 'kai.scheduler/topology': 'rack' });
});

test('a null label value removes the label; unknown instances and components are reported', () => {
  const [root] = jobSetObjects();
  const r = planComponentUpdate(def, root, 'replicatedjob', { byInstance: { leader: { labels: { app: null } }, ghost: { labels: { a: 'b' } } } });
  assert.deepEqual(r.patch.filter((o) => o.op === 'remove').map((o) => o.path), ['/spec/replicatedJobs/0/template/spec/template/metadata/labels/app']);
  assert.match(r.errors[0].message, /no instance "ghost"/);
  assert.match(planComponentUpdate(def, root, 'nope', { labels: {} }).errors[0].message, /component nope not found/);
});

test('suspend and resume patches follow the suspendDefinition', () => {
  const [root] = jobSetObjects();
  const s = planSuspend(def, root, 'suspend');
  assert.deepEqual(s.patch, [
    { op: 'test', path: '/metadata/resourceVersion', value: '100' },
    { op: 'add', path: '/spec/suspend', value: true },
  ]);
  assert.equal((s.object.spec as { suspend: boolean }).suspend, true);
  const r = planSuspend(def, s.object, 'resume');
  assert.equal((r.object.spec as { suspend: boolean }).suspend, false);
});

test('a definition without suspendDefinition says so', () => {
  const noSuspend = compileOne(JOBSET_DEFINITION.replace(/ {6}suspendDefinition:[\s\S]*?resumeActions: .*\n/, ''));
  const [root] = jobSetObjects();
  assert.match(planSuspend(noSuspend, root, 'suspend').errors[0].message, /does not have suspendDefinition/);
});
