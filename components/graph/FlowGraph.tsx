'use client';

import '@xyflow/react/dist/style.css';
import { Background, Controls, Handle, Position, ReactFlow, ReactFlowProvider, useReactFlow } from '@xyflow/react';
import type { Edge, Node, NodeProps } from '@xyflow/react';
import { createContext, memo, useCallback, useContext, useEffect, useMemo } from 'react';
import type { FocusEvent, KeyboardEvent } from 'react';
import { useResolvedTheme } from '../ui/ThemeToggle.tsx';
import type { GraphModel, GraphNode, Tone } from './build-graph.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { formatPercent } from '../../lib/rows/index.ts';
import { naReason, utilTone, type UtilTone } from '../usage/usage-text.ts';
import { layoutModel } from './layout.ts';
import { CONTAINER_HEADER, CONTAINER_HEADER_PLAIN, NODE_SIZE } from './node-size.ts';

const TONE: Record<Tone, string> = {
  ok: 'bg-emerald-50 dark:bg-emerald-950',
  warn: 'bg-amber-50 dark:bg-amber-950',
  wait: 'bg-sky-50 dark:bg-sky-950',
  bad: 'bg-red-50 dark:bg-red-950',
  done: 'bg-indigo-50 dark:bg-indigo-950',
  idle: 'bg-slate-50 dark:bg-slate-900',
};
// The status stripe is an inline colour: a class would lose to the dark theme's border colour.
const STRIPE: Record<Tone, string> = { ok: '#10b981', warn: '#f59e0b', wait: '#38bdf8', bad: '#ef4444', done: '#818cf8', idle: '#94a3b8' };
const TONE_WORD: Record<Tone, string> = { ok: 'healthy', warn: 'degraded or not ready', wait: 'pending', bad: 'failed', done: 'finished', idle: 'no status' };
const COUNT_BAR: Array<[keyof NonNullable<GraphNode['counts']>, string]> = [
  ['ready', 'bg-emerald-500'],
  ['notReady', 'bg-amber-500'],
  ['pending', 'bg-sky-400'],
  ['failed', 'bg-red-500'],
  ['succeeded', 'bg-indigo-400'],
];
const CONTAINERS = new Set<GraphNode['type']>(['pods', 'group', 'groups']);

type FlowNode = Node<GraphNode & Record<string, unknown>, 'wm'>;

// Text and background pairs that keep 4.5:1 in both themes (WCAG AA for small text).
const UTIL_BADGE: Record<UtilTone, string> = {
  na: 'bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-200',
  under: 'bg-amber-200 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  ok: 'bg-emerald-200 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100',
  saturated: 'bg-violet-200 text-violet-900 dark:bg-violet-900 dark:text-violet-100',
};
const BUTTON = 'nodrag nopan rounded border border-slate-300 bg-white px-1 text-[10px] text-sky-800 hover:bg-sky-50 disabled:cursor-default disabled:text-slate-600 dark:border-slate-500 dark:bg-slate-800 dark:text-sky-200 dark:disabled:text-slate-300';

/** `utilization 45%, 4 GPUs idle` for the node's title and accessible name; empty without usage. */
export function nodeUsageText(n: GraphNode): string {
  const u = n.usage;
  if (!u) return '';
  const f = u.figures;
  const util = f.utilization === null ? `utilization n/a (${naReason({ source: u.source, pods: f.pods })})` : `utilization ${formatPercent(f.utilization)}`;
  return f.idle ? `${util}, ${formatGpus(f.idle)} GPU${f.idle === 1 ? '' : 's'} idle` : util;
}

/** The node's accessible name: what it is, its full name, its status line, objects, GPUs, utilization. */
/** What the shortened label and the badges leave out: which object it is, its utilization in words, the page, the selection. */
export function nodeDetailText(n: GraphNode): string {
  const what = n.type === 'pods' ? 'pods' : n.type === 'groups' ? 'replica groups' : n.type === 'group' ? 'replica group' : n.type;
  const page = n.page ? `, showing ${n.page.what} ${n.page.from} to ${n.page.to} of ${n.page.total}` : '';
  return `${what} ${n.title}${n.usage ? `, ${nodeUsageText(n)}` : ''}${page}${n.selected ? ', selected' : ''}`;
}

/**
 * The accessible name of a node that is not itself a control (a group holding its own buttons): what
 * it shows, in the order shown, then the details. A pod node (a button) takes its name from its
 * content instead, with the details as hidden text, so that its name always holds what people see.
 */
export function nodeAriaLabel(n: GraphNode): string {
  const shown = [n.label ?? n.title, n.objects, n.subtitle, n.gpus !== null && n.gpus > 0 ? `${n.gpus} GPU` : null, n.usage ? formatPercent(n.usage.figures.utilization) : null, n.usage && n.usage.figures.idle ? 'idle' : null].filter(Boolean).join(' ');
  return `${shown}; ${nodeDetailText(n)}`;
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
        <span className="shrink-0 rounded bg-amber-700 px-1 text-[10px] font-semibold text-white" data-testid="node-idle">
          idle
        </span>
      )}
    </>
  );
}

function Badges({ data }: { data: GraphNode }) {
  return (
    <>
      {data.gpus !== null && data.gpus > 0 && (
        <span className="ml-auto shrink-0 rounded bg-slate-900 px-1 text-[10px] font-semibold text-white tabular-nums dark:bg-slate-100 dark:text-slate-900">
          {data.gpus} GPU
        </span>
      )}
      {data.usage && <UtilBadges usage={data.usage} />}
    </>
  );
}

interface Actions {
  toggle: ((key: string) => void) | null;
  page: ((key: string, page: number) => void) | null;
  select: ((pod: string) => void) | null;
}
const ActionsContext = createContext<Actions>({ toggle: null, page: null, select: null });

/** What Enter, Space or a click on the node does: select its pod, or open a collapsed list. */
function activate(n: GraphNode, a: Actions): boolean {
  if (n.pod && a.select) {
    a.select(n.pod);
    return true;
  }
  if (n.toggle && a.toggle && (!n.expanded || !CONTAINERS.has(n.type))) {
    a.toggle(n.toggle);
    return true;
  }
  return false;
}

function Controls_({ data }: { data: GraphNode }) {
  const a = useContext(ActionsContext);
  const p = data.page;
  if (!(data.toggle && a.toggle) && !(p && p.count > 1 && a.page)) return null;
  return (
    <div className="flex items-center gap-1">
      {data.toggle && a.toggle && (
        <button
          type="button"
          className={BUTTON}
          onClick={(e) => {
            e.stopPropagation();
            a.toggle!(data.toggle!);
          }}
        >
          {data.toggleLabel ?? (data.expanded ? 'Collapse pods' : 'Expand pods')}
        </button>
      )}
      {p && p.count > 1 && a.page && (
        <>
          <button type="button" className={BUTTON} disabled={p.index === 0} aria-label={`Previous page of ${data.title}`} onClick={(e) => (e.stopPropagation(), a.page!(data.id, p.index - 1))}>
            ‹ Prev
          </button>
          <span className="text-[10px] tabular-nums text-slate-700 dark:text-slate-200" data-testid="page-position">
            {p.from.toLocaleString('en-US')}–{p.to.toLocaleString('en-US')} of {p.total.toLocaleString('en-US')}
          </span>
          <button type="button" className={BUTTON} disabled={p.index >= p.count - 1} aria-label={`Next page of ${data.title}`} onClick={(e) => (e.stopPropagation(), a.page!(data.id, p.index + 1))}>
            Next ›
          </button>
        </>
      )}
    </div>
  );
}

const WmNode = memo(function WmNode({ data, width, height }: NodeProps<FlowNode>) {
  const size = { width: width ?? NODE_SIZE[data.type].width, height: height ?? NODE_SIZE[data.type].height };
  const counts = data.counts;
  const container = CONTAINERS.has(data.type);
  const open = container && data.expanded;
  const inContainer = Boolean(data.parent);
  const isPod = data.type === 'pod';
  return (
    <div
      className={`flex flex-col gap-0.5 overflow-hidden rounded-md border border-l-4 px-2 py-1 text-left text-xs shadow-sm ${open ? 'justify-start border-dashed border-slate-400 dark:border-slate-500' : 'justify-center border-slate-200 dark:border-slate-700'} ${TONE[data.tone]} ${data.type === 'workload' ? 'font-semibold' : ''} ${data.selected ? 'ring-2 ring-sky-700 ring-offset-1 dark:ring-sky-300 dark:ring-offset-slate-900' : ''} ${data.pod ? 'cursor-pointer' : ''}`}
      style={{ width: size.width, height: size.height, borderLeftColor: STRIPE[data.tone] }}
      data-node-type={data.type}
      data-testid={`node-${data.id}`}
      data-selected={data.selected ? 'true' : undefined}
      data-pod={data.pod}
      title={`${data.title}\n${data.subtitle}${data.objects ? `\n${data.objects}` : ''}${data.gpuHint ? `\nGPUs: ${data.gpuHint}` : ''}${data.usage ? `\n${nodeUsageText(data)}` : ''}\nStatus: ${TONE_WORD[data.tone]}`}
    >
      {!inContainer && <Handle type="target" position={Position.Left} className="!h-1 !w-1 !min-w-0 !border-0 !bg-slate-400" isConnectable={false} />}
      <div className="flex flex-col gap-0.5" style={open ? { height: (data.toggle || data.page ? CONTAINER_HEADER : CONTAINER_HEADER_PLAIN) - 12 } : undefined}>
        <div className="flex items-center gap-1">
          <span className={`truncate ${data.type === 'workload' ? 'text-sm' : 'font-medium'}`} data-testid="node-label">
            {data.label ?? data.title}
          </span>
          {!isPod && <Badges data={data} />}
        </div>
        {data.objects && (
          <div className="truncate text-[11px] font-normal text-slate-700 dark:text-slate-200" data-testid="node-objects">
            {data.objects}
          </div>
        )}
        <div className="flex items-center gap-1">
          <span className="truncate text-[11px] font-normal text-slate-700 dark:text-slate-200" data-testid="node-subtitle">
            {data.subtitle}
          </span>
          {/* A pod's name gets the whole first line: its distinguishing suffix must not hide behind the badges. */}
          {isPod && <Badges data={data} />}
        </div>
        {counts && counts.total > 0 && container && (
          <div className="flex h-1.5 w-full shrink-0 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700" aria-hidden="true">
            {COUNT_BAR.map(([k, cls]) => {
              const n = counts[k] as number;
              return n > 0 ? <div key={k} className={cls} style={{ width: `${(n / counts.total) * 100}%` }} /> : null;
            })}
          </div>
        )}
        <Controls_ data={data} />
        {data.pod && <span className="sr-only">; {nodeDetailText(data)}</span>}
      </div>
      {!inContainer && <Handle type="source" position={Position.Right} className="!h-1 !w-1 !min-w-0 !border-0 !bg-slate-400" isConnectable={false} />}
    </div>
  );
});

const nodeTypes = { wm: WmNode };

function FitOnChange({ fitKey, focus }: { fitKey: string; focus: string | null }) {
  const rf = useReactFlow();
  useEffect(() => {
    // After an expand or collapse the graph changes size: fit it again (on the next frame, once
    // measured), to the list just opened or paged when there is one: a page of pods beside the whole
    // structure would be drawn too small to read.
    const t = requestAnimationFrame(() => {
      const target = focus && rf.getNode(focus) ? [{ id: focus }] : undefined;
      void rf.fitView({ padding: target ? 0.04 : 0.08, maxZoom: 1.1, duration: 0, nodes: target });
    });
    return () => cancelAnimationFrame(t);
  }, [fitKey, focus, rf]);
  return null;
}

export interface FlowGraphProps {
  model: GraphModel;
  onToggle?: (key: string) => void;
  /** Another page of an expanded big list was asked for. */
  onPage?: (key: string, page: number) => void;
  /** A pod node was activated (click, Enter or Space). */
  onSelectPod?: (podName: string) => void;
  /** The node to fit the view to (the list just opened or paged); the whole graph when absent. */
  focus?: string | null;
  label: string;
  className?: string;
}

// Past this many nodes only those in view are in the DOM (paging keeps models far smaller in practice).
const RENDER_VISIBLE_ABOVE = 200;

function Inner({ model, onToggle, onPage, onSelectPod, focus = null, label, className }: FlowGraphProps) {
  const theme = useResolvedTheme();
  const rf = useReactFlow();
  const actions = useMemo<Actions>(() => ({ toggle: onToggle ?? null, page: onPage ?? null, select: onSelectPod ?? null }), [onToggle, onPage, onSelectPod]);
  const { nodes, edges, fitKey, byId } = useMemo(() => {
    const { positions, sizes } = layoutModel(model.nodes, model.edges);
    const byId = new Map(model.nodes.map((n) => [n.id, n]));
    const nodes: FlowNode[] = model.nodes.map((n) => {
      const size = sizes.get(n.id) ?? NODE_SIZE[n.type];
      const actionable = Boolean(n.pod && onSelectPod);
      const node: FlowNode = {
        id: n.id,
        type: 'wm',
        position: positions.get(n.id) ?? { x: 0, y: 0 },
        data: n as GraphNode & Record<string, unknown>,
        draggable: false,
        connectable: false,
        selectable: false,
        width: size.width,
        height: size.height,
        ariaLabel: actionable ? undefined : nodeAriaLabel(n),
        // A pod node is one control; the others hold their own buttons (a group, for assistive tech).
        ariaRole: actionable ? 'button' : 'group',
        domAttributes: actionable ? { 'aria-pressed': n.selected ? 'true' : 'false' } : undefined,
        className: 'rounded-md focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-700 dark:focus-visible:outline-sky-300',
      };
      if (n.parent) {
        node.parentId = n.parent;
        node.extent = 'parent';
      }
      return node;
    });
    const edges: Edge[] = model.edges.map((e) => ({ id: e.id, source: e.source, target: e.target, type: 'smoothstep', focusable: false, selectable: false }));
    return { nodes, edges, fitKey: model.nodes.map((n) => n.id).join('|'), byId };
  }, [model, onSelectPod]);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      const el = e.target as HTMLElement;
      // Only the node itself: its buttons handle their own keys.
      if (!el.classList.contains('react-flow__node')) return;
      const n = byId.get(el.getAttribute('data-id') ?? '');
      if (n && activate(n, actions)) e.preventDefault();
    },
    [byId, actions],
  );
  const onFocus = useCallback(
    (e: FocusEvent<HTMLDivElement>) => {
      // Tabbing to a node out of view pans to it (React Flow's own auto-pan misplaces nodes inside containers).
      const el = (e.target as HTMLElement).closest('.react-flow__node');
      const pane = e.currentTarget.getBoundingClientRect();
      if (!el || !(e.target as HTMLElement).matches(':focus-visible')) return;
      const r = el.getBoundingClientRect();
      if (r.left >= pane.left && r.right <= pane.right && r.top >= pane.top && r.bottom <= pane.bottom) return;
      const internal = rf.getInternalNode(el.getAttribute('data-id') ?? '');
      if (!internal) return;
      const p = internal.internals.positionAbsolute;
      void rf.setCenter(p.x + (internal.width ?? 0) / 2, p.y + (internal.height ?? 0) / 2, { zoom: Math.max(rf.getZoom(), 0.6) });
    },
    [rf],
  );
  return (
    <div className={className} role="figure" aria-label={label} data-testid="structure-graph" data-nodes={model.nodes.length} onKeyDown={onKeyDown} onFocus={onFocus}>
      <ActionsContext.Provider value={actions}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          colorMode={theme}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          autoPanOnNodeFocus={false}
          panActivationKeyCode={null}
          onlyRenderVisibleElements={nodes.length > RENDER_VISIBLE_ABOVE}
          ariaLabelConfig={{
            'node.a11yDescription.default': 'Press Enter or Space on a pod to open it, on a collapsed list to expand it.',
            'node.a11yDescription.keyboardDisabled': 'Press Enter or Space on a pod to open it, on a collapsed list to expand it.',
          }}
          onNodeClick={(_, n) => {
            const d = byId.get(n.id);
            if (d) activate(d, actions);
          }}
          fitView
          fitViewOptions={{ padding: 0.08, maxZoom: 1.1 }}
          minZoom={0.05}
          maxZoom={2}
          proOptions={{ hideAttribution: true }}
          // The page's own background shows through, in both themes.
          style={{ ['--xy-background-color' as string]: 'transparent' }}
        >
          <Background gap={24} size={1} />
          <Controls showInteractive={false} />
          <FitOnChange fitKey={fitKey} focus={focus} />
        </ReactFlow>
      </ActionsContext.Provider>
    </div>
  );
}

/** A laid-out, read-only graph (fit to view, nothing draggable); activating a collapsed group expands it, a pod selects it. */
export function FlowGraph(props: FlowGraphProps) {
  return (
    <ReactFlowProvider>
      <Inner {...props} />
    </ReactFlowProvider>
  );
}
