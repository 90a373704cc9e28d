import { workloadDetail } from '@/server/workloads/views.ts';
import { jsonError, withRuntime } from '../../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; kind: string; name: string }>;
}

export async function GET(_req: Request, { params }: Params): Promise<Response> {
  const { cluster, namespace, kind, name } = await params;
  return withRuntime((rt) => {
    const d = workloadDetail(rt.live.index, cluster, namespace, kind, name);
    if (!d) return jsonError(404, 'not_found', `no workload ${kind} ${namespace}/${name} in cluster ${cluster}`);
    return Response.json(d);
  });
}
