/**
 * From a workload tree to the structure graph, grouped the way the framework groups its pods:
 * workload → components → instances (roles) → replica groups → pods, owners left of what they own.
 *
 * Replica groups come from `TreePod.replica` under the nearest component that keys replicas: an LWS
 * `group` (its leader and workers share the group index, across the leader and worker components),
 * a JobSet replicated job (the Job index). Groups of one pod each say nothing and are not drawn.
 * Lists of more than `collapseAbove` pods (or groups) are one aggregate node with a status
 * histogram; expanded, they show one page at a time, problems first. A search shows only the pods
 * that match, wherever they are. The model stays as big as what is shown, whatever the tree's size.
 * Pods no component claims hang off a separate "unmatched" node; components and instances with
 * nothing to show are hidden behind one "N empty components" node.
 */
import type { GpuFigures, GpuTotal, TreeInstance, TreePod, UsageFigures, UsageSourceKind, WorkloadStatusName, WorkloadTree, WorkloadUsage } from '../../contract/index.ts';
import { naturalCompare } from '../../lib/format/natural-order.ts';
import { combineFigures } from '../usage/usage-text.ts';
import { shortLabels } from './labels.ts';
import { countPods, formatCount, histogramText, naturalPodOrder, pageOf, podMatches, problemRank, problemsFirst, type PodCounts } from './pod-order.ts';

export { countPods, type PodCounts } from './pod-order.ts';

export type Tone = 'ok' | 'warn' | 'wait' | 'bad' | 'done' | 'idle';
/** `pods`: a big list of pods (collapsed, or one page of it); `group`: a replica group; `groups`: a big list of groups. */
export type NodeType = 'workload' | 'component' | 'instance' | 'pods' | 'group' | 'groups' | 'pod' | 'unmatched';

export interface PageInfo {
  /** 0-based page shown, of `count`. */
  index: number;
  count: number;
  /** 1-based positions shown, of `total`. */
  from: number;
  to: number;
  total: number;
  /** What is paged: `pods` or `groups`. */
  what: string;
}

export interface GraphNode {
  id: string;
  type: NodeType;
  title: string;
  subtitle: string;
  tone: Tone;
  /**
   * GPUs shown on the node, null when it has none to speak of: the tree's requested figure at that
   * level (desired when nothing is requested), or a pod's own request. A replica group or a search's
   * matches add up their pods' own requests (the tree has no figure there).
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
  /** What the node draws as its title when the title is too long: it keeps the part that differs from its siblings. */
  label?: string;
  /** The real objects behind the node, by kind: `Job llama-finetune-workers-0`, `StatefulSets vllm-405b, vllm-405b-0`. */
  objects?: string;
  /** The container (a replica group, a page of a big list) the node is drawn in; laid out on its own when absent. */
  parent?: string;
  /** A pod node's pod: activating the node selects it. */
  pod?: string;
  /** The selected pod's node. */
  selected?: boolean;
  /** The page shown of an expanded big list. */
  page?: PageInfo;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
}

export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** The search's result, when there is one: how many pods match, and the first in natural order. */
  search?: { query: string; matches: number; first: string | null };
  /**
   * Where the pod to reveal is: the lists to expand and the page of each that shows it (the caller
   * keeps them in its view state). Absent when no pod is to be revealed or it is not in the tree.
   */
  revealed?: { expand: string[]; pages: Array<[string, number]> };
}

export interface BuildOptions {
  /** Lists with more pods (or replica groups) than this collapse (default 12). */
  collapseAbove?: number;
  /** Pods (or groups) per page of an expanded big list (default 24). */
  pageSize?: number;
  /** Keys of lists the user expanded; EMPTY_TOGGLE in it shows the empty components. */
  expanded?: ReadonlySet<string>;
  /** The page shown of each expanded list, by its key (default the first). */
  pages?: ReadonlyMap<string, number>;
  /** Show only the pods whose name or node contains this (case-insensitive), expanding what holds them. */
  search?: string;
  /** The selected pod, highlighted. */
  selectedPod?: string | null;
  /** A pod to bring into view: the lists that hold it are expanded at its page (see `GraphModel.revealed`). */
  reveal?: string | null;
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

/** A group's colour: any failure is red, anything not yet ready amber, all finished blue. */
export function groupTone(pods: readonly TreePod[], desired = 0): Tone {
  if (pods.length === 0) return desired > 0 ? 'wait' : 'idle';
  const tones = new Set<Tone>();
  for (const p of pods) tones.add(podTone(p));
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

/** A set of pods' own requests: requested by those not finished, allocated by those holding theirs. */
function podsFigures(pods: readonly TreePod[]): Pick<GraphNode, 'gpus' | 'gpuHint'> {
  let requested = 0;
  let allocated = 0;
  const byResource: Record<string, number> = {};
  for (const p of pods) {
    const g = podGpus(p);
    if (g === 0) continue;
    if (p.phase !== 'Succeeded' && p.phase !== 'Failed') {
      requested += g;
      for (const [r, n] of Object.entries(p.gpus)) byResource[r] = (byResource[r] ?? 0) + n;
    }
    if (p.allocated) allocated += g;
  }
  if (requested === 0 && allocated === 0) return { gpus: null, gpuHint: '' };
  return { gpus: round(requested) || null, gpuHint: [resourcesText({ total: requested, byResource }), `allocated ${round(allocated)}, requested ${round(requested)} by these pods`].filter(Boolean).join(' · ') };
}

function addTotal(a: GpuTotal, b: GpuTotal): GpuTotal {
  const byResource = { ...a.byResource };
  for (const [r, n] of Object.entries(b.byResource)) byResource[r] = (byResource[r] ?? 0) + n;
  return { total: a.total + b.total, byResource };
}
const addFigures = (a: GpuFigures, b: GpuFigures): GpuFigures => ({ desired: addTotal(a.desired, b.desired), requested: addTotal(a.requested, b.requested), allocated: addTotal(a.allocated, b.allocated) });

/**
 * The controllers of a set of pods, by kind, names in natural order: `Job train-worker-0`,
 * `StatefulSets vllm-405b, vllm-405b-0`; many names read `500 Jobs: train-worker-0 … train-worker-499`.
 * The workload itself (a PyTorchJob owning its pods) is no news and left out.
 */
export function ownersText(pods: readonly TreePod[], workload: { kind: string; name: string }): string {
  const byKind = new Map<string, Set<string>>();
  for (const p of pods) {
    const o = p.owner;
    if (!o || (o.kind === workload.kind && o.name === workload.name)) continue;
    const names = byKind.get(o.kind);
    if (names) names.add(o.name);
    else byKind.set(o.kind, new Set([o.name]));
  }
  const parts: string[] = [];
  for (const [kind, set] of byKind) {
    const names = [...set].sort(naturalCompare);
    if (names.length === 1) parts.push(`${kind} ${names[0]}`);
    else if (names.length <= 3) parts.push(`${kind}s ${names.join(', ')}`);
    else parts.push(`${formatCount(names.length)} ${kind}s: ${names[0]} … ${names[names.length - 1]}`);
  }
  return parts.join(' · ');
}

/** A pod node's second line: its role (when siblings differ), phase and readiness, why, node. */
function podSubtitle(p: TreePod, role: string | null): string {
  const phase = p.phase === 'Running' && !p.ready ? 'Running, not ready' : p.phase;
  const why = p.why?.reason && p.why.reason !== p.phase ? p.why.reason + (p.why.exitCode !== undefined ? ` (exit ${p.why.exitCode})` : '') : '';
  return [role, phase, why, p.node].filter(Boolean).join(' · ');
}

/** What the graph needs from a tree whatever is shown, computed once per tree (trees are immutable values). */
interface TreeFacts {
  /** Pods by (component, instance), in the tree's order. */
  byPart: Map<string, { component: string | null; instance: string | null; pods: TreePod[] }>;
  byComponent: Map<string, TreePod[]>;
  /** Component → the nearest component, itself or an ancestor, whose replica selector keys replica groups. */
  keyOf: Map<string, string>;
  empty: EmptyParts;
  /** Ordered lists, by list key and search: sorting thousands of pods once, not on every page turn. */
  ordered: Map<string, TreePod[]>;
}

const factsCache = new WeakMap<WorkloadTree, TreeFacts>();

function factsOf(tree: WorkloadTree): TreeFacts {
  const known = factsCache.get(tree);
  if (known) return known;
  const byPart: TreeFacts['byPart'] = new Map();
  const byComponent = new Map<string, TreePod[]>();
  for (const p of tree.pods) {
    const k = partKey(p.component, p.instance);
    const part = byPart.get(k);
    if (part) part.pods.push(p);
    else byPart.set(k, { component: p.component, instance: p.instance, pods: [p] });
    if (p.component !== null) {
      const list = byComponent.get(p.component);
      if (list) list.push(p);
      else byComponent.set(p.component, [p]);
    }
  }
  const byName = new Map(tree.components.map((c) => [c.name, c]));
  const keyOf = new Map<string, string>();
  for (const c of tree.components) {
    const seen = new Set<string>();
    for (let at = byName.get(c.name); at && !seen.has(at.name); at = at.parent === null ? undefined : byName.get(at.parent)) {
      seen.add(at.name);
      if (at.keysReplicas) {
        keyOf.set(c.name, at.name);
        break;
      }
    }
  }
  const facts: TreeFacts = { byPart, byComponent, keyOf, empty: emptyParts(tree), ordered: new Map() };
  factsCache.set(tree, facts);
  return facts;
}

const normalizeQuery = (q: string | undefined) => (q ?? '').trim().toLowerCase();

/** The pods matching a search, and the first of them in natural order. */
export function searchPods(tree: WorkloadTree, search: string): { matches: number; first: string | null } {
  const q = normalizeQuery(search);
  let matches = 0;
  let first: TreePod | null = null;
  for (const list of [tree.pods, tree.unmatchedPods]) {
    for (const p of list) {
      if (!podMatches(p, q)) continue;
      matches++;
      if (!first || naturalPodOrder(p, first) < 0) first = p;
    }
  }
  return { matches, first: first?.name ?? null };
}

/** Pods of one replica group under a scope (the component that keys it, or the holder of a self-keyed one). */
interface Scope {
  /** The node the groups hang off. */
  id: string;
  /** Words before the replica key in a group's title (`group` 0, `worker` 3). */
  label: string;
  groups: Map<string, TreePod[]>;
  /** Each pod's own holder, for a scope whose groups turn out to be single pods. */
  natural: Array<[TreePod, string]>;
}

export function buildGraph(tree: WorkloadTree, status: WorkloadStatusName, o: BuildOptions = {}): GraphModel {
  const collapseAbove = o.collapseAbove ?? 12;
  const pageSize = o.pageSize ?? 24;
  const expanded = o.expanded ?? new Set<string>();
  const pages = o.pages ?? new Map<string, number>();
  const query = normalizeQuery(o.search);
  const selected = o.selectedPod ?? null;
  const reveal = o.reveal ?? null;
  const showEmpty = o.showEmpty ?? expanded.has(EMPTY_TOGGLE);
  const facts = factsOf(tree);
  const empty = facts.empty;
  const hiddenNames: string[] = [];
  let nodes: GraphNode[] = [];
  let edges: GraphEdge[] = [];
  const edge = (source: string, target: string) => edges.push({ id: `${source}->${target}`, source, target });
  const revealed: NonNullable<GraphModel['revealed']> = { expand: [], pages: [] };

  const root = tree.components.find((c) => c.parent === null) ?? null;
  // Utilization per node id, recorded as the nodes are made and attached at the end (only where GPUs show).
  const u = o.usage ?? null;
  const usageAt = new Map<string, UsageFigures | null>();
  const instanceUsage = (component: string, instance: string) => u?.instances.find((i) => i.component === component && i.instance === instance)?.figures ?? null;
  const podUsage = (p: TreePod) => u?.pods[p.name]?.figures ?? null;
  const podsUsage = (pods: readonly TreePod[]) => (u ? combineFigures(pods.map(podUsage).filter((f): f is UsageFigures => f !== null)) : null);
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
  const componentFigures = new Map<string, GpuFigures>();
  const key = partKey;
  const nodeOfComponent = (name: string | null): string => (name === null || (root && name === root.name) ? 'workload' : `c:${name}`);

  for (const c of tree.components) {
    const cid = nodeOfComponent(c.name);
    if (empty.components.has(c.name)) hiddenNames.push(c.name);
    if (empty.components.has(c.name) && !showEmpty) continue;
    if (cid !== 'workload') {
      const pods = facts.byComponent.get(c.name) ?? [];
      const desired = c.instances.reduce((a, i) => a + (i.replicas ?? 0), 0);
      const kindName = c.kind ? c.kind.split('/').pop() : '';
      const shown = c.hasPodDefinition || pods.length > 0;
      nodes.push({
        id: cid,
        type: 'component',
        title: c.name,
        subtitle: [kindName, c.hasPodDefinition ? `${formatCount(pods.length)}${desired ? `/${formatCount(desired)}` : ''} pods` : ''].filter(Boolean).join(' · '),
        tone: c.hasPodDefinition ? groupTone(pods, desired) : pods.length ? groupTone(pods) : 'idle',
        ...(shown ? figuresOnNode(c.gpus) : { gpus: null, gpuHint: '' }),
      });
      if (shown) componentFigures.set(cid, c.gpus);
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
      const pods = facts.byPart.get(key(c.name, inst.id))?.pods ?? [];
      const perPod = Object.values(inst.gpusPerPod).reduce((a, b) => a + b, 0);
      nodes.push({
        id: iid,
        type: 'instance',
        title: inst.id,
        subtitle: `${formatCount(pods.length)}/${formatCount(inst.replicas ?? pods.length)} pods${perPod ? ` · ${round(perPod)} GPU/pod` : ''}`,
        tone: groupTone(pods, inst.replicas ?? 0),
        ...figuresOnNode(inst.gpus),
      });
      holderFigures.set(iid, inst.gpus);
      usageAt.set(iid, instanceUsage(c.name, inst.id));
      edge(cid, iid);
      holderOf.set(key(c.name, inst.id), iid);
    }
  }

  // Where each pod goes: its holder's list, or a replica group under the component that keys it.
  const plain = new Map<string, TreePod[]>();
  const holderPods = new Map<string, TreePod[]>();
  const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  };
  const scopes = new Map<string, Scope>();
  const titleOf = new Map(nodes.map((n) => [n.id, n.title]));
  for (const part of facts.byPart.values()) {
    const holder = holderOf.get(key(part.component, part.instance)) ?? holderOf.get(key(part.component, '')) ?? (part.component ? nodeOfComponent(part.component) : 'workload');
    const keyer = part.component === null ? undefined : facts.keyOf.get(part.component);
    for (const p of part.pods) {
      push(holderPods, holder, p);
      if (keyer === undefined || p.replica === null || p.replica === '') {
        push(plain, holder, p);
        continue;
      }
      const own = keyer === part.component;
      const scopeId = own ? holder : nodeOfComponent(keyer);
      let s = scopes.get(scopeId);
      if (!s) {
        s = { id: scopeId, label: own ? (titleOf.get(holder) ?? holder) : keyer, groups: new Map(), natural: [] };
        scopes.set(scopeId, s);
      }
      push(s.groups, p.replica, p);
      s.natural.push([p, holder]);
    }
  }
  // Groups of one pod each (a PyTorchJob's replica index, a JobSet of one-pod Jobs) are the pods themselves.
  for (const s of [...scopes.values()]) {
    let multi = false;
    for (const g of s.groups.values()) if (g.length > 1) multi = true;
    if (multi) continue;
    for (const [p, h] of s.natural) push(plain, h, p);
    scopes.delete(s.id);
  }
  // The real objects beside the component and instance names: the Jobs, StatefulSets, ReplicaSets of their pods.
  for (const n of nodes) {
    const pods = holderPods.get(n.id);
    if (pods && (n.type === 'component' || n.type === 'instance')) {
      const objects = ownersText(pods, tree.workload);
      if (objects) n.objects = objects;
    }
  }
  // A component (or instance) whose pods all went into groups under an ancestor is drawn as those
  // groups: the LWS leader and worker StatefulSets are in every group, not beside them.
  foldIntoGroups();

  const nodeIds = nodes.map((n) => n.id);
  for (const id of nodeIds) {
    const pods = plain.get(id);
    if (pods) emitPlain(id, pods, 'p', pods.length === (holderPods.get(id)?.length ?? -1));
    const s = scopes.get(id);
    if (s) emitScope(s);
  }

  if (tree.unmatchedPods.length > 0) {
    const c = countPods(tree.unmatchedPods);
    nodes.push({
      id: 'unmatched',
      type: 'unmatched',
      title: 'Unmatched pods',
      subtitle: `${formatCount(c.total)} owned, claimed by no component`,
      tone: 'warn',
      ...figuresOnNode(tree.unmatchedGpus),
    });
    holderFigures.set('unmatched', tree.unmatchedGpus);
    usageAt.set('unmatched', podsUsage(tree.unmatchedPods));
    emitPlain('unmatched', tree.unmatchedPods, 'u', true);
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
  const model: GraphModel = { nodes, edges };
  if (query) model.search = { query, ...searchPods(tree, query) };
  if (reveal && (revealed.expand.length > 0 || revealed.pages.length > 0 || nodes.some((n) => n.pod === reveal))) model.revealed = revealed;
  return model;

  function foldIntoGroups(): void {
    const moved = new Set<string>();
    for (const s of scopes.values()) for (const [, h] of s.natural) if (h !== s.id) moved.add(h);
    if (moved.size === 0) return;
    const children = new Map<string, string[]>();
    for (const e of edges) push(children, e.source, e.target);
    const parentOf = new Map(edges.map((e) => [e.target, e.source]));
    const removed = new Set<string>();
    const removable = (id: string): boolean => !plain.has(id) && !scopes.has(id) && (children.get(id) ?? []).every((c) => removed.has(c));
    // Bottom-up: an instance first, then its component once nothing of it is left.
    let changed = true;
    const candidates = new Set<string>();
    for (const h of moved) for (let at: string | undefined = h; at && at !== 'workload' && !scopes.has(at); at = parentOf.get(at)) candidates.add(at);
    while (changed) {
      changed = false;
      for (const id of candidates) {
        if (removed.has(id) || !removable(id)) continue;
        removed.add(id);
        changed = true;
      }
    }
    if (removed.size === 0) return;
    // The scope node stands for what folded into it: its GPUs and its roles.
    for (const s of scopes.values()) {
      const folded = [...removed].filter((id) => {
        for (let at = parentOf.get(id); at; at = parentOf.get(at)) if (at === s.id) return true;
        return false;
      });
      if (folded.length === 0) continue;
      const node = nodes.find((n) => n.id === s.id);
      if (!node) continue;
      const figs = folded.map((id) => componentFigures.get(id)).filter((f): f is GpuFigures => f !== undefined);
      if (node.gpus === null && figs.length > 0) Object.assign(node, figuresOnNode(figs.reduce(addFigures)));
      // Named by the roles whose pods went into the groups (the instances, not the components above them).
      const roles = folded.filter((id) => moved.has(id)).map((id) => titleOf.get(id) ?? id);
      node.subtitle = [node.subtitle, `${formatCount(s.groups.size)} group${s.groups.size === 1 ? '' : 's'} of ${roles.join(' + ')}`].filter(Boolean).join(' · ');
    }
    nodes = nodes.filter((n) => !removed.has(n.id));
    edges = edges.filter((e) => !removed.has(e.source) && !removed.has(e.target));
  }

  /** Ordered once per tree, list and search. */
  function ordered(listKey: string, pods: readonly TreePod[], order: (a: TreePod, b: TreePod) => number): TreePod[] {
    const k = `${listKey}\u0000${query}\u0000${order === problemsFirst ? 'p' : 'n'}`;
    let l = facts.ordered.get(k);
    if (!l) {
      l = [...pods].sort(order);
      facts.ordered.set(k, l);
    }
    return l;
  }

  function openAt(id: string, items: readonly TreePod[]): number {
    // The page a pod to reveal is on: the list opens there.
    if (!reveal) return pages.get(id) ?? 0;
    const i = items.findIndex((p) => p.name === reveal);
    if (i < 0) return pages.get(id) ?? 0;
    const page = Math.floor(i / pageSize);
    revealed.pages.push([id, page]);
    return page;
  }

  function holdsReveal(pods: readonly TreePod[]): boolean {
    return reveal !== null && pods.some((p) => p.name === reveal);
  }

  /** A collapsible list is open when the user expanded it, a search is on, or it holds the pod to reveal (then it is expanded). */
  function openList(id: string, pods: readonly TreePod[]): boolean {
    const holds = holdsReveal(pods);
    if (holds && !expanded.has(id)) revealed.expand.push(id);
    return expanded.has(id) || query !== '' || holds;
  }

  function emitPlain(holder: string, all: TreePod[], prefix: string, whole: boolean): void {
    const pods = query ? all.filter((p) => podMatches(p, query)) : all;
    if (pods.length === 0) return;
    if (pods.length <= collapseAbove) {
      emitPods(holder, ordered(`pods:${holder}`, pods, naturalPodOrder), prefix, null);
      return;
    }
    const id = `pods:${holder}`;
    const open = openList(id, pods);
    const counts = countPods(pods);
    const figures = whole && !query ? holderFigures.get(holder) : undefined;
    const node: GraphNode = {
      id,
      type: 'pods',
      title: `${formatCount(counts.total)} pods${query ? ' found' : ''}`,
      subtitle: histogramText(counts),
      tone: groupTone(pods),
      ...(figures ? figuresOnNode(figures) : podsFigures(pods)),
      counts,
      expanded: open,
    };
    if (!query) {
      node.toggle = id;
      node.toggleLabel = open ? 'Collapse pods' : `Show ${formatCount(counts.total)} pods`;
    }
    nodes.push(node);
    usageAt.set(id, figures ? (usageAt.get(holder) ?? null) : podsUsage(pods));
    edge(holder, id);
    if (!open) return;
    const list = ordered(id, pods, problemsFirst);
    const page = pageOf(list, openAt(id, list), pageSize);
    node.page = { index: page.index, count: page.count, from: page.from, to: page.to, total: page.total, what: 'pods' };
    emitPods(id, page.items, prefix, id);
  }

  function emitScope(s: Scope): void {
    const groups = [...s.groups].map(([replica, pods]) => ({ replica, all: pods, pods: query ? pods.filter((p) => podMatches(p, query)) : pods })).filter((g) => g.pods.length > 0);
    if (groups.length === 0) return;
    if (groups.length <= collapseAbove) {
      groups.sort((a, b) => naturalCompare(a.replica, b.replica));
      for (const g of groups) emitGroup(s.id, s, g);
      return;
    }
    const id = `groups:${s.id}`;
    const pods = groups.flatMap((g) => g.pods);
    const holds = holdsReveal(pods);
    const open = openList(id, pods);
    const counts = countPods(pods);
    const node: GraphNode = {
      id,
      type: 'groups',
      title: `${formatCount(groups.length)} groups · ${formatCount(pods.length)} pods${query ? ' found' : ''}`,
      subtitle: histogramText(counts),
      tone: groupTone(pods),
      ...podsFigures(pods),
      counts,
      expanded: open,
    };
    if (!query) {
      node.toggle = id;
      node.toggleLabel = open ? 'Collapse groups' : `Show ${formatCount(groups.length)} groups`;
    }
    nodes.push(node);
    usageAt.set(id, podsUsage(pods));
    edge(s.id, id);
    if (!open) return;
    // Groups with a problem first (by their worst pod), then by replica key in natural order.
    const rank = new Map(groups.map((g) => [g, Math.min(...g.pods.map(problemRank))]));
    const sorted = [...groups].sort((a, b) => rank.get(a)! - rank.get(b)! || naturalCompare(a.replica, b.replica));
    // A page of groups holds about a page of pods (6 groups of 4), so that it reads at fit; a
    // group too big to show its pods counts as one.
    const shown = Math.max(...groups.map((g) => (g.pods.length > collapseAbove ? 1 : g.pods.length)));
    const perPage = Math.max(1, Math.min(pageSize, Math.floor(pageSize / shown)));
    let index = pages.get(id) ?? 0;
    if (holds) {
      index = Math.floor(sorted.findIndex((g) => g.pods.some((p) => p.name === reveal)) / perPage);
      revealed.pages.push([id, index]);
    }
    const page = pageOf(sorted, index, perPage);
    node.page = { index: page.index, count: page.count, from: page.from, to: page.to, total: page.total, what: 'groups' };
    for (const g of page.items) emitGroup(id, s, g, id);
  }

  /** A replica group, hung off `from` by an edge, or drawn inside the page of groups `parent`. */
  function emitGroup(from: string, s: Scope, g: { replica: string; all: TreePod[]; pods: TreePod[] }, parent: string | null = null): void {
    const id = `g:${s.id}/${g.replica}`;
    const big = g.pods.length > collapseAbove;
    const open = !big || openList(id, g.pods);
    const natural = ordered(id, g.all, naturalPodOrder);
    const counts = countPods(g.pods);
    const node: GraphNode = {
      id,
      type: 'group',
      title: `${s.label} ${g.replica}`,
      subtitle: histogramText(counts),
      objects: ownersText(natural, tree.workload),
      tone: groupTone(g.pods),
      ...podsFigures(g.pods),
      counts,
      expanded: open,
    };
    if (big && !query) {
      node.toggle = id;
      node.toggleLabel = open ? 'Collapse pods' : `Show ${formatCount(g.pods.length)} pods`;
    }
    if (parent) node.parent = parent;
    nodes.push(node);
    usageAt.set(id, podsUsage(g.pods));
    if (!parent) edge(from, id);
    if (!open) return;
    if (!big) {
      emitPods(id, query ? natural.filter((p) => podMatches(p, query)) : natural, 'p', id);
      return;
    }
    const list = ordered(id, g.pods, problemsFirst);
    const page = pageOf(list, openAt(id, list), pageSize);
    node.page = { index: page.index, count: page.count, from: page.from, to: page.to, total: page.total, what: 'pods' };
    emitPods(id, page.items, 'p', id);
  }

  /** Pod nodes: drawn in `parent` (a container) or hung off `from` by an edge. */
  function emitPods(from: string, pods: readonly TreePod[], prefix: string, parent: string | null): void {
    const labels = shortLabels(pods.map((p) => p.name));
    const roleOf = (p: TreePod) => p.instance || p.component || '';
    const mixed = pods.some((p) => roleOf(p) !== roleOf(pods[0]));
    pods.forEach((p, i) => {
      const id = `${prefix}:${p.namespace}/${p.name}`;
      const g = podGpus(p);
      const n: GraphNode = {
        id,
        type: 'pod',
        title: p.name,
        subtitle: podSubtitle(p, mixed ? roleOf(p) : null),
        tone: podTone(p),
        gpus: g ? round(g) : null,
        gpuHint: resourcesText({ total: g, byResource: p.gpus }),
        pod: p.name,
      };
      if (labels[i] !== p.name) n.label = labels[i];
      if (p.name === selected) n.selected = true;
      if (parent) n.parent = parent;
      nodes.push(n);
      usageAt.set(id, podUsage(p));
      if (!parent) edge(from, id);
    });
  }
}
