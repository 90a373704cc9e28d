import { z } from 'zod';
import { findPod } from '@/server/workloads/pod-inspect.ts';
import { openLog } from '@/server/workloads/pod-log.ts';
import { mayReadPod, requestAccess } from '../../../../../_shared/access.ts';
import { badRequest, jsonError, withRuntime } from '../../../../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

interface Params {
  params: Promise<{ cluster: string; namespace: string; name: string }>;
}

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const count = (max: number) => z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(0).max(max));

/** kubectl logs' parameters; a browser gets the last 1,000 lines unless it asks otherwise, and at most 10 MiB. */
const LogParams = z.strictObject({
  container: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a container name').optional(),
  previous: flag.optional(),
  tailLines: count(100_000).optional(),
  sinceSeconds: count(30 * 86_400).pipe(z.number().min(1)).optional(),
  timestamps: flag.optional(),
  follow: flag.optional(),
  limitBytes: count(10 * 1024 * 1024).pipe(z.number().min(1)).optional(),
  uid: z.string().max(64).optional(),
});

/** `GET /api/pods/{cluster}/{namespace}/{name}/log`: a container's log as text, streamed with `follow=true`. */
export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { cluster, namespace, name } = await params;
  const parsed = LogParams.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) return badRequest(parsed.error);
  const { uid, ...q } = parsed.data;
  return withRuntime(async (rt) => {
    const ns = namespace === '_' ? '' : namespace;
    if (!findPod(rt.live.index, cluster, ns, name, uid)) return jsonError(404, 'not_found', `no pod ${namespace}/${name} in cluster ${cluster}`);
    const access = requestAccess(req);
    if (access instanceof Response) return access;
    const denied = await mayReadPod(access, cluster, ns, name);
    if (denied) return denied;
    // Sent as the user: whether they may read pods/log is the API server's answer, passed on as it is.
    const reader = rt.live.reader(cluster, access.actAs(cluster));
    if (!reader) return jsonError(503, 'not_connected', `cluster ${cluster} is not connected`);
    const log = await openLog(reader, ns, name, { tailLines: q.sinceSeconds === undefined ? 1000 : undefined, limitBytes: 10 * 1024 * 1024, ...q }, req.signal);
    if (!log.ok) return jsonError(log.status, log.code, log.message);
    return new Response(log.stream, {
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
    });
  });
}
