/**
 * GPU capacity: the nodes of a cluster, grouped by GPU product and node pool, each with what it
 * advertises (capacity, allocatable, MIG profiles), its state (taints, cordoned, NotReady) and what
 * holds its GPUs (the pods bound to it and not finished, and the rows they count towards). Pure over
 * node and pod objects and a pod → row-id lookup; `nodesOf` reads them from the live index.
 */
import type { ClusterNodes, GpuCapacity, Listing, MigSlice, NodeGroup, NodeSummary, NodeTaint, NodeWorkload, NodesPayload, ResourceCapacity } from '../../contract/index.ts';
import { DEFAULT_GPU_RESOURCES, gpuResourceMatcher, podIsFinished, podSpecGpus, type KubeObject } from '../engine/index.ts';
import type { UsageSnapshot } from '../usage/index.ts';
import { nodeReadings, podStartsOf } from './node-readings.ts';
import { deviceWorth as worthOnNode, nodeGpuInfo } from '../../lib/gpu/device-worth.ts';

/** Node labels that name a node's pool, in order of preference; the first a node has is its pool. */
export const POOL_LABELS: readonly string[] = [
  'cloud.google.com/gke-nodepool',
  'eks.amazonaws.com/nodegroup',
  'karpenter.sh/nodepool',
  'kubernetes.azure.com/agentpool',
  'node.kubernetes.io/instance-type',
];

export const PRODUCT_LABEL = 'nvidia.com/gpu.product';
const MIG_PREFIX = 'nvidia.com/mig-';

/** How much one unit of a GPU resource is worth on a node, in GPU devices (its `total`s). */
export type UnitWorth = (resource: string, node: KubeObject) => number;

/**
 * GPU devices' worth of one unit of a resource on a node (lib/gpu/device-worth.ts, as the rows count
 * them): a whole GPU is 1, a MIG slice its compute slices over its GPU's, a time-sliced replica
 * 1/replicas when the node says how many; a unit that cannot be converted is 0 here and counted
 * only apart, in `resources`.
 */
export function deviceWorth(resource: string, node: KubeObject): number {
  return worthOnNode(resource, nodeGpuInfo(labelsOf(node))) ?? 0;
}

export interface ClusterNodesInput {
  cluster: string;
  nodes: Iterable<KubeObject>;
  pods: Iterable<KubeObject>;
  /** The row a pod counts towards (its id), if any. */
  rowIdOf: (pod: KubeObject) => string | undefined;
  nodesListing: Listing;
  podsListing: Listing;
  /** Which extended resources count as GPUs (the index's configured list; default: the engine's). */
  gpuResources?: readonly string[];
  unitWorth?: UnitWorth;
  /** A node's utilization readings (node-readings.ts); none (null) when absent. */
  readings?: (node: KubeObject) => NodeSummary['gpuReadings'];
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const byName = new Intl.Collator('en', { numeric: true }).compare;

/** A device count as a node reports it for an extended resource: a whole, non-negative number. */
function deviceCount(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : null;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v.trim())) return Number(v.trim());
  return null;
}

interface Amounts {
  capacity: Map<string, number>;
  allocatable: Map<string, number>;
}

function nodeAmounts(node: KubeObject, isGpu: (r: string) => boolean, unreadable: string[]): Amounts {
  const status = isRecord(node.status) ? node.status : {};
  const read = (field: 'capacity' | 'allocatable'): Map<string, number> => {
    const out = new Map<string, number>();
    const list = isRecord(status[field]) ? status[field] : {};
    for (const [name, raw] of Object.entries(list)) {
      if (!isGpu(name)) continue;
      const n = deviceCount(raw);
      if (n === null) unreadable.push(`${field} ${name} ${JSON.stringify(raw)}`);
      else out.set(name, n);
    }
    return out;
  };
  return { capacity: read('capacity'), allocatable: read('allocatable') };
}

function readyOf(node: KubeObject): { ready: boolean; reason: string | null } {
  const status = isRecord(node.status) ? node.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const c = conditions.find((x) => isRecord(x) && x.type === 'Ready') as Record<string, unknown> | undefined;
  if (!c) return { ready: false, reason: 'no Ready condition reported' };
  if (c.status === 'True') return { ready: true, reason: null };
  const why = [str(c.reason), str(c.message)].filter(Boolean).join(': ');
  return { ready: false, reason: `Ready is ${String(c.status ?? 'unknown')}${why ? ` (${why})` : ''}` };
}

function taintsOf(node: KubeObject): NodeTaint[] {
  const spec = isRecord(node.spec) ? node.spec : {};
  if (!Array.isArray(spec.taints)) return [];
  return spec.taints.filter(isRecord).map((t) => ({ key: String(t.key ?? ''), value: str(t.value), effect: String(t.effect ?? '') }));
}

function labelsOf(node: KubeObject): Record<string, string> {
  const l = node.metadata?.labels;
  return isRecord(l) ? (l as Record<string, string>) : {};
}

export function poolOf(labels: Record<string, string>): { label: string; value: string } | null {
  for (const label of POOL_LABELS) {
    const value = str(labels[label]);
    if (value) return { label, value };
  }
  return null;
}

function nodeNameOf(pod: KubeObject): string | null {
  return isRecord(pod.spec) ? str(pod.spec.nodeName) : null;
}

/** `cluster/namespace/Kind.group/name` → its parts (read from the right: a cluster name may hold `/`). */
function rowParts(id: string): { kind: string; namespace: string; name: string } {
  const parts = id.split('/');
  const name = parts.pop() ?? '';
  const kind = parts.pop() ?? '';
  const ns = parts.pop() ?? '';
  return { kind, namespace: ns === '_' ? '' : ns, name };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

function capacityOf(capacity: number, allocatable: number, allocated: number | null): GpuCapacity {
  return { capacity: round(capacity), allocatable: round(allocatable), allocated: allocated === null ? null : round(allocated), free: allocated === null ? null : round(Math.max(0, allocatable - allocated)) };
}

/** Sums are kept unrounded (fractions of devices add up over thousands of nodes) and rounded when shown. */
function addCapacity(into: GpuCapacity, c: GpuCapacity): void {
  into.capacity += c.capacity;
  into.allocatable += c.allocatable;
  into.allocated = into.allocated === null || c.allocated === null ? null : into.allocated + c.allocated;
  into.free = into.free === null || c.free === null ? null : into.free + c.free;
}

function rounded(c: GpuCapacity): GpuCapacity {
  return { capacity: round(c.capacity), allocatable: round(c.allocatable), allocated: c.allocated === null ? null : round(c.allocated), free: c.free === null ? null : round(c.free) };
}

const zero = (known: boolean): GpuCapacity => ({ capacity: 0, allocatable: 0, allocated: known ? 0 : null, free: known ? 0 : null });

function sumResources(lists: Iterable<ResourceCapacity[]>, known: boolean): ResourceCapacity[] {
  const by = new Map<string, ResourceCapacity>();
  for (const list of lists) {
    for (const r of list) {
      let into = by.get(r.resource);
      if (!into) by.set(r.resource, (into = { resource: r.resource, ...zero(known) }));
      addCapacity(into, r);
    }
  }
  return [...by.values()].map((r) => ({ resource: r.resource, ...rounded(r) })).sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
}

function sumTotals(list: Iterable<GpuCapacity>, known: boolean): GpuCapacity {
  const t = zero(known);
  for (const c of list) addCapacity(t, c);
  return rounded(t);
}

const NO_GPUS: Readonly<Record<string, number>> = Object.freeze({});

/** Does any container (or the overhead) name a GPU resource? Most pods do not: a cheap check before the full rule. */
function mentionsGpu(spec: Record<string, unknown>, isGpu: (r: string) => boolean): boolean {
  for (const list of [spec.containers, spec.initContainers]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) {
      const res = isRecord(c) && isRecord(c.resources) ? c.resources : null;
      if (!res) continue;
      for (const field of [res.requests, res.limits]) if (isRecord(field)) for (const k in field) if (isGpu(k)) return true;
    }
  }
  if (isRecord(spec.overhead)) for (const k in spec.overhead) if (isGpu(k)) return true;
  return false;
}

/** A GPU resource list's matcher, and each pod's GPUs under it. */
interface Counting {
  isGpu: (resource: string) => boolean;
  /**
   * A pod's GPUs by the engine's rule, remembered per pod object: a watch event replaces the object,
   * so a remembered answer is never out of date, and a request over 100,000 pods does not evaluate
   * every spec again.
   */
  remembered: WeakMap<KubeObject, Readonly<Record<string, number>>>;
}

const countings = new Map<string, Counting>();
function countingFor(patterns: readonly string[] | undefined): Counting {
  const key = (patterns ?? DEFAULT_GPU_RESOURCES).join('\n');
  let c = countings.get(key);
  if (!c) {
    // A handful of lists per process at most (flags, config file); guard against unbounded growth anyway.
    if (countings.size > 16) countings.clear();
    countings.set(key, (c = { isGpu: gpuResourceMatcher(patterns ?? DEFAULT_GPU_RESOURCES), remembered: new WeakMap() }));
  }
  return c;
}

function podGpus(pod: KubeObject, c: Counting): Readonly<Record<string, number>> {
  const known = c.remembered.get(pod);
  if (known) return known;
  const spec = isRecord(pod.spec) ? pod.spec : {};
  let gpus: Readonly<Record<string, number>> = NO_GPUS;
  if (mentionsGpu(spec, c.isGpu)) {
    const g = podSpecGpus(spec, c.isGpu);
    for (const k in g) if (!(g[k] > 0)) delete g[k];
    if (Object.keys(g).length > 0) gpus = g;
  }
  c.remembered.set(pod, gpus);
  return gpus;
}

interface PodsOnNode {
  live: number;
  gpus: Map<string, number>;
  workloads: Map<string, NodeWorkload>;
}

/** One cluster's GPU nodes and their totals. */
export function clusterNodes(input: ClusterNodesInput): ClusterNodes {
  const { cluster, nodesListing, podsListing } = input;
  const counting = countingFor(input.gpuResources);
  const isGpu = counting.isGpu;
  const worth = input.unitWorth ?? deviceWorth;
  const nodesKnown = nodesListing.state === 'listed' || nodesListing.state === 'stale';
  const podsKnown = podsListing.state === 'listed' || podsListing.state === 'stale';
  const none: ClusterNodes = { cluster, nodesListing, podsListing, nodeCount: null, groups: [], resources: null, total: null, schedulableFree: null, podsOnUnlistedNodes: { count: 0, examples: [] } };
  if (!nodesKnown) return none;

  const nodes = new Map<string, KubeObject>();
  for (const n of input.nodes) {
    const name = str(n.metadata?.name);
    if (name) nodes.set(name, n);
  }

  // One pass over the pods: what each node's pods hold, and by which rows.
  const onNode = new Map<string, PodsOnNode>();
  const unlisted: string[] = [];
  if (podsKnown) {
    for (const pod of input.pods) {
      const nodeName = nodeNameOf(pod);
      if (!nodeName || podIsFinished(pod)) continue;
      const gpus = podGpus(pod, counting);
      const hasGpus = gpus !== NO_GPUS;
      if (!nodes.has(nodeName)) {
        if (hasGpus) unlisted.push(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
        continue;
      }
      let p = onNode.get(nodeName);
      if (!p) onNode.set(nodeName, (p = { live: 0, gpus: new Map(), workloads: new Map() }));
      p.live++;
      if (!hasGpus) continue;
      for (const [r, v] of Object.entries(gpus)) p.gpus.set(r, (p.gpus.get(r) ?? 0) + v);
      const id = input.rowIdOf(pod);
      const key = id ?? `pod:${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
      let w = p.workloads.get(key);
      if (!w) {
        const parts = id ? rowParts(id) : { kind: 'Pod', namespace: String(pod.metadata?.namespace ?? ''), name: String(pod.metadata?.name ?? '') };
        p.workloads.set(key, (w = { id: id ?? null, ...parts, pods: 0, gpus: {}, total: 0 }));
      }
      w.pods++;
      for (const [r, v] of Object.entries(gpus)) {
        w.gpus[r] = round((w.gpus[r] ?? 0) + v);
        w.total += v * worth(r, nodes.get(nodeName)!);
      }
    }
  }

  const summaries: NodeSummary[] = [];
  /** Each node's total before rounding, for the sums. */
  const raw = new Map<string, GpuCapacity>();
  const rawOf = (n: NodeSummary) => raw.get(n.name)!;
  for (const [name, node] of nodes) {
    const labels = labelsOf(node);
    const unreadable: string[] = [];
    const a = nodeAmounts(node, isGpu, unreadable);
    const pods = onNode.get(name);
    const product = str(labels[PRODUCT_LABEL]);
    const names = new Set([...a.capacity.keys(), ...a.allocatable.keys(), ...(pods?.gpus.keys() ?? [])]);
    // A GPU node: it advertises a GPU resource (even 0 of it: a failing device plugin), names a GPU product, or holds GPU pods.
    if (names.size === 0 && !product && unreadable.length === 0) continue;
    const resources = [...names].sort().map((resource) => ({ resource, ...capacityOf(a.capacity.get(resource) ?? 0, a.allocatable.get(resource) ?? 0, podsKnown ? (pods?.gpus.get(resource) ?? 0) : null) }));
    const total = zero(podsKnown);
    for (const r of resources) {
      const w = worth(r.resource, node);
      addCapacity(total, { capacity: r.capacity * w, allocatable: r.allocatable * w, allocated: r.allocated === null ? null : r.allocated * w, free: r.free === null ? null : r.free * w });
    }
    const slices: MigSlice[] = resources.filter((r) => r.resource.startsWith(MIG_PREFIX)).map((r) => ({ ...r, profile: r.resource.slice(MIG_PREFIX.length) }));
    const { ready, reason } = readyOf(node);
    const cordoned = isRecord(node.spec) && node.spec.unschedulable === true;
    raw.set(name, total);
    summaries.push({
      name,
      cluster,
      product,
      pool: poolOf(labels),
      resources,
      total: rounded(total),
      mig: { strategy: str(labels['nvidia.com/mig.strategy']), config: str(labels['nvidia.com/mig.config']), state: str(labels['nvidia.com/mig.config.state']), slices },
      taints: taintsOf(node),
      cordoned,
      ready,
      notReadyReason: reason,
      schedulable: ready && !cordoned,
      unreadable,
      pods: pods?.live ?? 0,
      workloads: [...(pods?.workloads.values() ?? [])].map((w) => ({ ...w, total: round(w.total) })).sort((x, y) => y.total - x.total || byName(x.name, y.name)),
      gpuReadings: input.readings?.(node) ?? null,
    });
  }
  summaries.sort((x, y) => byName(x.name, y.name));

  const groups = new Map<string, NodeGroup>();
  for (const s of summaries) {
    const key = JSON.stringify([s.product, s.pool?.label, s.pool?.value]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { product: s.product, pool: s.pool, nodes: [], resources: [], total: zero(podsKnown) }));
    g.nodes.push(s);
  }
  for (const g of groups.values()) {
    g.resources = sumResources(g.nodes.map((n) => n.resources), podsKnown);
    g.total = sumTotals(g.nodes.map(rawOf), podsKnown);
  }
  // Products by name, unknown products last; within one, pools by name.
  const ordered = [...groups.values()].sort((x, y) => (x.product === null) !== (y.product === null) ? (x.product === null ? 1 : -1) : byName(x.product ?? '', y.product ?? '') || byName(x.pool?.value ?? '', y.pool?.value ?? ''));

  return {
    cluster,
    nodesListing,
    podsListing,
    nodeCount: nodes.size,
    groups: ordered,
    resources: sumResources(summaries.map((n) => n.resources), podsKnown),
    total: sumTotals(summaries.map(rawOf), podsKnown),
    schedulableFree: podsKnown ? round(summaries.filter((n) => n.schedulable).reduce((a, n) => a + (rawOf(n).free ?? 0), 0)) : null,
    podsOnUnlistedNodes: { count: unlisted.length, examples: unlisted.sort().slice(0, 20) },
  };
}

/** What the live layer says about one watched kind of a cluster (a `ConnectionInfo`'s parts). */
export interface KindsInfo {
  state?: string;
  unreachableSince: number | null;
  kinds: ReadonlyArray<{ gk: string; state: string; synced: boolean; failingSince: number | null; message: string | null }>;
}

/** Whether a kind can be read, from its list+watch state. */
export function listingOf(info: KindsInfo | undefined, gk: string): Listing {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  if (!info) return { state: 'listing', since: null, message: 'not connected yet' };
  const k = info.kinds.find((x) => x.gk === gk);
  if (!k) {
    if (info.unreachableSince !== null) return { state: 'failing', since: iso(info.unreachableSince), message: 'the cluster is unreachable' };
    return info.state === 'connected' ? { state: 'unwatched', since: null, message: 'not served by the cluster' } : { state: 'listing', since: null, message: 'discovering the API' };
  }
  if (k.state === 'forbidden') return { state: 'forbidden', since: null, message: k.message };
  const failingSince = k.failingSince ?? info.unreachableSince;
  if (!k.synced) return failingSince !== null ? { state: 'failing', since: iso(failingSince), message: k.message } : { state: 'listing', since: null, message: null };
  return failingSince !== null ? { state: 'stale', since: iso(failingSince), message: k.message ?? 'the cluster is unreachable' } : { state: 'listed', since: null, message: null };
}

/** The live side `nodesOf` reads: the index's objects and rows, and each cluster's list+watch states. */
export interface NodesSource {
  clusterNames(): string[];
  nodes(cluster: string): Iterable<KubeObject>;
  pods(cluster: string): Iterable<KubeObject>;
  rowIdOf(cluster: string, uid: string): string | undefined;
  info(cluster: string): KindsInfo | undefined;
  /** Which extended resources count as GPUs (default: the engine's). */
  readonly gpuResources?: readonly string[];
  /** The cluster's utilization readings, when it has any. */
  usage?(cluster: string): UsageSnapshot | null;
}

/** `GET /api/nodes`: every cluster's GPU nodes. */
export function nodesOf(src: NodesSource): NodesPayload {
  return {
    poolLabels: [...POOL_LABELS],
    clusters: src.clusterNames().map((cluster) => {
      const info = src.info(cluster);
      return clusterNodes({
        cluster,
        nodes: src.nodes(cluster),
        pods: src.pods(cluster),
        rowIdOf: (pod) => src.rowIdOf(cluster, String(pod.metadata?.uid ?? '')),
        nodesListing: listingOf(info, '/Node'),
        podsListing: listingOf(info, '/Pod'),
        gpuResources: src.gpuResources,
        readings: nodeReadings(src.usage?.(cluster) ?? null, podStartsOf(() => src.pods(cluster))),
      });
    }),
  };
}
