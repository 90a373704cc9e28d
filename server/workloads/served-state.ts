/** What a metrics scrape reads from the live index and its connections (server/metrics/prometheus.ts's ServedState). */
import type { LiveWorkloads } from './live.ts';
import type { WorkloadRow } from './row.ts';

export interface ServedClusterFacts {
  name: string;
  state: 'connecting' | 'connected' | 'unreachable';
  synced: boolean;
  kinds: Array<{ resource: string; state: string }>;
  objects: Array<{ kind: string; count: number }>;
}

export function servedState(live: LiveWorkloads): { clusters(): ServedClusterFacts[]; rows(): Iterable<WorkloadRow> } {
  return {
    clusters: () => live.clusters().map((c) => {
      const conn = live.connection(c.name);
      const kinds = (conn?.info().kinds ?? []).map((k) => ({ resource: k.resource.group ? `${k.resource.resource}.${k.resource.group}` : k.resource.resource, state: k.state }));
      // The index keys kinds as `group/Kind`; series name them as row ids and URLs do, `Kind.group`.
      const objects = live.index.objectsByKind(c.name).map((o) => {
        const slash = o.kind.indexOf('/');
        const group = o.kind.slice(0, slash);
        const kind = o.kind.slice(slash + 1);
        return { kind: group ? `${kind}.${group}` : kind, count: o.count };
      });
      return { name: c.name, state: c.state, synced: c.synced, kinds, objects };
    }),
    rows: () => live.index.allRows(),
  };
}
