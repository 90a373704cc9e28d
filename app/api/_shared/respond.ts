/** Shared by the API route handlers: JSON errors with a code and a message, never a stack trace. */
import { z } from 'zod';
import { getRuntime, type Runtime } from '@/server/workloads/runtime.ts';

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
    .catch((e: unknown) => jsonError(500, 'internal', e instanceof Error ? e.message.split('\n')[0] : 'internal error'));
}

const list = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean)));

export const filterQuery = z.object({
  cluster: list,
  namespace: list,
  kind: list,
  status: list,
  minGpus: z.coerce.number().min(0).optional(),
  maxGpus: z.coerce.number().min(0).optional(),
  gpuField: z.enum(['allocated', 'requested', 'desired']).optional(),
  q: z.string().max(200).optional(),
});

/** URLSearchParams → object, repeated keys as arrays. */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const cur = out[k];
    out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
  return out;
}
