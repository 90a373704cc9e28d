/**
 * Left-to-right layouts for graph models: owners left of what they own. Returns top-left
 * positions, which is what React Flow places nodes by. Nodes drawn inside a container (`parent`)
 * are placed on the container's grid, relative to it, and never laid out on their own: only the
 * structure and the containers are, a few dozen nodes whatever the workload's size.
 *
 * The structure graph is a forest, and siblings must stay in the order the model gives (leader
 * before workers, group 0 before group 1): dagre reorders siblings to shorten edges, so forests get
 * a tidy tree layout (columns by depth, each parent centred on its children) and dagre only lays
 * out what is not a forest.
 */
import dagre from '@dagrejs/dagre';
import { NODE_SIZE, gridOf } from './node-size.ts';
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

/**
 * A forest, tidily: a column per depth (as wide as its widest node), children stacked in their
 * order, each parent centred on its children, trees one below the other. Null when the edges do not
 * make a forest (a node with two parents, a cycle): dagre's case.
 */
export function layoutForest(nodes: readonly SizedNode[], edges: ReadonlyArray<{ source: string; target: string }>, o: { nodesep?: number; ranksep?: number } = {}): LayoutResult | null {
  const nodesep = o.nodesep ?? 14;
  const ranksep = o.ranksep ?? 56;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<string, string>();
  const kids = new Map<string, string[]>();
  for (const e of edges) {
    if (!byId.has(e.source) || !byId.has(e.target) || e.source === e.target) continue;
    if (parent.has(e.target)) return null;
    parent.set(e.target, e.source);
    const l = kids.get(e.source);
    if (l) l.push(e.target);
    else kids.set(e.source, [e.target]);
  }
  const depth = new Map<string, number>();
  const depthOf = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return -1;
    seen.add(id);
    const p = parent.get(id);
    const above = p === undefined ? -1 : depthOf(p, seen);
    if (p !== undefined && above < 0) return -1;
    const d = above + 1;
    depth.set(id, d);
    return d;
  };
  // A cycle has no root to hang from: not a forest.
  for (const n of nodes) if (depthOf(n.id, new Set()) < 0) return null;
  const colWidth: number[] = [];
  for (const n of nodes) colWidth[depth.get(n.id)!] = Math.max(colWidth[depth.get(n.id)!] ?? 0, n.width);
  const colX: number[] = [];
  let x = 8;
  for (let d = 0; d < colWidth.length; d++) {
    colX[d] = x;
    x += (colWidth[d] ?? 0) + ranksep;
  }
  // Height of each subtree: its node, or its children stacked, whichever is taller.
  const span = new Map<string, number>();
  const spanOf = (id: string): number => {
    const c = kids.get(id) ?? [];
    const own = byId.get(id)!.height;
    const stacked = c.reduce((a, k) => a + spanOf(k), 0) + Math.max(0, c.length - 1) * nodesep;
    const s = Math.max(own, stacked);
    span.set(id, s);
    return s;
  };
  const positions = new Map<string, Placed>();
  const place = (id: string, top: number): void => {
    const n = byId.get(id)!;
    const s = span.get(id)!;
    positions.set(id, { x: colX[depth.get(id)!], y: top + (s - n.height) / 2 });
    const c = kids.get(id) ?? [];
    const stacked = c.reduce((a, k) => a + span.get(k)!, 0) + Math.max(0, c.length - 1) * nodesep;
    let y = top + (s - stacked) / 2;
    for (const k of c) {
      place(k, y);
      y += span.get(k)! + nodesep;
    }
  };
  let top = 8;
  let width = 0;
  for (const n of nodes) {
    if (parent.has(n.id)) continue;
    const s = spanOf(n.id);
    place(n.id, top);
    top += s + nodesep * 2;
  }
  for (const n of nodes) width = Math.max(width, positions.get(n.id)!.x + n.width);
  return { positions, width, height: top };
}

export interface ModelNode {
  id: string;
  type: NodeType;
  parent?: string;
  /** A container with controls (a toggle, a pager) needs a taller header. */
  toggle?: string;
  page?: unknown;
}

export interface ModelLayout {
  /** Top-level nodes: absolute; nodes in a container: relative to it (as React Flow takes them). */
  positions: Map<string, Placed>;
  sizes: Map<string, { width: number; height: number }>;
}

/**
 * Lays out a graph model: containers sized by what they hold (pods, or groups that hold pods),
 * their contents on a grid inside them, everything else as a forest.
 */
export function layoutModel(nodes: readonly ModelNode[], edges: ReadonlyArray<{ source: string; target: string }>): ModelLayout {
  const inside = new Map<string, string[]>();
  for (const n of nodes) {
    if (!n.parent) continue;
    const l = inside.get(n.parent);
    if (l) l.push(n.id);
    else inside.set(n.parent, [n.id]);
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const sizes = new Map<string, { width: number; height: number }>();
  const positions = new Map<string, Placed>();
  // Bottom-up: a container's cells are as big as its biggest content.
  const sizeOf = (id: string): { width: number; height: number } => {
    const known = sizes.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const kids = inside.get(id) ?? [];
    let size = NODE_SIZE[n.type];
    if (kids.length > 0) {
      const cell = kids.map(sizeOf).reduce((a, b) => ({ width: Math.max(a.width, b.width), height: Math.max(a.height, b.height) }));
      const grid = gridOf(kids.length, cell, size, Boolean(n.toggle || n.page));
      kids.forEach((k, i) => positions.set(k, grid.at(i)));
      size = { width: grid.width, height: grid.height };
    }
    sizes.set(id, size);
    return size;
  };
  const top: SizedNode[] = [];
  for (const n of nodes) {
    const size = sizeOf(n.id);
    if (!n.parent) top.push({ id: n.id, ...size });
  }
  const laid = layoutForest(top, edges) ?? layoutLeftToRight(top, edges);
  for (const [id, p] of laid.positions) positions.set(id, p);
  for (const n of nodes) if (!positions.has(n.id)) positions.set(n.id, { x: 0, y: 0 });
  return { positions, sizes };
}
