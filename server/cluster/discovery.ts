/**
 * Discovery: which resources a cluster serves. Every group's preferred version is used for a kind,
 * except where a caller asks for a specific version (a definition written for v1beta1).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { getJson } from './http.ts';
import type { ServedResource } from './types.ts';

interface ApiResourceList {
  groupVersion: string;
  resources: Array<{ name: string; kind: string; namespaced: boolean; verbs: string[]; singularName?: string; shortNames?: string[] }>;
}
interface ApiGroupList {
  groups: Array<{ name: string; versions: Array<{ groupVersion: string; version: string }>; preferredVersion?: { version: string } }>;
}

export interface DiscoveryResult {
  /** Every served resource at every served version (subresources excluded). */
  resources: ServedResource[];
  /** Preferred version per group. */
  preferred: Map<string, string>;
  /** Group versions that failed to answer (aggregated APIs down), for reporting. */
  failed: string[];
}

function fromList(list: ApiResourceList, group: string, version: string): ServedResource[] {
  return (list.resources ?? [])
    .filter((r) => !r.name.includes('/'))
    .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [], singular: r.singularName || r.kind.toLowerCase(), shortNames: Array.isArray(r.shortNames) ? r.shortNames : [] }));
}

export async function discover(kc: KubeConfig, signal?: AbortSignal): Promise<DiscoveryResult> {
  const resources: ServedResource[] = [];
  const preferred = new Map<string, string>([['', 'v1']]);
  const failed: string[] = [];
  const core = await getJson<ApiResourceList>(kc, '/api/v1', signal);
  resources.push(...fromList(core, '', 'v1'));
  const groups = await getJson<ApiGroupList>(kc, '/apis', signal);
  const lists = await Promise.all(
    groups.groups.flatMap((g) => {
      preferred.set(g.name, g.preferredVersion?.version ?? g.versions[0]?.version ?? '');
      return g.versions.map(async (v) => {
        try {
          return fromList(await getJson<ApiResourceList>(kc, `/apis/${v.groupVersion}`, signal), g.name, v.version);
        } catch {
          failed.push(v.groupVersion);
          return [];
        }
      });
    }),
  );
  for (const l of lists) resources.push(...l);
  return { resources, preferred, failed };
}

export function resourcePath(r: ServedResource, namespace?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.resource}` : `${base}/${r.resource}`;
}
