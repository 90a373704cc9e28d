/**
 * Node sizes shared by the layout and the rendered nodes (fixed, so the layout is exact), and the
 * grid that nodes are drawn in inside a container (pods in a replica group or a page of a big list,
 * groups in a page of groups): a page in one column would be too tall to read at fit, so a grid
 * takes the number of columns that fits the graph's landscape viewport best.
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

/** Room above a container's contents for its own title, objects, histogram and, when it has them, controls. */
export const CONTAINER_HEADER = 100;
export const CONTAINER_HEADER_PLAIN = 78;
const GAP = 8;
const PAD = 10;
/** The viewport's width over its height (the workload page's graph is about 1,000 × 500). */
const ASPECT = 2;

export interface Grid {
  width: number;
  height: number;
  /** Where the `i`-th cell sits, relative to the container's top left. */
  at(i: number): { x: number; y: number };
}

/** A container holding `n` cells of `cell` size: the columns that let it be drawn largest in the viewport. */
export function gridOf(n: number, cell: { width: number; height: number }, base: { width: number; height: number }, controls: boolean): Grid {
  const header = controls ? CONTAINER_HEADER : CONTAINER_HEADER_PLAIN;
  const size = (cols: number) => {
    const rows = Math.ceil(n / cols);
    return { width: Math.max(base.width, PAD * 2 + cols * cell.width + (cols - 1) * GAP), height: header + rows * cell.height + (rows - 1) * GAP + PAD };
  };
  let cols = 1;
  let best = 0;
  for (let c = 1; c <= Math.max(1, n); c++) {
    const s = size(c);
    const scale = Math.min(ASPECT / s.width, 1 / s.height);
    if (scale > best) {
      best = scale;
      cols = c;
    }
  }
  const { width, height } = size(cols);
  return { width, height, at: (i) => ({ x: PAD + (i % cols) * (cell.width + GAP), y: header + Math.floor(i / cols) * (cell.height + GAP) }) };
}
