'use client';

import { useCallback, useMemo, useState } from 'react';
import type { WorkloadStatusName, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';
import { buildGraph } from './build-graph.ts';
import { FlowGraph } from './FlowGraph.tsx';

export interface StructureGraphProps {
  tree: WorkloadTree;
  status: WorkloadStatusName;
  usage: WorkloadUsage | null;
  /** A pod node was clicked: the page opens that pod's panel. */
  onSelectPod?: (podName: string) => void;
  /** The pod whose panel is open (highlighted). */
  selectedPod?: string | null;
  label: string;
  className?: string;
}

/** The workload's structure graph with its own expand state: what the workload page shows. */
export function StructureGraph({ tree, status, usage, label, className }: StructureGraphProps) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const model = useMemo(() => buildGraph(tree, status, { expanded, usage }), [tree, status, expanded, usage]);
  const onToggle = useCallback((key: string) => {
    setExpanded((s) => {
      const n = new Set(s);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });
  }, []);
  return <FlowGraph model={model} onToggle={onToggle} label={label} className={className} />;
}
