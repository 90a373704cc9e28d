import { workloadEvents } from '@/server/workloads/pod-inspect.ts';
import { jsonError, withRuntime } from '../../../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; kind: string; name: string }>;
}

/** `GET …/events`: events about the workload's root and everything it owns, newest first. */
export async function GET(_req: Request, { params }: Params): Promise<Response> {
  const { cluster, namespace, kind, name } = await params;
  return withRuntime(async (rt) => {
    const list = await workloadEvents(rt.live.index, rt.live.reader(cluster), cluster, namespace, kind, name, Date.now());
    if (!list) return jsonError(404, 'not_found', `no workload ${kind} ${namespace}/${name} in cluster ${cluster}`);
    return Response.json(list);
  });
}
