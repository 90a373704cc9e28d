/** The trial: a definition's tree next to the raw view of the same objects, every difference with a code. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { draftDefinition, type KubeObject } from '../engine/index.ts';
import { compileOne, jobSetObjects, JOBSET_DEFINITION } from '../engine/test-support.ts';
import { rawView, trialDefinition } from './definition-trial.ts';

const split = (objects: KubeObject[]) => ({ root: objects[0], owned: objects.slice(1) });

test('a definition that fits: the tree, the raw view beside it, no difference', () => {
  const { root, owned } = split(jobSetObjects({ name: 'train', workers: 2, gpus: 4 }));
  const r = trialDefinition(JOBSET_DEFINITION, root, owned, { origin: 'jobset.yaml' });
  assert.deepEqual(r.differences, []);
  assert.deepEqual(r.definition, { name: 'test-jobset', source: 'file', valid: true });
  assert.equal(r.tree?.roles.length, 2);
  // kubectl's view: who owns what, every pod with its own GPU request.
  assert.deepEqual(r.raw.owned.slice(0, 2).map((o) => [o.kind, o.name, o.owner]), [['JobSet', 'train', null], ['Job', 'train-leader-0', 'JobSet/train']]);
  assert.equal(r.raw.pods.length, 3);
  assert.deepEqual(r.raw.pods[0], { name: 'train-leader-0-0-x0k2p', namespace: 'default', uid: 'uid-pod-train-leader-0', phase: 'Running', node: 'gpu-node-0', owner: 'Job/train-leader-0', live: true, allocated: true, gpus: { 'nvidia.com/gpu': 4 } });
  assert.deepEqual(r.raw.gpus, { requested: { 'nvidia.com/gpu': 12 }, allocated: { 'nvidia.com/gpu': 12 } });
  // A compiled definition is tried the same way.
  assert.deepEqual(trialDefinition(compileOne(JOBSET_DEFINITION), root, owned).differences, []);
});

test('a broken definition: its errors with field paths and lines, no tree, the raw view all the same', () => {
  const { root, owned } = split(jobSetObjects({ name: 'train' }));
  const text = JOBSET_DEFINITION.replace("ownerRef: jobset\n", 'ownerRef: nobody\n');
  const r = trialDefinition(text, root, owned, { origin: 'bad.yaml' });
  assert.equal(r.tree, null);
  assert.equal(r.definition.valid, false);
  const e = r.definitionErrors.find((x) => x.path === 'spec.structureDefinition.childComponents[0].ownerRef');
  assert.ok(e, JSON.stringify(r.definitionErrors));
  assert.equal(e.line, text.split('\n').findIndex((l) => l.includes('ownerRef: nobody')) + 1);
  assert.deepEqual(r.differences.map((d) => d.code), r.definitionErrors.map(() => 'definition'));
  assert.equal(r.raw.pods.length, 3);
  // Text that is not YAML: the syntax error, and nothing else to show.
  const broken = trialDefinition('kind: Karta\n  bad: [', root, owned, { origin: 'x.yaml' });
  assert.equal(broken.tree, null);
  assert.ok(broken.definitionErrors.length > 0);
});

test('every difference called out: unclaimed pods, empty roles, replicas, GPUs desired against the pods', () => {
  const { root, owned } = split(jobSetObjects({ name: 'train', workers: 2, gpus: 4 }));
  // Replicas doubled, and a selector that only the leader's pods satisfy.
  const text = JOBSET_DEFINITION
    .replace("replicasPath: '.spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)'", "replicasPath: '.spec.replicatedJobs[] | (.replicas // 1) * 2'")
    .replace("componentTypeSelector: {keyPath: '.metadata.labels[\"jobset.sigs.k8s.io/replicatedjob-name\"]'}", "componentTypeSelector: {keyPath: '.metadata.labels[\"jobset.sigs.k8s.io/replicatedjob-name\"]', value: leader}");
  const r = trialDefinition(text, root, owned);
  const codes = r.differences.map((d) => `${d.code}${d.role ? `:${d.role}` : ''}${d.pod ? `:${d.pod}` : ''}${d.figure ? `:${d.figure}` : ''}`);
  assert.ok(codes.includes('replicas:leader'), codes.join('\n'));
  assert.ok(codes.includes('empty-role:worker'), codes.join('\n'));
  assert.ok(codes.includes('unclaimed-pod:train-worker-0-0-x0k2p'), codes.join('\n'));
  assert.ok(codes.includes('gpus:desired'), codes.join('\n'));
  assert.ok(r.differences.find((d) => d.code === 'gpus')?.message.includes('templates × replicas give 24, the owned pods request 12'));
});

test('the raw view counts by the pods\' own specs: finished pods ask for nothing, unbound ones hold nothing', () => {
  const { root, owned } = split(jobSetObjects({ name: 'p', workers: 1, gpus: 2, state: 'pending' }));
  const v = rawView(root, owned);
  assert.deepEqual(v.gpus, { requested: { 'nvidia.com/gpu': 4 }, allocated: {} });
  const done = split(jobSetObjects({ name: 'd', workers: 1, gpus: 2, state: 'completed' }));
  assert.deepEqual(rawView(done.root, done.owned).gpus, { requested: {}, allocated: {} });
  // A bare Pod is its own only pod.
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo', namespace: 'd', uid: 'u' }, spec: { nodeName: 'n', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '1' } } }] }, status: { phase: 'Running' } };
  assert.deepEqual(rawView(pod, []).pods.map((p) => [p.name, p.gpus]), [['solo', { 'nvidia.com/gpu': 1 }]]);
});

test('a drafted definition tried on the workload it was drafted from shows no difference', () => {
  const { root, owned } = split(jobSetObjects({ name: 'train', workers: 3, gpus: 8 }));
  const draft = draftDefinition(root, owned);
  const r = trialDefinition(draft.yaml, root, owned, { origin: 'draft.yaml' });
  assert.deepEqual(r.differences, []);
  assert.equal(r.tree?.gpus.desired.total, 32);
});
