import { z } from 'zod';
import { definitionDetail } from '@/server/workloads/views.ts';
import { badRequest, jsonError, queryObject, withRuntime } from '../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const query = z.object({ source: z.enum(['catalog', 'cluster']).optional(), cluster: z.string().optional() });

export async function GET(req: Request, { params }: { params: Promise<{ name: string }> }): Promise<Response> {
  const { name } = await params;
  return withRuntime((rt) => {
    const p = query.safeParse(queryObject(new URL(req.url)));
    if (!p.success) return badRequest(p.error);
    const d = definitionDetail(rt.live.index, name, p.data.source, p.data.cluster);
    return d ? Response.json(d) : jsonError(404, 'not_found', `no definition named ${name}`);
  });
}
