/** Drafting a definition from one live workload: valid as written, structure read from the objects, guesses at real fields. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { checkDefinition, compileDefinition, loadDefinitionsFromText, resolveWorkload, type KubeObject } from '../index.ts';
import { jobSetObjects } from '../test-support.ts';
import { draftDefinition } from './draft.ts';

function resolveDraft(root: KubeObject, objects: KubeObject[]) {
  const owned = objects.filter((o) => o !== root);
  const draft = draftDefinition(root, owned);
  const { definitions, errors } = loadDefinitionsFromText(draft.yaml, 'draft.yaml');
  assert.deepEqual(errors, []);
  assert.deepEqual(definitions[0].errors.map((e) => e.message), [], draft.yaml);
  const { compiled } = compileDefinition(definitions[0]);
  assert.ok(compiled);
  return { draft, tree: resolveWorkload(compiled, root, objects) };
}

/** The value at a guess's field path (`a.b[1].c`). */
function at(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const part of path.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part)!;
    if (m[1]) cur = (cur as Record<string, unknown>)?.[m[1]];
    for (const i of m[2].matchAll(/\[(\d+)\]/g)) cur = (cur as unknown[])?.[Number(i[1])];
  }
  return cur;
}

test('a JobSet: one component with an instance per replicatedJob, selected by the label that carries its name', () => {
  const objects = jobSetObjects({ name: 'train', workers: 3, gpus: 4 });
  const { draft, tree } = resolveDraft(objects[0], objects);
  const d = draft.definition;
  assert.equal(d.apiVersion, 'run.ai/v1alpha1');
  assert.equal(d.kind, 'Karta');
  assert.equal(d.metadata.name, 'jobset-x-k8s-io-jobset-v1alpha2');
  assert.deepEqual(d.metadata.labels, { 'run.ai/karta-group': 'jobset.x-k8s.io', 'run.ai/karta-version': 'v1alpha2', 'run.ai/karta-kind': 'JobSet' });
  const [child] = d.spec.structureDefinition.childComponents ?? [];
  assert.equal(child.ownerRef, 'jobset');
  assert.deepEqual(child.kind, { group: 'batch', version: 'v1', kind: 'Job' });
  assert.equal(child.instanceIdPath, '.spec.replicatedJobs[]? | .name');
  assert.equal(child.podSelector?.componentInstanceSelector?.idPath, '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]');
  assert.equal(child.specDefinition?.podTemplateSpecPath, '.spec.replicatedJobs[]? | .template.spec.template');
  // Pods are Jobs × pods per Job: the product of the counts on the way, which the live pods cannot tell from replicas alone here.
  assert.equal(child.scaleDefinition?.replicasPath, '.spec.replicatedJobs[]? | (.replicas // 1) * (.template.spec.parallelism // 1)');
  assert.deepEqual(tree.roles.map((r) => [r.name, r.desiredPods, r.livePods]), [['leader', 1, 1], ['worker', 3, 3]]);
  assert.equal(tree.unmatchedPods.length, 0);
  assert.equal(tree.gpus.desired.total, 16);
  assert.deepEqual(d.spec.structureDefinition.rootComponent.statusDefinition?.conditionsDefinition, undefined, 'no conditions are present: none is read');
});

test('every guess names a field of the draft, and the YAML says it above that field', () => {
  const objects = jobSetObjects({ name: 'train', workers: 2, gpus: 4, state: 'completed' });
  const { draft } = resolveDraft(objects[0], objects);
  assert.ok(draft.guesses.length > 0);
  const reread = parse(draft.yaml) as unknown;
  for (const g of draft.guesses) {
    assert.notEqual(at(draft.definition, g.path), undefined, g.path);
    assert.notEqual(at(reread, g.path), undefined, g.path);
  }
  assert.match(draft.yaml, /# guess: .*Completed/);
  assert.match(draft.yaml, /^# Drafted by wmap from JobSet train/);
  // The condition present maps where its meaning is plain.
  assert.deepEqual(draft.definition.spec.structureDefinition.rootComponent.statusDefinition?.statusMappings.completed, [{ byConditions: [{ type: 'Completed', status: 'True' }] }]);
});

/** A kind no catalog knows: two roles in a map, counts beside them, pods directly under the root. */
function trainingRun(): KubeObject[] {
  const tpl = (image: string, gpus: number, role: string) => ({ metadata: { labels: { 'example.com/role': role } }, spec: { containers: [{ name: 'main', image, resources: { limits: { 'nvidia.com/gpu': gpus } } }] } });
  const root: KubeObject = {
    apiVersion: 'example.com/v1', kind: 'TrainingRun', metadata: { name: 'run', namespace: 'ml', uid: 'u-run' },
    spec: { roles: { Chief: { count: 1, template: tpl('chief:1', 0, 'chief') }, Worker: { count: 3, template: tpl('worker:1', 2, 'worker') } }, paused: false },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, { type: 'CheckpointSaved', status: 'True' }] },
  };
  const pod = (name: string, role: string, image: string, gpus: number): KubeObject => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'ml', uid: `u-${name}`, labels: { 'example.com/role': role, 'example.com/run': 'run', 'example.com/replica-type': role }, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'TrainingRun', name: 'run', uid: 'u-run', controller: true }] },
    spec: { nodeName: 'n1', containers: [{ name: 'main', image, resources: { limits: { 'nvidia.com/gpu': gpus } } }] },
    status: { phase: 'Running' },
  });
  return [root, pod('run-chief-0', 'chief', 'chief:1', 0), ...[0, 1, 2].map((i) => pod(`run-worker-${i}`, 'worker', 'worker:1', 2))];
}

test('a kind no definition exists for: a map of roles becomes instances, the counts beside the templates replicas', () => {
  const objects = trainingRun();
  const { draft, tree } = resolveDraft(objects[0], objects);
  const [child] = draft.definition.spec.structureDefinition.childComponents ?? [];
  assert.equal(child.instanceIdPath, '(.spec.roles // {}) | keys[] | ascii_downcase');
  assert.equal(child.scaleDefinition?.replicasPath, '.spec.roles[]? | (.count // 1)');
  assert.deepEqual(child.kind, { group: '', version: 'v1', kind: 'Pod' });
  assert.deepEqual(tree.roles.map((r) => [r.name, r.desiredPods, r.livePods]), [['chief', 1, 1], ['worker', 3, 3]]);
  assert.equal(tree.gpus.desired.total, 6);
  const status = draft.definition.spec.structureDefinition.rootComponent.statusDefinition!;
  assert.equal(status.phaseDefinition?.path, '.status.phase');
  assert.deepEqual(status.statusMappings.running?.[0], { byConditions: [{ type: 'Ready', status: 'True' }] });
  assert.ok(draft.notes.some((n) => /CheckpointSaved/.test(n)), draft.notes.join('\n'));
  assert.deepEqual(tree.status.matched, ['Running']);
});

test('a bare Pod carries its own spec; a workload without pods still drafts a valid definition', () => {
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { 'nvidia.com/gpu': 1 } } }] }, status: { phase: 'Running' } };
  const { draft, tree } = resolveDraft(pod, [pod]);
  const root = draft.definition.spec.structureDefinition.rootComponent;
  assert.equal(root.specDefinition?.podSpecPath, '.spec');
  assert.equal(root.specDefinition?.metadataPath, '.metadata');
  assert.equal(draft.definition.metadata.name, 'core-pod-v1');
  assert.equal(tree.gpus.requested.total, 1);

  const [root2, ...rest] = jobSetObjects({ name: 'idle', workers: 1 });
  const noPods = rest.filter((o) => o.kind !== 'Pod');
  const { draft: d2, tree: t2 } = resolveDraft(root2, [root2, ...noPods]);
  assert.ok(d2.guesses.some((g) => /no live pods to confirm/.test(g.why)), d2.guesses.map((g) => g.why).join('\n'));
  assert.equal(t2.gpus.desired.total, 8);
});

test('drafting never mutates its inputs and passes checkDefinition as an object too', () => {
  const objects = trainingRun();
  const before = JSON.stringify(objects);
  const draft = draftDefinition(objects[0], objects.slice(1));
  assert.equal(JSON.stringify(objects), before);
  assert.deepEqual(checkDefinition(draft.definition, 'file', 'x').errors, []);
});

test('keys that are no jq identifiers are quoted; odd shapes and the root in its own list are survived', () => {
  const objects = trainingRun();
  const root = objects[0] as KubeObject & { spec: { roles: Record<string, unknown> } };
  root.spec = { 'role-specs': { 'chief.v1': root.spec.roles.Chief, 'worker.v1': root.spec.roles.Worker } } as never;
  for (const p of objects.slice(1)) p.metadata!.labels!['example.com/replica-type'] = `${p.metadata!.labels!['example.com/role']}.v1`;
  const { draft, tree } = resolveDraft(root, objects);
  const [child] = draft.definition.spec.structureDefinition.childComponents ?? [];
  assert.equal(child.instanceIdPath, '(.spec["role-specs"] // {}) | keys[]');
  assert.equal(child.podSelector?.componentInstanceSelector?.idPath, '.metadata.labels["example.com/replica-type"]');
  assert.deepEqual(tree.roles.map((r) => [r.name, r.desiredPods]), [['chief.v1', 1], ['worker.v1', 3]]);
  // The root in the list it owns is skipped; labels that are not strings and a spec that is not an object do not throw.
  assert.deepEqual(draftDefinition(root, objects).definition, draft.definition);
  const odd: KubeObject = { apiVersion: 'example.com/v1', kind: 'Odd', metadata: { name: 'o', uid: 'o', labels: { n: 1 as unknown as string } }, spec: null, status: 'broken' };
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', uid: 'p', labels: { a: 2 as unknown as string }, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Odd', name: 'o', uid: 'o' }] }, spec: { containers: 'x' } };
  const d = draftDefinition(odd, [pod]);
  assert.deepEqual(checkDefinition(d.definition, 'file', 'odd').errors, []);
});
