import type { NodesPayload } from '@/contract/index.ts';
import type { LiveWorkloads } from '@/server/workloads/index.ts';
import { nodesOf } from '@/server/workloads/nodes.ts';
import { withRuntime } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Every open dashboard asks every 15 s; on a cluster of 100,000 pods one answer takes a few hundred
 * milliseconds of the event loop, so answers younger than this are shared.
 */
const REUSE_MS = 2_000;
let last: { live: LiveWorkloads; at: number; body: NodesPayload } | null = null;

/**
 * `GET /api/nodes`: every cluster's GPU nodes grouped by product and pool, with capacity,
 * allocatable, allocated and free per GPU resource, and per-cluster totals (null when the nodes
 * cannot be listed: unknown, never 0).
 */
export function GET(): Promise<Response> {
  return withRuntime((rt) => {
    const { live } = rt;
    const now = Date.now();
    if (last && last.live === live && now - last.at >= 0 && now - last.at < REUSE_MS) return Response.json(last.body);
    const index = live.index;
    const body = nodesOf({
      clusterNames: () => live.clusters().map((c) => c.name),
      nodes: (c) => index.nodes(c),
      pods: (c) => index.pods(c),
      rowIdOf: (c, uid) => index.rowIdOf(c, uid),
      info: (c) => live.connection(c)?.info(),
      gpuResources: index.gpuResources,
      usage: (c) => index.usage(c).snapshot,
    });
    last = { live, at: now, body };
    return Response.json(body);
  });
}
