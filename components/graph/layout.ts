/**
 * Left-to-right layered layout (dagre) for graph models: owners left of what they own.
 * Returns top-left positions, which is what React Flow places nodes by.
 */
import dagre from '@dagrejs/dagre';

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
