/**
 * The clusters' GPU capacity as the workloads table's totals strip shows it: capacity, allocatable,
 * allocated and free summed over the clusters whose nodes are known. A cluster whose nodes are not
 * loaded or cannot be listed is named as unknown and left out of the sums — never counted as 0.
 */
import type { ClusterNodes, ListingState, NodesPayload, ResourceCapacity } from '../../contract/index.ts';

export interface CapacitySummary {
  /** Nothing to sum: not loaded, or no selected cluster's nodes are known. */
  known: boolean;
  capacity: number;
  allocatable: number;
  /** Null when a known cluster's pods cannot be listed. */
  allocated: number | null;
  free: number | null;
  /** Clusters left out of the sums, with why (`forbidden`, `listing`, …). */
  unknown: Array<{ cluster: string; why: string }>;
  /** Clusters whose figures are the last seen (their nodes' or pods' watch is failing). */
  stale: string[];
  /** Per GPU resource over the known clusters (for the hover). */
  resources: ResourceCapacity[];
}

const WHY: Record<ListingState, string> = {
  listed: '',
  stale: '',
  listing: 'nodes not listed yet',
  forbidden: 'not allowed to list nodes',
  failing: 'nodes cannot be listed',
  unwatched: 'nodes are not served',
};

const round = (n: number) => Math.round(n * 1000) / 1000;

/** `clusters`: the table's cluster filter (empty: every cluster). */
export function capacitySummary(payload: NodesPayload | undefined, clusters: readonly string[] = []): CapacitySummary {
  const out: CapacitySummary = { known: false, capacity: 0, allocatable: 0, allocated: 0, free: 0, unknown: [], stale: [], resources: [] };
  if (!payload) return { ...out, allocated: null, free: null };
  const selected: ClusterNodes[] = payload.clusters.filter((c) => clusters.length === 0 || clusters.includes(c.cluster));
  const byResource = new Map<string, ResourceCapacity>();
  for (const c of selected) {
    if (c.total === null || c.resources === null) {
      out.unknown.push({ cluster: c.cluster, why: c.nodesListing.message ? `${WHY[c.nodesListing.state]}: ${c.nodesListing.message}` : WHY[c.nodesListing.state] });
      continue;
    }
    out.known = true;
    if (c.nodesListing.state === 'stale' || c.podsListing.state === 'stale') out.stale.push(c.cluster);
    out.capacity = round(out.capacity + c.total.capacity);
    out.allocatable = round(out.allocatable + c.total.allocatable);
    out.allocated = out.allocated === null || c.total.allocated === null ? null : round(out.allocated + c.total.allocated);
    out.free = out.free === null || c.total.free === null ? null : round(out.free + c.total.free);
    for (const r of c.resources) {
      const into = byResource.get(r.resource) ?? { resource: r.resource, capacity: 0, allocatable: 0, allocated: 0, free: 0 };
      byResource.set(r.resource, {
        resource: r.resource,
        capacity: round(into.capacity + r.capacity),
        allocatable: round(into.allocatable + r.allocatable),
        allocated: into.allocated === null || r.allocated === null ? null : round(into.allocated + r.allocated),
        free: into.free === null || r.free === null ? null : round(into.free + r.free),
      });
    }
  }
  if (!out.known) return { ...out, allocated: null, free: null };
  out.resources = [...byResource.values()].sort((a, b) => (a.resource < b.resource ? -1 : 1));
  return out;
}

/** The hover of the strip: per resource, and what is left out. */
export function capacityDetail(s: CapacitySummary): string {
  const n = (v: number | null) => (v === null ? 'unknown' : String(v));
  const lines = s.resources.map((r) => `${r.resource}: capacity ${r.capacity}, allocatable ${r.allocatable}, allocated ${n(r.allocated)}, free ${n(r.free)}`);
  if (s.resources.length > 0) lines.push("Totals are GPU devices' worth: a MIG slice counts as its share of its GPU (3g.40gb on an A100: 3/7).");
  for (const u of s.unknown) lines.push(`${u.cluster}: capacity unknown (${u.why})`);
  if (s.stale.length > 0) lines.push(`Last seen, possibly out of date: ${s.stale.join(', ')}`);
  return lines.join('\n');
}
