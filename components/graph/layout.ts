/**
 * Left-to-right layered layout (dagre) for graph models: owners left of what they own.
 * Returns top-left positions, which is what React Flow places nodes by. Nodes drawn inside a
 * container (`parent`) are placed on the container's grid, relative to it, and never given to
 * dagre: dagre lays out only the structure and the containers, a few dozen nodes at most.
 */
import dagre from '@dagrejs/dagre';
import { containerSize, gridPosition } from './node-size.ts';
import type { NodeType } from './build-graph.ts';

export interface SizedNode {
  id: string;
  width: number;
  height: number;
}

export interface Placed {
  x: number;
  y: number;
}

export interface LayoutResult {
  positions: Map<string, Placed>;
  width: number;
  height: number;
}

export function layoutLeftToRight(nodes: readonly SizedNode[], edges: ReadonlyArray<{ source: string; target: string }>, o: { nodesep?: number; ranksep?: number } = {}): LayoutResult {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: o.nodesep ?? 14, ranksep: o.ranksep ?? 56, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.width, height: n.height });
  for (const e of edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target);
  dagre.layout(g);
  const positions = new Map<string, Placed>();
  let width = 0;
  let height = 0;
  for (const n of nodes) {
    const p = g.node(n.id) as { x: number; y: number };
    const x = p.x - n.width / 2;
    const y = p.y - n.height / 2;
    positions.set(n.id, { x, y });
    width = Math.max(width, x + n.width);
    height = Math.max(height, y + n.height);
  }
  return { positions, width, height };
}

export interface ModelNode {
  id: string;
  type: NodeType;
  parent?: string;
}

export interface ModelLayout {
  /** Top-level nodes: absolute; nodes in a container: relative to it (as React Flow takes them). */
  positions: Map<string, Placed>;
  sizes: Map<string, { width: number; height: number }>;
}

/** Lays out a graph model: containers sized by the pods they hold, pods on their container's grid. */
export function layoutModel(nodes: readonly ModelNode[], edges: ReadonlyArray<{ source: string; target: string }>): ModelLayout {
  const inside = new Map<string, string[]>();
  for (const n of nodes) {
    if (!n.parent) continue;
    const l = inside.get(n.parent);
    if (l) l.push(n.id);
    else inside.set(n.parent, [n.id]);
  }
  const sizes = new Map<string, { width: number; height: number }>();
  const top: SizedNode[] = [];
  for (const n of nodes) {
    const size = containerSize(n.type, n.parent ? 0 : (inside.get(n.id)?.length ?? 0));
    sizes.set(n.id, size);
    if (!n.parent) top.push({ id: n.id, ...size });
  }
  const { positions } = layoutLeftToRight(top, edges);
  for (const ids of inside.values()) ids.forEach((id, i) => positions.set(id, gridPosition(i, ids.length)));
  for (const n of nodes) if (!positions.has(n.id)) positions.set(n.id, { x: 0, y: 0 });
  return { positions, sizes };
}
