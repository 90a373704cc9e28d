import { z } from 'zod';
import { pageOfRows } from '@/server/workloads/views.ts';
import { withAccess } from '../_shared/access.ts';
import { badRequest, queryObject, rowQueryOf } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

// Paging only: filters and sorts are the row query's (lib/rows), read by rowQueryOf.
const paging = z.object({
  limit: z.coerce.number().int().min(1).max(50_000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
});

export function GET(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const url = new URL(req.url);
    const query = rowQueryOf(url);
    if (query instanceof Response) return query;
    const { limit, offset } = queryObject(url);
    const p = paging.safeParse({ limit, offset });
    if (!p.success) return badRequest(p.error);
    return Response.json(pageOfRows(rt.live.index, query, p.data.limit, p.data.offset, Date.now(), await access.scope(rt.live)));
  });
}
