import { conservation } from '@/server/workloads/conservation.ts';
import { withRuntime } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/accounting`: per cluster and GPU resource, the rows' requested GPUs against the live
 * pods' (summed from their specs independently of the engine), and the pods no row counts.
 */
export async function GET(): Promise<Response> {
  return withRuntime((rt) => {
    const clusters = conservation(rt.live.index);
    return Response.json({ ok: clusters.every((c) => c.ok), clusters });
  });
}
