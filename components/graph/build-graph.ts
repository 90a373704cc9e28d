/**
 * From a workload tree to the structure graph: workload → components → instances → pods, owners
 * left of what they own. Big roles collapse into one node with counts (expanded on click);
 * pods no component claims hang off a separate "unmatched" node.
 */
import type { GpuFigures, GpuTotal, TreePod, WorkloadStatusName, WorkloadTree } from '../../contract/index.ts';

export type Tone = 'ok' | 'warn' | 'wait' | 'bad' | 'done' | 'idle';
export type NodeType = 'workload' | 'component' | 'instance' | 'pods' | 'pod' | 'unmatched';

export interface PodCounts {
  total: number;
  ready: number;
  running: number;
  pending: number;
  succeeded: number;
  failed: number;
  other: number;
}

export interface GraphNode {
  id: string;
  type: NodeType;
  title: string;
  subtitle: string;
  tone: Tone;
  /**
   * GPUs shown on the node, null when it has none to speak of: the tree's requested figure at that
   * level (desired when nothing is requested), or a pod's own request. Never recomputed here.
   */
  gpus: number | null;
  /** Resource names behind `gpus`, for the hover. */
  gpuHint: string;
  counts?: PodCounts;
  /** Clicking toggles this key in the expanded set. */
  toggle?: string;
  expanded?: boolean;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
}

export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface BuildOptions {
  /** Roles with more pods than this collapse (default 12). */
  collapseAbove?: number;
  /** Keys of roles the user expanded. */
  expanded?: ReadonlySet<string>;
}

export function podTone(p: TreePod): Tone {
  if (p.phase === 'Failed') return 'bad';
  if (p.phase === 'Succeeded') return 'done';
  if (p.phase === 'Running') return p.ready ? 'ok' : 'warn';
  if (p.phase === 'Pending') return 'wait';
  return 'idle';
}

export function statusTone(s: WorkloadStatusName): Tone {
  switch (s) {
    case 'Running':
      return 'ok';
    case 'Completed':
      return 'done';
    case 'Failed':
      return 'bad';
    case 'Degraded':
      return 'warn';
    case 'Initializing':
    case 'Suspending':
    case 'Resuming':
      return 'wait';
    default:
      return 'idle';
  }
}

export function countPods(pods: readonly TreePod[]): PodCounts {
  const c: PodCounts = { total: pods.length, ready: 0, running: 0, pending: 0, succeeded: 0, failed: 0, other: 0 };
  for (const p of pods) {
    if (p.ready) c.ready++;
    if (p.phase === 'Running') c.running++;
    else if (p.phase === 'Pending') c.pending++;
    else if (p.phase === 'Succeeded') c.succeeded++;
    else if (p.phase === 'Failed') c.failed++;
    else c.other++;
  }
  return c;
}

/** A group's colour: any failure is red, anything not yet ready amber, all finished blue. */
export function groupTone(pods: readonly TreePod[], desired = 0): Tone {
  if (pods.length === 0) return desired > 0 ? 'wait' : 'idle';
  const tones = new Set(pods.map(podTone));
  if (tones.has('bad')) return 'bad';
  if (tones.has('warn')) return 'warn';
  if (tones.has('wait')) return 'wait';
  if (tones.has('idle')) return 'idle';
  if (tones.size === 1 && tones.has('done')) return 'done';
  return pods.length < desired ? 'warn' : 'ok';
}

function podGpus(p: TreePod): number {
  let t = 0;
  for (const v of Object.values(p.gpus)) t += v;
  return t;
}

const round = (n: number) => Math.round(n * 100) / 100;

function resourcesText(t: GpuTotal): string {
  return Object.entries(t.byResource)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([r, n]) => `${round(n)} ${r}`)
    .join(', ');
}

/** What a workload, component or instance node shows: its requested GPUs, else its desired ones. */
function figuresOnNode(f: GpuFigures): Pick<GraphNode, 'gpus' | 'gpuHint'> {
  const shown = f.requested.total > 0 ? f.requested : f.desired;
  if (shown.total === 0 && f.allocated.total === 0) return { gpus: null, gpuHint: '' };
  const levels = `allocated ${round(f.allocated.total)}, requested ${round(f.requested.total)}, desired ${round(f.desired.total)}`;
  return { gpus: round(shown.total) || null, gpuHint: [resourcesText(shown), levels].filter(Boolean).join(' · ') };
}

function countsText(c: PodCounts): string {
  const parts: string[] = [`${c.ready}/${c.total} ready`];
  if (c.pending) parts.push(`${c.pending} pending`);
  if (c.failed) parts.push(`${c.failed} failed`);
  if (c.succeeded) parts.push(`${c.succeeded} done`);
  return parts.join(' · ');
}

export function buildGraph(tree: WorkloadTree, status: WorkloadStatusName, o: BuildOptions = {}): GraphModel {
  const collapseAbove = o.collapseAbove ?? 12;
  const expanded = o.expanded ?? new Set<string>();
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const edge = (source: string, target: string) => edges.push({ id: `${source}->${target}`, source, target });

  const root = tree.components.find((c) => c.parent === null) ?? null;
  const allPods = [...tree.pods];
  nodes.push({
    id: 'workload',
    type: 'workload',
    title: tree.workload.name,
    subtitle: `${tree.workload.kind} · ${status}`,
    tone: statusTone(status),
    ...figuresOnNode(tree.gpus),
  });

  // Which node holds the pods of a (component, instance): an instance node, its component, or the workload.
  const holderOf = new Map<string, string>();
  // The tree's figures for a holder whose pods are exactly one component's or one instance's.
  const holderFigures = new Map<string, GpuFigures>();
  const key = (component: string | null, instance: string | null) => `${component ?? ''}\u0000${instance ?? ''}`;
  const nodeOfComponent = (name: string | null): string => (name === null || (root && name === root.name) ? 'workload' : `c:${name}`);

  for (const c of tree.components) {
    const cid = nodeOfComponent(c.name);
    if (cid !== 'workload') {
      const pods = allPods.filter((p) => p.component === c.name);
      const desired = c.instances.reduce((a, i) => a + (i.replicas ?? 0), 0);
      const kindName = c.kind ? c.kind.split('/').pop() : '';
      nodes.push({
        id: cid,
        type: 'component',
        title: c.name,
        subtitle: [kindName, c.hasPodDefinition ? `${pods.length}${desired ? `/${desired}` : ''} pods` : ''].filter(Boolean).join(' · '),
        tone: c.hasPodDefinition ? groupTone(pods, desired) : pods.length ? groupTone(pods) : 'idle',
        ...(c.hasPodDefinition || pods.length ? figuresOnNode(c.gpus) : { gpus: null, gpuHint: '' }),
      });
      edge(nodeOfComponent(c.parent), cid);
    }
    const showInstances = c.instances.filter((i) => i.id !== '' && !(c.instances.length === 1 && i.id === c.name));
    if (showInstances.length === 0) holderFigures.set(cid, c.gpus);
    for (const inst of c.instances) {
      if (!showInstances.includes(inst)) {
        holderOf.set(key(c.name, inst.id), cid);
        continue;
      }
      const iid = `i:${c.name}/${inst.id}`;
      const pods = allPods.filter((p) => p.component === c.name && p.instance === inst.id);
      const perPod = Object.values(inst.gpusPerPod).reduce((a, b) => a + b, 0);
      nodes.push({
        id: iid,
        type: 'instance',
        title: inst.id,
        subtitle: `${pods.length}/${inst.replicas ?? pods.length} pods${perPod ? ` · ${Math.round(perPod * 100) / 100} GPU/pod` : ''}`,
        tone: groupTone(pods, inst.replicas ?? 0),
        ...figuresOnNode(inst.gpus),
      });
      holderFigures.set(iid, inst.gpus);
      edge(cid, iid);
      holderOf.set(key(c.name, inst.id), iid);
    }
  }

  // Group pods by holder, then emit them (or one summary node when the group is large).
  const byHolder = new Map<string, TreePod[]>();
  for (const p of allPods) {
    const h = holderOf.get(key(p.component, p.instance)) ?? holderOf.get(key(p.component, '')) ?? (p.component ? nodeOfComponent(p.component) : 'workload');
    const list = byHolder.get(h);
    if (list) list.push(p);
    else byHolder.set(h, [p]);
  }
  for (const [holder, pods] of byHolder) emitPods(holder, pods, 'p');

  if (tree.unmatchedPods.length > 0) {
    const c = countPods(tree.unmatchedPods);
    nodes.push({
      id: 'unmatched',
      type: 'unmatched',
      title: 'Unmatched pods',
      subtitle: `${c.total} owned, claimed by no component`,
      tone: 'warn',
      ...figuresOnNode(tree.unmatchedGpus),
    });
    holderFigures.set('unmatched', tree.unmatchedGpus);
    emitPods('unmatched', tree.unmatchedPods, 'u');
  }
  return { nodes, edges };

  function emitPods(holder: string, pods: TreePod[], prefix: string): void {
    const figures = holderFigures.get(holder);
    const sorted = [...pods].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (sorted.length > collapseAbove) {
      const toggle = holder;
      const holderNode = nodes.find((n) => n.id === holder);
      if (holderNode) {
        holderNode.toggle = toggle;
        holderNode.expanded = expanded.has(toggle);
      }
      if (!expanded.has(toggle)) {
        const counts = countPods(sorted);
        const id = `pods:${holder}`;
        nodes.push({
          id,
          type: 'pods',
          title: `${counts.total} pods`,
          subtitle: countsText(counts),
          tone: groupTone(sorted),
          ...(figures ? figuresOnNode(figures) : { gpus: null, gpuHint: '' }),
          counts,
          toggle,
          expanded: false,
        });
        edge(holder, id);
        return;
      }
    }
    for (const p of sorted) {
      const id = `${prefix}:${p.namespace}/${p.name}`;
      const g = podGpus(p);
      nodes.push({
        id,
        type: 'pod',
        title: p.name,
        subtitle: [p.phase + (p.phase === 'Running' && !p.ready ? ' (not ready)' : ''), p.node ?? 'unscheduled'].join(' · '),
        tone: podTone(p),
        gpus: g ? round(g) : null,
        gpuHint: resourcesText({ total: g, byResource: p.gpus }),
      });
      edge(holder, id);
    }
  }
}
