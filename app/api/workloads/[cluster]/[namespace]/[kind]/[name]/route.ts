import { workloadDetail } from '@/server/workloads/views.ts';
import { withAccess, visibleRow } from '../../../../../_shared/access.ts';
import { jsonError } from '../../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; kind: string; name: string }>;
}

export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { cluster, namespace, kind, name } = await params;
  return withAccess(req, async (rt, access) => {
    const row = await visibleRow(rt, access, { cluster, namespace, kind, name });
    if (row instanceof Response) return row;
    const d = workloadDetail(rt.live.index, cluster, namespace, kind, name);
    if (!d) return jsonError(404, 'not_found', `no workload ${kind} ${namespace}/${name} in cluster ${cluster}`);
    return Response.json(d);
  });
}
