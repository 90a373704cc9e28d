/**
 * Node sizes shared by the layout and the rendered nodes (fixed, so the layout is exact), and the
 * grid that pods are drawn in inside a container (a replica group, a page of a big list): a page of
 * 24 pods in one column would be too tall to read at fit, so they wrap into up to three columns.
 */
import type { NodeType } from './build-graph.ts';

export const NODE_SIZE: Record<NodeType, { width: number; height: number }> = {
  workload: { width: 240, height: 68 },
  component: { width: 230, height: 72 },
  instance: { width: 210, height: 72 },
  pods: { width: 250, height: 96 },
  group: { width: 250, height: 96 },
  groups: { width: 250, height: 96 },
  pod: { width: 240, height: 54 },
  unmatched: { width: 220, height: 60 },
};

/** Room above a container's pods for its own title, objects, histogram and, when it has them, controls. */
export const CONTAINER_HEADER = 100;
export const CONTAINER_HEADER_PLAIN = 78;
const GAP = 8;
const PAD = 10;

export function gridColumns(n: number): number {
  return n <= 3 ? 1 : n <= 10 ? 2 : 3;
}

/** A container's size with `n` pods in it; its plain size with none (collapsed). */
export function containerSize(type: NodeType, n: number, controls = true): { width: number; height: number } {
  const base = NODE_SIZE[type];
  if (n === 0) return base;
  const cols = gridColumns(n);
  const rows = Math.ceil(n / cols);
  const pod = NODE_SIZE.pod;
  return { width: Math.max(base.width, PAD * 2 + cols * pod.width + (cols - 1) * GAP), height: (controls ? CONTAINER_HEADER : CONTAINER_HEADER_PLAIN) + rows * pod.height + (rows - 1) * GAP + PAD };
}

/** Where the `i`-th of `n` pods sits in its container, relative to the container's top left. */
export function gridPosition(i: number, n: number, controls = true): { x: number; y: number } {
  const cols = gridColumns(n);
  const pod = NODE_SIZE.pod;
  return { x: PAD + (i % cols) * (pod.width + GAP), y: (controls ? CONTAINER_HEADER : CONTAINER_HEADER_PLAIN) + Math.floor(i / cols) * (pod.height + GAP) };
}
