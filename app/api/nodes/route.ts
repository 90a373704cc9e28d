import type { NodesPayload } from '@/contract/index.ts';
import type { LiveWorkloads } from '@/server/workloads/index.ts';
import { nodesOf } from '@/server/workloads/nodes.ts';
import { withAccess } from '../_shared/access.ts';
import { jsonError } from '../_shared/respond.ts';

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
export function GET(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const { live } = rt;
    const own = access.principal.credential.kind === 'own';
    const now = Date.now();
    if (own && last && last.live === live && now - last.at >= 0 && now - last.at < REUSE_MS) return Response.json(last.body);
    const index = live.index;
    // Shared mode: the clusters whose nodes the user may list, and only the workloads they may see as holders.
    const names = live.clusters().map((c) => c.name);
    const allowed = own ? names : (await Promise.all(names.map(async (c) => ((await access.may(c, { verb: 'list', group: '', resource: 'nodes' })).allowed ? c : null)))).filter((c): c is string => c !== null);
    if (allowed.length === 0) return jsonError(403, 'forbidden', `${access.principal.user} may not list nodes in any cluster`);
    const scope = await access.scope(live);
    const body = nodesOf({
      clusterNames: () => allowed,
      nodes: (c) => index.nodes(c),
      pods: (c) => index.pods(c),
      rowIdOf: (c, uid) => {
        const id = index.rowIdOf(c, uid);
        const row = id === undefined || own ? undefined : index.row(id);
        return own || (row && scope.test(row)) ? id : undefined;
      },
      info: (c) => live.connection(c)?.info(),
      gpuResources: index.gpuResources,
      usage: (c) => index.usage(c).snapshot,
    });
    if (own) last = { live, at: now, body };
    return Response.json(body);
  });
}
