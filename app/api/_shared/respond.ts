/** Shared by the API route handlers: JSON errors with a code and a message, never a stack trace. */
import type { z } from 'zod';
import { compileCelFilter, parseQuery, type RowQuery } from '@/lib/rows/index.ts';
import { readJsonBody } from '@/server/auth/for-routes.ts';
import { getRuntime, type Runtime } from '@/server/workloads/runtime.ts';
import { logger } from '@/server/log/index.ts';

export function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

export function badRequest(e: z.ZodError): Response {
  const first = e.issues[0];
  const where = first?.path.length ? `${first.path.join('.')}: ` : '';
  return jsonError(400, 'invalid_request', `${where}${first?.message ?? 'invalid request'}`);
}

export function withRuntime(fn: (rt: Runtime) => Response | Promise<Response>): Promise<Response> {
  const rt = getRuntime();
  if (!rt) return Promise.resolve(jsonError(503, 'not_ready', 'the workload index is not running in this process (start the app with `npm start`)'));
  return Promise.resolve()
    .then(() => fn(rt))
    .catch((e: unknown) => {
      // The access log has the request id and the 500; the cause is here.
      logger('api').error({ err: e instanceof Error ? (e.stack ?? e.message) : String(e) }, 'a route handler failed');
      return jsonError(500, 'internal', e instanceof Error ? e.message.split('\n')[0] : 'internal error');
    });
}

/**
 * The row query of a request (lib/rows: the same parser as the dashboard's), or a 400 that names the
 * parameter it could not read. An unusable CEL expression is a 400 too: the dashboard shows such an
 * expression's error beside the box, an API caller would otherwise get every row.
 */
export function rowQueryOf(url: URL): RowQuery | Response {
  const { query, problems } = parseQuery(url.searchParams);
  if (problems.length > 0) return jsonError(400, 'invalid_request', problems.map((p) => `${p.param}: ${p.message}`).join('; '));
  if (query.cel.trim() !== '') {
    const cel = compileCelFilter(query.cel);
    if (!cel.ok) return jsonError(400, 'invalid_cel', `cel: ${cel.error}`);
  }
  return query;
}

/** URLSearchParams → object, repeated keys as arrays. */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const cur = out[k];
    out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
  return out;
}

/** A JSON body read within `limits` and checked against `schema`; the refusal (413, 415, 400 naming the field) otherwise. */
export async function parsedBody<T>(req: Request, schema: z.ZodType<T>, limits?: { maxBytes?: number; maxDepth?: number }): Promise<T | Response> {
  const body = await readJsonBody(req, limits);
  if (!body.ok) return jsonError(body.problem.status, body.problem.code, body.problem.message);
  const parsed = schema.safeParse(body.value);
  return parsed.success ? parsed.data : badRequest(parsed.error);
}
