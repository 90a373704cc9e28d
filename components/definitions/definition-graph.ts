/** A definition's components as a small graph: each component under its parent, pod-bearing ones marked. */
import type { DefinitionComponent } from '../../contract/index.ts';
import type { GraphEdge, GraphModel, GraphNode } from '../graph/build-graph.ts';

export function definitionGraph(components: readonly DefinitionComponent[]): GraphModel {
  const names = new Set(components.map((c) => c.name));
  const nodes: GraphNode[] = components.map((c) => ({
    id: `d:${c.name}`,
    type: c.parent === null ? 'workload' : 'component',
    title: c.name,
    subtitle: [c.kind ? c.kind.split('/').pop() : 'structural', c.hasPodDefinition ? 'pods' : ''].filter(Boolean).join(' · '),
    tone: c.hasPodDefinition ? 'ok' : 'idle',
    gpus: null,
    gpuHint: '',
  }));
  const edges: GraphEdge[] = [];
  for (const c of components) {
    // A parent that names no component is a broken definition: draw the node unattached.
    if (c.parent !== null && names.has(c.parent)) edges.push({ id: `${c.parent}->${c.name}`, source: `d:${c.parent}`, target: `d:${c.name}` });
  }
  return { nodes, edges };
}
