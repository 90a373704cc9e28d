/**
 * Links between the table, the workload page and the API (namespace `_` for cluster-scoped; the
 * kind with its API group, `JobSet.jobset.x-k8s.io`, as in row ids).
 */
import type { WorkloadRow } from '../../contract/index.ts';
import { kindRef } from '../../lib/rows/identity.ts';

export interface WorkloadKey {
  cluster: string;
  namespace: string;
  /** The kind with its API group (`Job.batch`; core kinds bare), as a URL names it. */
  kind: string;
  name: string;
}

/** A row's key: its kind named with its group. */
export function keyOf(r: WorkloadRow): WorkloadKey {
  return { cluster: r.cluster, namespace: r.namespace, kind: kindRef(r.kind, r.apiVersion), name: r.name };
}

const seg = (s: string) => encodeURIComponent(s);

function path(k: WorkloadKey): string {
  return `${seg(k.cluster)}/${seg(k.namespace || '_')}/${seg(k.kind)}/${seg(k.name)}`;
}

export function workloadHref(k: WorkloadKey | WorkloadRow): string {
  return `/workloads/${path('apiVersion' in k ? keyOf(k) : k)}`;
}

export function workloadApi(k: WorkloadKey): string {
  return `/api/workloads/${path(k)}`;
}

/** The row id for a key, as `rowId` on the server builds it. */
export function keyId(k: WorkloadKey): string {
  return `${k.cluster}/${k.namespace || '_'}/${k.kind}/${k.name}`;
}

/** Route segments arrive percent-encoded; a malformed one is kept as it is. */
export function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function definitionHref(d: { name: string; source: string; cluster?: string | null }): string {
  const p = new URLSearchParams();
  if (d.source) p.set('source', d.source);
  if (d.cluster) p.set('cluster', d.cluster);
  const q = p.toString();
  return `/definitions/${seg(d.name)}${q ? `?${q}` : ''}`;
}
