/**
 * From a workload tree to the structure graph: workload → components → instances → pods, owners
 * left of what they own. Big roles collapse into one node with counts (expanded on click);
 * pods no component claims hang off a separate "unmatched" node. Components and instances with nothing
 * to show (no object, no pod, none asked for) are hidden behind one "N empty components" node.
 */
import type { GpuFigures, GpuTotal, TreeInstance, TreePod, UsageFigures, UsageSourceKind, WorkloadStatusName, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';
import { combineFigures } from '../usage/usage-text.ts';

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
  /** The toggle's words, when not the pods' own ("Show 20 pods", "Collapse pods"). */
  toggleLabel?: string;
  /**
   * Utilization of the allocated GPUs behind the node (workload, role, instance, pod), where GPU
   * figures are shown and some are allocated; its null figures are "n/a".
   */
  usage?: { figures: UsageFigures; source: UsageSourceKind };
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
  /** Keys of roles the user expanded; EMPTY_TOGGLE in it shows the empty components. */
  expanded?: ReadonlySet<string>;
  /** Show components and instances that have nothing to show (default: EMPTY_TOGGLE in `expanded`). */
  showEmpty?: boolean;
  /** The workload's utilization (`detail.usage`): shown on the nodes that show GPUs. */
  usage?: WorkloadUsage | null;
}

/** The toggle key of the "N empty components" node. */
export const EMPTY_TOGGLE = 'empty';

const partKey = (component: string | null, instance: string | null) => `${component ?? ''}\u0000${instance ?? ''}`;

export interface EmptyParts {
  /** Components (not the root) with no object, no pod and none asked for; a structural one when all it holds is empty. */
  components: Set<string>;
  /** Instances (`component\u0000id`) of components kept, with no pod and none asked for. */
  instances: Set<string>;
}

/**
 * What the structure has that holds nothing: a pod-bearing component whose instances (if any) ask for no
 * pods and have none (Milvus' cluster-mode Deployments in standalone mode, a multi-node NIMService's
 * `server`), a structural component whose children are all empty, and, in a component kept, an instance
 * that asks for no pods and has none. A pod claimed by a component or instance keeps it, whatever the counts.
 */
export function emptyParts(tree: WorkloadTree): EmptyParts {
  const claimed = new Set<string>();
  const claimedComponents = new Set<string>();
  for (const p of tree.pods) {
    if (p.component === null) continue;
    claimed.add(partKey(p.component, p.instance));
    claimedComponents.add(p.component);
  }
  const desiredOf = new Map(tree.roles.map((r) => [partKey(r.component, r.instance), r.desiredPods]));
  const instanceEmpty = (component: string, i: TreeInstance): boolean =>
    i.livePods === 0 && !claimed.has(partKey(component, i.id)) && (desiredOf.get(partKey(component, i.id)) ?? i.replicas ?? 1) === 0;
  const children = new Map<string, string[]>();
  for (const c of tree.components) if (c.parent !== null) children.set(c.parent, [...(children.get(c.parent) ?? []), c.name]);
  const byName = new Map(tree.components.map((c) => [c.name, c]));
  const components = new Set<string>();
  const memo = new Map<string, boolean>();
  const isEmpty = (name: string, seen: ReadonlySet<string>): boolean => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const c = byName.get(name);
    let empty = false;
    if (c && c.parent !== null && !claimedComponents.has(name) && !seen.has(name)) {
      const kids = children.get(name) ?? [];
      const next = new Set(seen).add(name);
      const kidsEmpty = kids.every((k) => isEmpty(k, next));
      if (c.hasPodDefinition) empty = kidsEmpty && c.instances.every((i) => instanceEmpty(name, i));
      // A structural component holds its children: empty when it has some and all are, or has neither children nor instances.
      else empty = kidsEmpty && (kids.length > 0 || c.instances.length === 0);
    }
    memo.set(name, empty);
    return empty;
  };
  for (const c of tree.components) if (isEmpty(c.name, new Set())) components.add(c.name);
  const instances = new Set<string>();
  for (const c of tree.components) {
    if (components.has(c.name) || !c.hasPodDefinition) continue;
    for (const i of c.instances) if (instanceEmpty(c.name, i)) instances.add(partKey(c.name, i.id));
  }
  return { components, instances };
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
  const showEmpty = o.showEmpty ?? expanded.has(EMPTY_TOGGLE);
  const empty = emptyParts(tree);
  const hiddenNames: string[] = [];
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const edge = (source: string, target: string) => edges.push({ id: `${source}->${target}`, source, target });

  const root = tree.components.find((c) => c.parent === null) ?? null;
  const allPods = [...tree.pods];
  // Utilization per node id, recorded as the nodes are made and attached at the end (only where GPUs show).
  const u = o.usage ?? null;
  const usageAt = new Map<string, UsageFigures | null>();
  const instanceUsage = (component: string, instance: string) => u?.instances.find((i) => i.component === component && i.instance === instance)?.figures ?? null;
  const podUsage = (p: TreePod) => u?.pods[p.name]?.figures ?? null;
  usageAt.set('workload', u?.workload ?? null);
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
  const key = partKey;
  const nodeOfComponent = (name: string | null): string => (name === null || (root && name === root.name) ? 'workload' : `c:${name}`);

  for (const c of tree.components) {
    const cid = nodeOfComponent(c.name);
    if (empty.components.has(c.name)) hiddenNames.push(c.name);
    if (empty.components.has(c.name) && !showEmpty) continue;
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
      usageAt.set(cid, u ? combineFigures(u.instances.filter((i) => i.component === c.name).map((i) => i.figures)) : null);
    }
    const showInstances = c.instances.filter((i) => i.id !== '' && !(c.instances.length === 1 && i.id === c.name));
    if (showInstances.length === 0) holderFigures.set(cid, c.gpus);
    for (const inst of c.instances) {
      if (!showInstances.includes(inst)) {
        holderOf.set(key(c.name, inst.id), cid);
        continue;
      }
      if (empty.instances.has(key(c.name, inst.id))) {
        hiddenNames.push(`${c.name}/${inst.id}`);
        if (!showEmpty) continue;
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
      usageAt.set(iid, instanceUsage(c.name, inst.id));
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
    usageAt.set('unmatched', combineFigures(tree.unmatchedPods.map(podUsage).filter((f): f is UsageFigures => f !== null)));
    emitPods('unmatched', tree.unmatchedPods, 'u');
  }

  if (hiddenNames.length > 0) {
    // Stands apart, like the unmatched pods: it is no part of the structure, only the way to see the empty parts.
    const n = hiddenNames.length;
    const what = `${n} empty component${n === 1 ? '' : 's'}`;
    nodes.push({
      id: EMPTY_TOGGLE,
      type: 'component',
      title: what,
      subtitle: `no object, no pods asked for: ${hiddenNames.join(', ')}`,
      tone: 'idle',
      gpus: null,
      gpuHint: '',
      toggle: EMPTY_TOGGLE,
      expanded: showEmpty,
      toggleLabel: showEmpty ? `Hide ${what}` : `Show ${what}`,
    });
  }
  if (u) {
    for (const n of nodes) {
      const f = usageAt.get(n.id);
      if (f && n.gpus !== null && f.allocated > 0) n.usage = { figures: f, source: u.source };
    }
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
        usageAt.set(id, usageAt.get(holder) ?? null);
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
      usageAt.set(id, podUsage(p));
      edge(holder, id);
    }
  }
}
