/** Node sizes shared by the layout and the rendered nodes (fixed, so the layout is exact). */
import type { NodeType } from './build-graph.ts';

export const NODE_SIZE: Record<NodeType, { width: number; height: number }> = {
  workload: { width: 240, height: 68 },
  component: { width: 220, height: 60 },
  instance: { width: 200, height: 60 },
  pods: { width: 230, height: 84 },
  pod: { width: 240, height: 54 },
  unmatched: { width: 220, height: 60 },
};
