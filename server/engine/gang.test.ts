import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveWorkload } from './resolve/resolve.ts';
import { compileOne, JOBSET_DEFINITION, jobSetObjects } from './test-support.ts';

test('alpha podGroups without keys: one PodGroup pg-<uid> over all pods, sized by the sum of the roles', () => {
  const def = compileOne(JOBSET_DEFINITION);
  const objects = jobSetObjects();
  const tree = resolveWorkload(def, objects[0], objects);
  assert.equal(tree.gang.length, 1);
  assert.equal(tree.gang[0].name, 'pg-uid-train');
  // The root has no scale of its own, so its size is the sum of its children: leader 1 + worker 2.
  assert.equal(tree.gang[0].minMember, 3);
  assert.equal(tree.gang[0].pods.length, 3);
});

test('alpha podGroups with keys: one PodGroup per key; invalid names are KAI errors', () => {
  const def = compileOne(JOBSET_DEFINITION.replace('- componentName: jobset', '- componentName: replicatedjob\n              groupByKeyPaths: [\'.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]\']'));
  const objects = jobSetObjects();
  const tree = resolveWorkload(def, objects[0], objects);
  assert.deepEqual(tree.gang.map((g) => [g.name, g.minMember, g.pods.length]), [['pg-uid-train-leader', 1, 1], ['pg-uid-train-worker', 2, 2]]);
  const upper = jobSetObjects();
  for (const o of upper) if (o.kind === 'Pod') o.metadata!.labels!['jobset.sigs.k8s.io/replicatedjob-name'] = o.metadata!.labels!['jobset.sigs.k8s.io/replicatedjob-name'].toUpperCase();
  (upper[0].spec as { replicatedJobs: Array<{ name: string }> }).replicatedJobs.forEach((r) => { r.name = r.name.toUpperCase(); });
  const bad = resolveWorkload(def, upper[0], upper);
  assert.ok(bad.errors.some((e) => e.code === 'gang.name' && /invalid Kubernetes PodGroup name "pg-uid-train-LEADER"/.test(e.message)));
});

test('alpha members of one group that size themselves differently are a warning (KAI takes whichever pod comes first)', () => {
  const def = compileOne(JOBSET_DEFINITION.replace('- componentName: jobset', '- componentName: replicatedjob'));
  const objects = jobSetObjects();
  const tree = resolveWorkload(def, objects[0], objects);
  assert.equal(tree.gang.length, 1);
  assert.ok(tree.warnings.some((e) => e.code === 'gang.inconsistent' && /different sizes \(1, 2\)/.test(e.message)), JSON.stringify(tree.warnings));
  assert.deepEqual(tree.errors, []);
});

test('new podGroup with subGroups: minSubGroup, per-subgroup sizes, topology', () => {
  const def = compileOne(JOBSET_DEFINITION.replace(/ {6}podGroups:[\s\S]*$/, `      podGroup:
        name: train
        topology: {topologyName: gpu-topology, requiredTopologyLevel: rack}
        subGroups:
          - componentName: replicatedjob
            topology: {topologyName: gpu-topology, preferredTopologyLevel: node}
`));
  const objects = jobSetObjects();
  const tree = resolveWorkload(def, objects[0], objects);
  assert.deepEqual(tree.errors, []);
  const g = tree.gang[0];
  assert.equal(g.name, 'pg-uid-train-train');
  assert.equal(g.minMember, null);
  assert.equal(g.minSubGroup, 1);
  assert.deepEqual(g.topologyConstraint, { topology: 'gpu-topology', requiredTopologyLevel: 'rack' });
  assert.equal(g.subGroups[0].minMember, 3);
  assert.equal(g.subGroups[0].podsReferences.length, 3);
});
