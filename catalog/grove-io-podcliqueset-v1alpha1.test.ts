import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digest, gangsInTreeOrder, resolveFixture } from './testing.ts';

const SLUG = 'grove-io-podcliqueset-v1alpha1';
const UID = '4b4e5236-0571-4b3f-a56e-7407a739444d';
const GPU8 = { 'nvidia.com/gpu': 8 };
const GPU4 = { 'nvidia.com/gpu': 4 };

// pod name -> [component/instance, replica key]
const PODS: Record<string, [string, string]> = {
  'llm-disagg-0-frontend-nnhkq': ['clique/frontend', '0'],
  'llm-disagg-0-frontend-7sm6z': ['clique/frontend', '0'],
  'llm-disagg-0-prefill-0-pleader-h4sr9': ['sgclique/pleader', '0/0'],
  'llm-disagg-0-prefill-0-pworker-sxtp6': ['sgclique/pworker', '0/0'],
  'llm-disagg-0-prefill-0-pworker-rldh2': ['sgclique/pworker', '0/0'],
  'llm-disagg-0-prefill-1-pleader-8dkb5': ['sgclique/pleader', '0/1'],
  'llm-disagg-0-prefill-1-pworker-wdfls': ['sgclique/pworker', '0/1'],
  'llm-disagg-0-prefill-1-pworker-hspqm': ['sgclique/pworker', '0/1'],
  'llm-disagg-0-decode-0-dleader-zm6wp': ['sgclique/dleader', '0/0'],
  'llm-disagg-0-decode-0-dworker-n5ksl': ['sgclique/dworker', '0/0'],
};
const placements = Object.fromEntries(Object.entries(PODS).map(([p, [ci]]) => [p, ci]));
const replicaKeys = Object.fromEntries(Object.entries(PODS).map(([p, [, r]]) => [p, r]));

type Counts = Partial<Record<'frontend' | 'pleader' | 'pworker' | 'dleader' | 'dworker', number>>;
function roles(live: Counts, ready: Counts, desired: Counts = { frontend: 2, pleader: 2, pworker: 4, dleader: 1, dworker: 1 }) {
  const gpu = { frontend: {}, pleader: GPU8, pworker: GPU8, dleader: GPU4, dworker: GPU4 };
  return Object.fromEntries((Object.keys(gpu) as Array<keyof typeof gpu>).map((k) => [k, { desired: desired[k] ?? 0, live: live[k] ?? 0, ready: ready[k] ?? 0, gpusPerPod: gpu[k] }]));
}
const ALL: Counts = { frontend: 2, pleader: 2, pworker: 4, dleader: 1, dworker: 1 };

// One gang for PCS replica 0: minimums frontend 1 + prefill 1 x (pleader 1 + pworker 2) + decode 1 x (1 + 1) = 6.
const GANG = [{ name: `pg-${UID}-llm-disagg-0`, minMember: 6, pods: Object.keys(PODS).sort() }];

test('pending: base PodGang unschedulable, scaled PodGang gated', () => {
  const tree = resolveFixture(SLUG, 'pending');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Initializing']);
  assert.deepEqual(d.roles, roles(ALL, {}));
  assert.deepEqual(d.pods, placements);
  assert.deepEqual(d.unmatched, []);
  // prefill 2 x (1 + 2) x 8 + decode (1 + 1) x 4; nothing bound.
  assert.deepEqual(d.gpus, { desired: 56, requested: 56, allocated: 0 });
  assert.deepEqual(gangsInTreeOrder(tree), GANG);
  assert.deepEqual(tree.pods.filter((p) => p.node !== null), []);
});

test('running: standalone clique and two scaling groups', () => {
  const tree = resolveFixture(SLUG, 'running');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Running']);
  assert.deepEqual(d.roles, roles(ALL, ALL));
  assert.deepEqual(d.pods, placements);
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 56, requested: 56, allocated: 56 });
  assert.deepEqual(Object.fromEntries(tree.pods.map((p) => [p.name, p.replica])), replicaKeys);
  assert.deepEqual(gangsInTreeOrder(tree), GANG);
  const scale = Object.fromEntries(tree.components.flatMap((c) => c.instances.map((i) => [`${c.name}/${i.id}`, [i.replicas, i.minReplicas]])));
  assert.deepEqual(scale, {
    'podcliqueset/': [null, null],
    'clique/frontend': [2, 1],
    'scalinggroup/prefill': [null, null],
    'scalinggroup/decode': [null, null],
    'sgclique/pleader': [2, 1],
    'sgclique/pworker': [4, 2],
    'sgclique/dleader': [1, 1],
    'sgclique/dworker': [1, 1],
  });
});

test('degraded: the decode worker crash-loops, the replica is no longer available', () => {
  const tree = resolveFixture(SLUG, 'degraded');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Degraded']);
  assert.deepEqual(d.roles, roles(ALL, { ...ALL, dworker: 0 }));
  assert.deepEqual(d.pods, placements);
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 56, requested: 56, allocated: 56 });
  assert.equal(tree.pods.find((p) => p.name === 'llm-disagg-0-decode-0-dworker-n5ksl')?.restarts, 6);
  assert.deepEqual(gangsInTreeOrder(tree), GANG);
});

test('scaled to zero: Suspended, no pods, nothing desired', () => {
  const tree = resolveFixture(SLUG, 'scaled-to-zero');
  const d = digest(tree);
  assert.deepEqual(d.errors, []);
  assert.deepEqual(d.status, ['Suspended']);
  assert.deepEqual(d.roles, roles({}, {}, {}));
  assert.deepEqual(d.pods, {});
  assert.deepEqual(d.unmatched, []);
  assert.deepEqual(d.gpus, { desired: 0, requested: 0, allocated: 0 });
  assert.deepEqual(tree.gang, []);
});
