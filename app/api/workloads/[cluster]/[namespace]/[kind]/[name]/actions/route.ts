import { z } from 'zod';
import { groupOfApiVersion } from '@/lib/rows/identity.ts';
import { getAccessSettings } from '@/server/auth/for-routes.ts';
import { actionSpecSchema } from '@/server/workloads/actions.ts';
import { offeredActions, runWorkloadAction, type ActionContext } from '@/server/workloads/action-service.ts';
import type { Runtime } from '@/server/workloads/runtime.ts';
import { requestAccess, visibleRow, type RequestAccess } from '../../../../../../_shared/access.ts';
import { jsonError, parsedBody, withRuntime } from '../../../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; kind: string; name: string }>;
}

const ActionRequest = z.strictObject({
  mode: z.enum(['preview', 'apply']),
  /** One action, or several pod-template changes of one kind sent as one patch. */
  actions: z.array(actionSpecSchema).min(1).max(20),
  /** apply: the root's resourceVersion and fingerprint the preview showed. */
  resourceVersion: z.string().max(64).optional(),
  fingerprint: z.string().max(64).optional(),
});

type Context = { ctx: ActionContext } | { error: Response };

async function contextOf(rt: Runtime, req: Request, p: { cluster: string; namespace: string; kind: string; name: string }): Promise<Context> {
  const access = requestAccess(req);
  if (access instanceof Response) return { error: access };
  const row = await visibleRow(rt, access, p);
  if (row instanceof Response) return { error: row };
  const root = rt.live.index.rootOfRow(row.id);
  const conn = rt.live.connection(row.cluster);
  if (!root || !conn) return { error: jsonError(503, 'not_connected', `cluster ${row.cluster} is not connected`) };
  const group = groupOfApiVersion(row.apiVersion);
  const served = conn.servedResources().find((r) => r.group === group && r.kind === row.kind);
  const settings = getAccessSettings();
  const may = (a: RequestAccess) => async (verb: 'patch' | 'delete') =>
    served ? a.may(row.cluster, { verb, group, resource: served.resource, namespace: row.namespace || undefined, name: row.name }) : { allowed: false, reason: `the cluster does not serve ${row.kind}` };
  return {
    ctx: {
      index: rt.live.index,
      cluster: row.cluster,
      rootUid: root.uid,
      writer: conn.as(access.actAs(row.cluster)),
      who: { user: access.principal.user, via: access.principal.via },
      writes: settings?.writes ?? { enabled: true, reason: null },
      may: may(access),
    },
  };
}

/** `GET …/actions`: what this user may do to the workload, each disabled action with the reason. */
export async function GET(req: Request, { params }: Params): Promise<Response> {
  const p = await params;
  return withRuntime(async (rt) => {
    const c = await contextOf(rt, req, p);
    if ('error' in c) return c.error;
    const offer = await offeredActions(c.ctx);
    if ('error' in offer) return jsonError(404, 'not_found', offer.error);
    return Response.json(offer, { headers: { 'cache-control': 'no-store' } });
  });
}

/**
 * `POST …/actions` `{mode: preview|apply, actions: [...], resourceVersion}`: a preview is the diff
 * and the API server's dry run, as the user; apply writes with the previewed resourceVersion as the
 * precondition. The answer's `result` says what happened (403 forbidden, 409 conflict, 422 invalid).
 */
export async function POST(req: Request, { params }: Params): Promise<Response> {
  const p = await params;
  return withRuntime(async (rt) => {
    const parsed = await parsedBody(req, ActionRequest);
    if (parsed instanceof Response) return parsed;
    const c = await contextOf(rt, req, p);
    if ('error' in c) return c.error;
    const answer = await runWorkloadAction(c.ctx, parsed.actions, parsed.mode, { resourceVersion: parsed.resourceVersion, fingerprint: parsed.fingerprint });
    const status = { forbidden: 403, disabled: 403, conflict: 409, invalid: 422, refused: 422 }[answer.result as string] ?? 200;
    return Response.json(answer, { status, headers: { 'cache-control': 'no-store' } });
  });
}
