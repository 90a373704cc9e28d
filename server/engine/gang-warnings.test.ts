import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveWorkload } from './resolve/resolve.ts';
import { compileOne, JOBSET_DEFINITION, jobSetObjects } from './test-support.ts';

// The JobSet test definition with a scale on the root: KAI's subtree scale multiplies it by the sum of
// the children (2 × (1 + 2) = 6), while the workload asks for 3 pods (pitfall P-30).
const ROOT_SCALED = JOBSET_DEFINITION.replace(
  '      suspendDefinition:',
  `      scaleDefinition:
        replicasPath: '2'
      suspendDefinition:`,
);

const NEW_PODGROUP = (yaml: string, subGroups = '') =>
  yaml.replace(/ {6}podGroups:[\s\S]*$/, `      podGroup:
        name: train
${subGroups}`);

test('members under one PodGroup name with different sizes: a warning naming the sizes, no error', () => {
  const def = compileOne(JOBSET_DEFINITION.replace('- componentName: jobset', '- componentName: replicatedjob'));
  const objects = jobSetObjects({ workers: 3 });
  const tree = resolveWorkload(def, objects[0], objects);
  assert.deepEqual(tree.errors, []);
  assert.deepEqual(tree.warnings.map((w) => w.code), ['gang.inconsistent']);
  assert.match(tree.warnings[0].message, /^members of PodGroup pg-uid-train compute different sizes \(1, 3\)/);
  assert.equal(tree.warnings[0].path, 'spec.optimizationInstructions.gangScheduling.podGroups');
  // The preview stays KAI's: one group over all pods, the larger of the sizes.
  assert.deepEqual(tree.gang.map((g) => [g.name, g.minMember, g.pods.length]), [['pg-uid-train', 3, 4]]);
});

test('alpha podGroups: a minMember above the pods the workload asks for is a warning with both numbers', () => {
  const def = compileOne(ROOT_SCALED);
  const objects = jobSetObjects();
  const tree = resolveWorkload(def, objects[0], objects);
  assert.deepEqual(tree.errors, []);
  assert.equal(tree.gang[0].minMember, 6);
  assert.deepEqual(tree.warnings, [
    { code: 'gang.unsatisfiable', message: 'PodGroup pg-uid-train would wait for 6 pods, but the workload asks for 3', path: 'spec.optimizationInstructions.gangScheduling.podGroups' },
  ]);
});

test('alpha podGroups: the comparison is in the group\'s scope (one instance), and a size that fits gives no warning', () => {
  const keyed = JOBSET_DEFINITION.replace('- componentName: jobset', '- componentName: replicatedjob\n              groupByKeyPaths: [\'.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]\']');
  const objects = jobSetObjects();
  const ok = resolveWorkload(compileOne(keyed), objects[0], objects);
  assert.deepEqual([ok.errors, ok.warnings], [[], []]);
  // minReplicas above replicas: KAI waits for 5 workers where the workload asks for 2.
  const over = keyed.replace("replicasPath: '.spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)'", `replicasPath: '.spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)'
          minReplicasPath: '.spec.replicatedJobs[] | if .name == "worker" then 5 else 1 end'`);
  const tree = resolveWorkload(compileOne(over), objects[0], objects);
  assert.deepEqual(tree.errors, []);
  assert.deepEqual(tree.warnings.map((w) => w.message), ['PodGroup pg-uid-train-worker would wait for 5 pods, but the workload asks for 2 in component replicatedjob instance worker']);
});

test('new podGroup: minMember above the workload\'s pods is a warning; sub-groups are compared with their subtree', () => {
  const objects = jobSetObjects();
  const whole = resolveWorkload(compileOne(NEW_PODGROUP(ROOT_SCALED)), objects[0], objects);
  assert.deepEqual(whole.errors, []);
  assert.equal(whole.gang[0].minMember, 6);
  assert.deepEqual(whole.warnings, [
    { code: 'gang.unsatisfiable', message: 'PodGroup pg-uid-train-train would wait for 6 pods, but the workload asks for 3', path: 'spec.optimizationInstructions.gangScheduling.podGroup' },
  ]);
  const sub = resolveWorkload(compileOne(NEW_PODGROUP(ROOT_SCALED, '        subGroups:\n          - componentName: replicatedjob\n')), objects[0], objects);
  assert.deepEqual([sub.errors, sub.warnings], [[], []]);
  assert.equal(sub.gang[0].subGroups[0].minMember, 3);
});

test('desired pods unknown (no pod definitions): KAI\'s size is shown and nothing is compared', () => {
  // Gang instructions need selectors and scales only (reference §3.9.2): without specDefinition the
  // workload's own pod count is unknown — this used to be "would wait for 3 pods, but the workload asks for 0".
  const noSpecs = NEW_PODGROUP(JOBSET_DEFINITION.replace(/ {8}specDefinition:\n {10}podTemplateSpecPath: [^\n]*\n/, ''));
  assert.ok(!noSpecs.includes('podTemplateSpecPath'));
  const objects = jobSetObjects();
  const tree = resolveWorkload(compileOne(noSpecs), objects[0], objects);
  assert.deepEqual(tree.roles, []);
  assert.equal(tree.gang[0].minMember, 3);
  assert.deepEqual(tree.errors, []);
  assert.deepEqual(tree.warnings, []);
});

test('every tree carries warnings, empty when there are none', () => {
  const objects = jobSetObjects();
  const def = compileOne(JOBSET_DEFINITION);
  assert.deepEqual(resolveWorkload(def, objects[0], objects).warnings, []);
  // A tree the engine could not build (the root itself is unreadable) still has the field.
  const broken = resolveWorkload(def, null as never, objects);
  assert.deepEqual(broken.warnings, []);
});
