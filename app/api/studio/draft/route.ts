import type { DraftAnswer } from '@/contract/index.ts';
import { getJobRunner } from '@/server/auth/for-routes.ts';
import type { StudioJob } from '@/server/workloads/studio-jobs.ts';
import { withAccess } from '../../_shared/access.ts';
import { jsonError } from '../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/studio/draft?row=ROW_ID`: a definition proposed from a live workload (usually one no
 * definition describes), with the choices it is unsure of. Computed off the server's thread.
 */
export function GET(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const id = new URL(req.url).searchParams.get('row') ?? '';
    const row = rt.live.index.row(id);
    if (!row || !(await access.mayListRow(rt.live, row))) return jsonError(404, 'not_found', `no workload ${id}`);
    const at = rt.live.index.rootOfRow(row.id);
    const r = at ? rt.live.index.resolve(at.cluster, at.uid) : null;
    if (!r) return jsonError(404, 'not_found', `no workload ${id}`);
    const runner = getJobRunner<StudioJob, DraftAnswer>('studio');
    if (!runner) return jsonError(503, 'unavailable', 'the studio runs in the server started by `npm start` / `wmap serve`');
    const answer = await runner.run({ kind: 'draft', root: r.object, owned: r.owned }, req.signal);
    if (!answer.ok) return jsonError(answer.problem.status, answer.problem.code, answer.problem.message);
    return Response.json(answer.result, { headers: { 'cache-control': 'no-store' } });
  });
}
