import { z } from 'zod';
import { badRequest, jsonError, withRuntime } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.object({ action: z.string().min(1), args: z.record(z.string(), z.unknown()).default({}) });

/** Test hooks for the embedded simulated cluster; absent unless the server enabled them (loopback only). */
export async function POST(req: Request): Promise<Response> {
  const input = body.safeParse(await req.json().catch(() => null));
  return withRuntime(async (rt) => {
    if (!rt.testHooks) return jsonError(404, 'not_found', 'test hooks are disabled');
    if (!input.success) return badRequest(input.error);
    try {
      return Response.json({ ok: true, result: (await rt.testHooks.run(input.data.action, input.data.args)) ?? null });
    } catch (e) {
      return jsonError(400, 'hook_failed', e instanceof Error ? e.message : String(e));
    }
  });
}
