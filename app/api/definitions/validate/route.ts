import { validateDefinitionText } from '@/server/workloads/views.ts';
import { jsonError } from '../../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const MAX_BYTES = 1 << 20;

export async function POST(req: Request): Promise<Response> {
  const text = await req.text();
  if (text.length > MAX_BYTES) return jsonError(413, 'too_large', `definition text is larger than ${MAX_BYTES} bytes`);
  if (!text.trim()) return jsonError(400, 'invalid_request', 'send the definition as YAML or JSON in the request body');
  return Response.json(validateDefinitionText(text));
}
