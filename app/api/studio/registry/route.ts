import type { RegistryView } from '@/contract/index.ts';
import { clusterRegistry, readClusterDefinitions, rootText } from '@/server/workloads/karta-registry.ts';
import { mayInstallCrd, selfAccess } from '@/server/workloads/karta-registry-write.ts';
import { withAccess } from '../../_shared/access.ts';
import { jsonError } from '../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/studio/registry?cluster=C`: what the cluster has — its kartas.run.ai CRD (missing, older,
 * different, current), its Karta and ResourceInterface objects and the catalog's, which one serves each
 * root kind and which catalog definition a cluster one overrides, and Kartas whose run.ai/karta-*
 * labels do not match their root kind. Read as the user.
 */
export function GET(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const cluster = new URL(req.url).searchParams.get('cluster') ?? rt.live.clusters()[0]?.name ?? '';
    const conn = rt.live.connection(cluster);
    if (!conn) return jsonError(404, 'not_found', `no cluster ${cluster}`);
    const client = conn.as(access.actAs(cluster));
    const [read, register, installCrd] = await Promise.all([readClusterDefinitions(cluster, client), selfAccess(client, { verb: 'create', group: 'run.ai', resource: 'kartas' }), mayInstallCrd(client)]);
    const r = clusterRegistry(read, rt.live.index.definitions.all().filter((d) => d.source === 'catalog'));
    const view: RegistryView = {
      cluster,
      crd: { state: r.crd.state, servedVersions: r.crd.servedVersions, summary: r.crd.summary },
      definitions: r.definitions.map((d) => ({ name: d.name, source: d.source, kind: d.kind, root: rootText(d.root), state: d.state, shadowedBy: d.shadowedBy ? `${d.shadowedBy.source} ${d.shadowedBy.name}` : null, overrides: d.overrides, labels: d.labels && d.labels.state !== 'ok' ? d.labels.message : null })),
      labelMismatches: r.labelMismatches.map((m) => ({ name: m.name, message: m.check.message })),
      problems: r.problems,
      may: { register, installCrd },
    };
    return Response.json(view, { headers: { 'cache-control': 'no-store' } });
  });
}
