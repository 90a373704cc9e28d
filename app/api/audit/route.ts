import type { AuditItem } from '@/contract/index.ts';
import { recentAudit } from '@/server/workloads/audit-trail.ts';
import { rowId } from '@/server/workloads/row.ts';
import { withAccess } from '../_shared/access.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/audit`: recent write attempts, newest first. In shared mode a user sees their own and
 * those on workloads they may see now (a workload since deleted: only their own).
 */
export function GET(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const scope = await access.scope(rt.live);
    const own = access.principal.credential.kind === 'own';
    const items: AuditItem[] = recentAudit()
      .filter((e) => {
        if (own || e.who === access.principal.user) return true;
        const row = rt.live.index.row(rowId({ cluster: e.cluster, ...e.object }));
        return row !== undefined && scope.test(row);
      })
      .map(({ sent: _sent, ...rest }) => rest);
    return Response.json({ items }, { headers: { 'cache-control': 'no-store' } });
  });
}
