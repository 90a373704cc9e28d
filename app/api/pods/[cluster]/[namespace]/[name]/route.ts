import { podDetail } from '@/server/workloads/pod-inspect.ts';
import { mayReadPod, withAccess } from '../../../../_shared/access.ts';
import { jsonError } from '../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; name: string }>;
}

/** `GET /api/pods/{cluster}/{namespace}/{name}[?uid=…]`: the pod panel (conditions, containers, events, the object). */
export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { cluster, namespace, name } = await params;
  const uid = new URL(req.url).searchParams.get('uid');
  return withAccess(req, async (rt, access) => {
    const ns = namespace === '_' ? '' : namespace;
    const denied = await mayReadPod(access, cluster, ns, name);
    if (denied) return denied;
    const d = await podDetail(rt.live.index, rt.live.reader(cluster, access.actAs(cluster)), cluster, ns, name, uid, Date.now());
    if (!d) return jsonError(404, 'not_found', `no pod ${namespace}/${name} in cluster ${cluster} (it may have been deleted)`);
    return Response.json(d);
  });
}
