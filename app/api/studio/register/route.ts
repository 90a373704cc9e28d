import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import type { RegisterAnswerView } from '@/contract/index.ts';
import { getAccessSettings } from '@/server/auth/for-routes.ts';
import { recordAudit } from '@/server/workloads/audit-trail.ts';
import { registerDefinition } from '@/server/workloads/karta-registry-write.ts';
import { withAccess } from '../../_shared/access.ts';
import { jsonError, parsedBody } from '../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const RegisterRequest = z.strictObject({
  cluster: z.string().min(1).max(253),
  text: z.string().min(1).max(1024 * 1024),
  mode: z.enum(['preview', 'apply']),
  /** Install (or upgrade) the kartas.run.ai CRD first when it is missing or older. */
  installCrd: z.boolean().optional(),
  /** apply: the live Karta's resourceVersion the preview showed ('' = there was none). */
  seenResourceVersion: z.string().max(64).optional(),
});

/**
 * `POST /api/studio/register`: creates or updates the Karta in the cluster through the write path —
 * as the user, the diff first, a server dry run for a preview, the write with the previewed
 * resourceVersion; the CRD installed first when asked and allowed. Every attempt is audited.
 */
export function POST(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const p = await parsedBody(req, RegisterRequest, { maxBytes: 2 * 1024 * 1024, maxDepth: 4 });
    if (p instanceof Response) return p;
    const conn = rt.live.connection(p.cluster);
    if (!conn) return jsonError(404, 'not_found', `no cluster ${p.cluster}`);
    const docs = parseAllDocuments(p.text);
    const list = Array.isArray(docs) ? docs : [docs];
    if (list.length !== 1 || list[0].errors.length > 0) return jsonError(422, 'invalid', list.length !== 1 ? 'register one definition at a time' : `the YAML does not parse: ${list[0].errors[0].message}`);
    let document: unknown;
    try {
      // Alias expansion is bounded: a "billion laughs" text is an error, not a hang.
      document = list[0].toJS({ maxAliasCount: 100 });
    } catch (e) {
      return jsonError(422, 'invalid', `the YAML cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    }
    const who = { user: access.principal.user, via: access.principal.via };
    const writes = getAccessSettings()?.writes ?? { enabled: true, reason: null };
    if (!writes.enabled) {
      const name = String((document as { metadata?: { name?: unknown } })?.metadata?.name ?? '');
      if (p.mode === 'apply') recordAudit({ who: who.user, via: who.via, cluster: p.cluster, action: 'register', object: { apiVersion: 'run.ai/v1alpha1', kind: 'Karta', namespace: '', name }, summary: `register Karta ${name}`, sent: null, dryRun: 'none', result: 'disabled', message: writes.reason ?? 'writes are off' });
      const view: RegisterAnswerView = { crd: { state: 'unknown', servedVersions: [], summary: '' }, crdInstall: null, plan: null, result: 'disabled', message: writes.reason ?? 'writes are off', notes: [] };
      return Response.json(view, { status: 403 });
    }
    const a = await registerDefinition(conn.as(access.actAs(p.cluster)), document, {
      cluster: p.cluster,
      dryRun: p.mode === 'preview' ? 'server' : 'none',
      who,
      installCrd: p.installCrd,
      seenResourceVersion: p.mode === 'apply' ? p.seenResourceVersion : undefined,
      origin: 'studio',
    });
    const view: RegisterAnswerView = {
      crd: { state: a.crd.state, servedVersions: a.crd.servedVersions, summary: a.crd.summary },
      crdInstall: a.crdInstall ? { summary: a.crdInstall.plan.summary, diff: a.crdInstall.outcome.diff || a.crdInstall.plan.diff, result: a.crdInstall.outcome.result, message: a.crdInstall.outcome.message } : null,
      plan: a.plan ? { action: a.plan.action, name: a.plan.name, summary: a.plan.summary, diff: a.outcome.diff || a.plan.diff, resourceVersion: a.plan.resourceVersion, errors: a.plan.errors.map((e) => ({ code: e.code, message: e.message, path: e.path })), warnings: a.plan.warnings } : null,
      result: a.outcome.result,
      message: a.outcome.message,
      notes: a.notes,
    };
    const status = { conflict: 409, invalid: 422, refused: 422 }[a.outcome.result as string] ?? 200;
    return Response.json(view, { status, headers: { 'cache-control': 'no-store' } });
  });
}
