'use client';

import '@xyflow/react/dist/style.css';
import { Background, Controls, Handle, Position, ReactFlow, ReactFlowProvider, useReactFlow } from '@xyflow/react';
import type { Edge, Node, NodeProps } from '@xyflow/react';
import { createContext, memo, useContext, useEffect, useMemo } from 'react';
import { useResolvedTheme } from '../ui/ThemeToggle.tsx';
import type { GraphModel, GraphNode, Tone } from './build-graph.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { formatPercent } from '../../lib/rows/index.ts';
import { naReason, utilTone, type UtilTone } from '../usage/usage-text.ts';
import { layoutLeftToRight } from './layout.ts';
import { NODE_SIZE } from './node-size.ts';

const TONE: Record<Tone, string> = {
  ok: 'bg-emerald-50 dark:bg-emerald-950/60',
  warn: 'bg-amber-50 dark:bg-amber-950/60',
  wait: 'bg-sky-50 dark:bg-sky-950/50',
  bad: 'bg-red-50 dark:bg-red-950/60',
  done: 'bg-indigo-50 dark:bg-indigo-950/50',
  idle: 'bg-slate-50 dark:bg-slate-900',
};
// The status stripe is an inline colour: a class would lose to the dark theme's border colour.
const STRIPE: Record<Tone, string> = { ok: '#10b981', warn: '#f59e0b', wait: '#38bdf8', bad: '#ef4444', done: '#818cf8', idle: '#94a3b8' };
const TONE_WORD: Record<Tone, string> = { ok: 'healthy', warn: 'degraded or not ready', wait: 'pending', bad: 'failed', done: 'finished', idle: 'no status' };
const COUNT_BAR: Array<[keyof NonNullable<GraphNode['counts']>, string]> = [
  ['ready', 'bg-emerald-500'],
  ['pending', 'bg-sky-400'],
  ['failed', 'bg-red-500'],
  ['succeeded', 'bg-indigo-400'],
];

type FlowNode = Node<GraphNode & Record<string, unknown>, 'wm'>;

const UTIL_BADGE: Record<UtilTone, string> = {
  na: 'bg-slate-200 text-slate-500 dark:bg-slate-700 dark:text-slate-400',
  under: 'bg-amber-200 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  ok: 'bg-emerald-200 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100',
  saturated: 'bg-violet-200 text-violet-900 dark:bg-violet-900 dark:text-violet-100',
};

/** `utilization 45%, 4 GPUs idle` for the node's title and accessible name; empty without usage. */
export function nodeUsageText(n: GraphNode): string {
  const u = n.usage;
  if (!u) return '';
  const f = u.figures;
  const util = f.utilization === null ? `utilization n/a (${naReason({ source: u.source, pods: f.pods })})` : `utilization ${formatPercent(f.utilization)}`;
  return f.idle ? `${util}, ${formatGpus(f.idle)} GPU${f.idle === 1 ? '' : 's'} idle` : util;
}

/** The node's utilization: a percent coloured like the table's bars, and an idle mark. */
function UtilBadges({ usage }: { usage: NonNullable<GraphNode['usage']> }) {
  const f = usage.figures;
  return (
    <>
      <span className={`shrink-0 rounded px-1 text-[10px] font-semibold tabular-nums ${UTIL_BADGE[utilTone(f.utilization)]}`} data-testid="node-util">
        {formatPercent(f.utilization)}
      </span>
      {f.idle !== null && f.idle > 0 && (
        <span className="shrink-0 rounded bg-amber-500 px-1 text-[10px] font-semibold text-white" data-testid="node-idle">
          idle
        </span>
      )}
    </>
  );
}

const ToggleContext = createContext<((key: string) => void) | null>(null);

const WmNode = memo(function WmNode({ data }: NodeProps<FlowNode>) {
  const onToggle = useContext(ToggleContext);
  const size = NODE_SIZE[data.type];
  const counts = data.counts;
  return (
    <div
      className={`flex h-full flex-col justify-center gap-0.5 overflow-hidden rounded-md border border-l-4 border-slate-200 px-2 py-1 text-left text-xs shadow-sm dark:border-slate-700 ${TONE[data.tone]} ${data.type === 'workload' ? 'font-semibold' : ''}`}
      style={{ width: size.width, height: size.height, borderLeftColor: STRIPE[data.tone] }}
      data-node-type={data.type}
      data-testid={`node-${data.id}`}
      title={`${data.title}\n${data.subtitle}${data.gpuHint ? `\nGPUs: ${data.gpuHint}` : ''}${data.usage ? `\n${nodeUsageText(data)}` : ''}\nStatus: ${TONE_WORD[data.tone]}`}
    >
      <Handle type="target" position={Position.Left} className="!h-1 !w-1 !min-w-0 !border-0 !bg-slate-400" isConnectable={false} />
      <div className="flex items-center gap-1">
        <span className={`truncate ${data.type === 'workload' ? 'text-sm' : 'font-medium'}`}>{data.title}</span>
        {data.gpus !== null && data.gpus > 0 && (
          <span className="ml-auto shrink-0 rounded bg-slate-900/80 px-1 text-[10px] font-semibold text-white tabular-nums dark:bg-white/80 dark:text-slate-900" aria-label={`${data.gpus} GPUs`}>
            {data.gpus} GPU
          </span>
        )}
        {data.usage && <UtilBadges usage={data.usage} />}
      </div>
      <div className="truncate text-[11px] font-normal text-slate-600 dark:text-slate-300">{data.subtitle}</div>
      {counts && counts.total > 0 && (
        <div className="flex h-1.5 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700" aria-hidden="true">
          {COUNT_BAR.map(([k, cls]) => (counts[k] > 0 ? <div key={k} className={cls} style={{ width: `${(counts[k] / counts.total) * 100}%` }} /> : null))}
        </div>
      )}
      {data.toggle && onToggle && (
        <button
          type="button"
          className="nodrag self-start rounded border border-slate-300 bg-white px-1 text-[10px] text-sky-700 hover:bg-sky-50 dark:border-slate-600 dark:bg-slate-800 dark:text-sky-300"
          onClick={(e) => {
            e.stopPropagation();
            onToggle(data.toggle!);
          }}
        >
          {data.toggleLabel ?? (data.type === 'pods' ? `Show ${counts?.total ?? ''} pods` : data.expanded ? 'Collapse pods' : 'Expand pods')}
        </button>
      )}
      <Handle type="source" position={Position.Right} className="!h-1 !w-1 !min-w-0 !border-0 !bg-slate-400" isConnectable={false} />
    </div>
  );
});

const nodeTypes = { wm: WmNode };

function FitOnChange({ fitKey }: { fitKey: string }) {
  const rf = useReactFlow();
  useEffect(() => {
    // After an expand or collapse the graph changes size: fit it again (on the next frame, once measured).
    const t = requestAnimationFrame(() => void rf.fitView({ padding: 0.12, maxZoom: 1.1, duration: 0 }));
    return () => cancelAnimationFrame(t);
  }, [fitKey, rf]);
  return null;
}

export interface FlowGraphProps {
  model: GraphModel;
  onToggle?: (key: string) => void;
  label: string;
  className?: string;
}

function Inner({ model, onToggle, label, className }: FlowGraphProps) {
  const theme = useResolvedTheme();
  const { nodes, edges, fitKey } = useMemo(() => {
    const sized = model.nodes.map((n) => ({ id: n.id, ...NODE_SIZE[n.type] }));
    const { positions } = layoutLeftToRight(sized, model.edges);
    const nodes: FlowNode[] = model.nodes.map((n) => ({
      id: n.id,
      type: 'wm',
      position: positions.get(n.id) ?? { x: 0, y: 0 },
      data: n as GraphNode & Record<string, unknown>,
      draggable: false,
      connectable: false,
      selectable: false,
      width: NODE_SIZE[n.type].width,
      height: NODE_SIZE[n.type].height,
      ariaLabel: `${n.type} ${n.title}: ${n.subtitle}${n.gpus ? `, ${n.gpus} GPUs` : ''}${n.usage ? `, ${nodeUsageText(n)}` : ''}`,
    }));
    const edges: Edge[] = model.edges.map((e) => ({ id: e.id, source: e.source, target: e.target, type: 'smoothstep', focusable: false, selectable: false }));
    return { nodes, edges, fitKey: model.nodes.map((n) => n.id).join('|') };
  }, [model]);
  return (
    <div className={className} role="figure" aria-label={label} data-testid="structure-graph">
      <ToggleContext.Provider value={onToggle ?? null}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          colorMode={theme}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          onNodeClick={(_, n) => {
            const d = n.data as GraphNode;
            if (d.toggle && d.type === 'pods' && onToggle) onToggle(d.toggle);
          }}
          fitView
          fitViewOptions={{ padding: 0.12, maxZoom: 1.1 }}
          minZoom={0.05}
          maxZoom={2}
          proOptions={{ hideAttribution: true }}
          // The page's own background shows through, in both themes.
          style={{ ['--xy-background-color' as string]: 'transparent' }}
        >
          <Background gap={24} size={1} />
          <Controls showInteractive={false} />
          <FitOnChange fitKey={fitKey} />
        </ReactFlow>
      </ToggleContext.Provider>
    </div>
  );
}

/** A laid-out, read-only graph (fit to view, nothing draggable); clicking a collapsed group expands it. */
export function FlowGraph(props: FlowGraphProps) {
  return (
    <ReactFlowProvider>
      <Inner {...props} />
    </ReactFlowProvider>
  );
}
