/**
 * The nodes view's filters and their URL form (`/nodes?minFree=8&resource=nvidia.com/gpu&node=a`):
 * free text over name, product and pool; free GPUs at least N (of one GPU resource, or of all of
 * them); only schedulable nodes; given node names (the workload page links `?node=`); clusters. Pure.
 */
import type { ClusterNodes, NodeGroup, NodeSummary } from '../../contract/index.ts';

export interface NodeFilter {
  q: string;
  /** Free GPUs at least this many (null: no bound). */
  minFree: number | null;
  /** The GPU resource `minFree` counts (`nvidia.com/gpu`); empty: all GPU resources (the node's total). */
  resource: string;
  schedulable: boolean;
  /** Exact node names (any of them); empty: every node. */
  node: string[];
  cluster: string[];
}

export const EMPTY_FILTER: NodeFilter = Object.freeze({ q: '', minFree: null, resource: '', schedulable: false, node: [], cluster: [] }) as NodeFilter;

interface ParamsLike {
  get(name: string): string | null;
  getAll(name: string): string[];
}

export function parseNodeFilter(qs: string | ParamsLike): NodeFilter {
  const p = typeof qs === 'string' ? new URLSearchParams(qs) : qs;
  const min = p.get('minFree');
  const n = min === null || min.trim() === '' ? null : Number(min);
  return {
    q: (p.get('q') ?? '').slice(0, 200),
    minFree: n !== null && Number.isFinite(n) && n >= 0 ? n : null,
    resource: p.get('resource') ?? '',
    schedulable: p.get('schedulable') === '1' || p.get('schedulable') === 'true',
    // Node names hold no commas; cluster (kubeconfig context) names may, so they are repeated only.
    node: p.getAll('node').flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean),
    cluster: p.getAll('cluster').filter(Boolean),
  };
}

export function encodeNodeFilter(f: NodeFilter): string {
  const p = new URLSearchParams();
  if (f.q.trim()) p.set('q', f.q);
  if (f.minFree !== null) p.set('minFree', String(f.minFree));
  if (f.resource) p.set('resource', f.resource);
  if (f.schedulable) p.set('schedulable', '1');
  if (f.node.length > 0) p.set('node', f.node.join(','));
  for (const c of f.cluster) p.append('cluster', c);
  return p.toString();
}

export function hasNodeFilters(f: NodeFilter): boolean {
  return encodeNodeFilter(f) !== '';
}

/** A node's free GPUs as the filter counts them; null when unknown (the pods cannot be listed). */
export function freeOf(n: NodeSummary, resource: string): number | null {
  if (!resource) return n.total.free;
  const r = n.resources.find((x) => x.resource === resource);
  return r ? r.free : 0;
}

export function matchesNode(n: NodeSummary, f: NodeFilter): boolean {
  if (f.node.length > 0 && !f.node.includes(n.name)) return false;
  if (f.schedulable && !n.schedulable) return false;
  if (f.minFree !== null) {
    const free = freeOf(n, f.resource);
    if (free === null || free < f.minFree) return false;
  }
  if (f.q.trim()) {
    const hay = [n.name, n.product ?? '', n.pool?.value ?? '', ...n.workloads.map((w) => `${w.namespace}/${w.name}`)].join(' ').toLowerCase();
    if (!f.q.toLowerCase().split(/\s+/).filter(Boolean).every((t) => hay.includes(t))) return false;
  }
  return true;
}

export interface ShownGroup {
  group: NodeGroup;
  nodes: NodeSummary[];
}

/** The groups of one cluster with the nodes that pass; groups with none are left out. */
export function filterGroups(c: ClusterNodes, f: NodeFilter): ShownGroup[] {
  if (f.cluster.length > 0 && !f.cluster.includes(c.cluster)) return [];
  const out: ShownGroup[] = [];
  for (const group of c.groups) {
    const nodes = group.nodes.filter((n) => matchesNode(n, f));
    if (nodes.length > 0) out.push({ group, nodes });
  }
  return out;
}

/** GPU resources any node of the payload has, for the filter's resource choice. */
export function resourcesOf(clusters: readonly ClusterNodes[]): string[] {
  const s = new Set<string>();
  for (const c of clusters) for (const r of c.resources ?? []) s.add(r.resource);
  return [...s].sort();
}
