import { z } from 'zod';
import { SORT_FIELDS } from '@/server/workloads/index.ts';
import { pageOfRows } from '@/server/workloads/views.ts';
import { badRequest, filterQuery, queryObject, withRuntime } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const query = filterQuery.extend({
  sort: z.enum(SORT_FIELDS).default('name'),
  order: z.enum(['asc', 'desc']).default('asc'),
  limit: z.coerce.number().int().min(1).max(50_000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
});

export function GET(req: Request): Promise<Response> {
  return withRuntime((rt) => {
    const p = query.safeParse(queryObject(new URL(req.url)));
    if (!p.success) return badRequest(p.error);
    const { sort, order, limit, offset, ...filter } = p.data;
    return Response.json(pageOfRows(rt.live.index, filter, sort, order, limit, offset));
  });
}
