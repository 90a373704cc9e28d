import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definitionGraph } from './definition-graph.ts';

test('components hang under their parents; a dangling parent leaves the node apart', () => {
  const g = definitionGraph([
    { name: 'raycluster', parent: null, kind: 'ray.io/v1/RayCluster', hasPodDefinition: false },
    { name: 'head', parent: 'raycluster', kind: 'v1/Pod', hasPodDefinition: true },
    { name: 'worker', parent: 'raycluster', kind: 'v1/Pod', hasPodDefinition: true },
    { name: 'ghost', parent: 'missing', kind: '', hasPodDefinition: false },
  ]);
  assert.deepEqual(g.nodes.map((n) => `${n.id}:${n.type}:${n.subtitle}`), [
    'd:raycluster:workload:RayCluster',
    'd:head:component:Pod · pods',
    'd:worker:component:Pod · pods',
    'd:ghost:component:structural',
  ]);
  assert.deepEqual(g.edges.map((e) => e.id), ['raycluster->head', 'raycluster->worker']);
});
