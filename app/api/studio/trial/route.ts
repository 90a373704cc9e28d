import { z } from 'zod';
import type { TrialAnswer } from '@/contract/index.ts';
import { getJobRunner } from '@/server/auth/for-routes.ts';
import type { StudioJob } from '@/server/workloads/studio-jobs.ts';
import { withAccess } from '../../_shared/access.ts';
import { jsonError, parsedBody } from '../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const TrialRequest = z.strictObject({
  text: z.string().min(1).max(1024 * 1024),
  /** Row ids of the live objects to try it on. */
  rows: z.array(z.string().max(1000)).min(1).max(5),
});

/**
 * `POST /api/studio/trial {text, rows}`: the definition tried on each live object — its tree beside
 * kubectl's raw view with every difference — in a worker with time and memory limits. Objects the
 * user may not see are not found.
 */
export function POST(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const parsed = await parsedBody(req, TrialRequest, { maxBytes: 2 * 1024 * 1024, maxDepth: 4 });
    if (parsed instanceof Response) return parsed;
    const targets: Extract<StudioJob, { kind: 'trial' }>['targets'] = [];
    for (const id of parsed.rows) {
      const row = rt.live.index.row(id);
      const at = row ? rt.live.index.rootOfRow(row.id) : undefined;
      const r = row && at && (await access.mayListRow(rt.live, row)) ? rt.live.index.resolve(at.cluster, at.uid) : null;
      if (!row || !r) return jsonError(404, 'not_found', `no workload ${id}`);
      targets.push({ row: { id: row.id, cluster: row.cluster, namespace: row.namespace, apiVersion: row.apiVersion, kind: row.kind, name: row.name }, root: r.object, owned: r.owned });
    }
    const runner = getJobRunner<StudioJob, TrialAnswer>('studio');
    if (!runner) return jsonError(503, 'unavailable', 'the studio runs in the server started by `npm start` / `wmap serve`');
    const answer = await runner.run({ kind: 'trial', text: parsed.text, gpuResources: [...rt.live.index.gpuResources], targets }, req.signal);
    if (!answer.ok) return jsonError(answer.problem.status, answer.problem.code, answer.problem.message);
    return Response.json(answer.result, { headers: { 'cache-control': 'no-store' } });
  });
}
