import { workloadEvents } from '@/server/workloads/pod-inspect.ts';
import { withAccess, visibleRow } from '../../../../../../_shared/access.ts';
import { jsonError } from '../../../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; kind: string; name: string }>;
}

/** `GET …/events`: events about the workload's root and everything it owns, newest first. */
export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { cluster, namespace, kind, name } = await params;
  return withAccess(req, async (rt, access) => {
    const row = await visibleRow(rt, access, { cluster, namespace, kind, name });
    if (row instanceof Response) return row;
    // Read as the user: the events they may not list are the API server's to refuse.
    const list = await workloadEvents(rt.live.index, rt.live.reader(cluster, access.actAs(cluster)), cluster, namespace, kind, name, Date.now());
    if (!list) return jsonError(404, 'not_found', `no workload ${kind} ${namespace}/${name} in cluster ${cluster}`);
    return Response.json(list);
  });
}
