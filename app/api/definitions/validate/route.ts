import { getValidator, readJsonBody } from '@/server/auth/for-routes.ts';
import { jsonError } from '../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Definition text as long as the largest cluster object an API server stores. */
const MAX_TEXT_BYTES = 3 << 20;

/**
 * `POST {"text": "<YAML or JSON>"}` → the validation result. A JSON body (never a form or
 * text/plain, which any web page could send) of bounded size and depth; the validation itself runs
 * in the server's worker pool with time, heap and stack limits, so a hostile text costs only its
 * own budget.
 */
export async function POST(req: Request): Promise<Response> {
  // JSON escaping can double the text; the text's own limit is checked below.
  const body = await readJsonBody(req, { maxBytes: 2 * MAX_TEXT_BYTES, maxDepth: 4 });
  if (!body.ok) return jsonError(body.problem.status, body.problem.code, body.problem.message);
  const text = (body.value as { text?: unknown } | null)?.text;
  if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value) || typeof text !== 'string') {
    return jsonError(400, 'invalid_request', 'send {"text": "<definition YAML or JSON>"} as the request body');
  }
  if (Buffer.byteLength(text) > MAX_TEXT_BYTES) return jsonError(413, 'too_large', `the definition text is larger than ${MAX_TEXT_BYTES} bytes`);
  if (!text.trim()) return jsonError(400, 'invalid_request', 'text: the definition text is empty');
  const validator = getValidator();
  if (!validator) return jsonError(503, 'validator_unavailable', 'validation runs in the server started by `npm start` / `wmap serve`');
  const answer = await validator.validate(text, req.signal);
  if (!answer.ok) return jsonError(answer.problem.status, answer.problem.code, answer.problem.message);
  return Response.json(answer.result);
}
