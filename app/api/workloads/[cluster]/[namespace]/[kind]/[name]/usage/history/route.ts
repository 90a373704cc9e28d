import { usageHistory } from '@/server/workloads/usage-history.ts';
import { withAccess, visibleRow } from '../../../../../../../_shared/access.ts';
import { jsonError } from '../../../../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; kind: string; name: string }>;
}

/** `GET …/usage/history`: the workload's utilization per role over the last hour (Prometheus only; says why not otherwise). */
export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { cluster, namespace, kind, name } = await params;
  return withAccess(req, async (rt, access) => {
    const row = await visibleRow(rt, access, { cluster, namespace, kind, name });
    if (row instanceof Response) return row;
    const snap = rt.live.index.usage(row.cluster).snapshot;
    const history = snap?.history ?? false;
    const reasonWithout = !snap || snap.source === 'none' ? `cluster ${row.cluster} has no utilization source${snap?.detail ? `: ${snap.detail}` : ''}` : `the DCGM exporters are read directly (no Prometheus found): current values only, no history`;
    try {
      const body = await usageHistory(rt.live.index.holdersOf(row.id), { history, reasonWithout, range: (pods, start, end, step) => rt.live.usageRange(row.cluster, pods, start, end, step) }, Date.now());
      return Response.json(body);
    } catch (e) {
      return jsonError(502, 'prometheus_error', `the history could not be read from Prometheus: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
}
