import { conservation } from '@/server/workloads/conservation.ts';
import { withAccess } from '../_shared/access.ts';
import { jsonError } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/accounting`: per cluster and GPU resource, the rows' requested GPUs against the live
 * pods' (summed from their specs independently of the engine), and the pods no row counts.
 */
export async function GET(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    // The balance is over every pod of a cluster: only for whoever may list them all.
    for (const c of rt.live.clusters()) {
      const d = await access.may(c.name, { verb: 'list', group: '', resource: 'pods' });
      if (!d.allowed) return jsonError(403, 'forbidden', `the GPU accounting covers every pod: ${d.reason}`);
    }
    const clusters = conservation(rt.live.index);
    return Response.json({ ok: clusters.every((c) => c.ok), clusters });
  });
}
