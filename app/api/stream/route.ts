import { streamResponse } from '@/server/stream/index.ts';
import { withAccess } from '../_shared/access.ts';
import { rowQueryOf } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export function GET(req: Request): Promise<Response> {
  return withAccess(req, async (rt, access) => {
    const url = new URL(req.url);
    const query = rowQueryOf(url);
    if (query instanceof Response) return query;
    // EventSource sends Last-Event-ID on reconnect; a first connection may pass it as a parameter.
    const raw = req.headers.get('last-event-id') ?? url.searchParams.get('lastEventId');
    const last = raw !== null && /^\d+$/.test(raw) ? Number(raw) : null;
    // Shared mode: the rows this user may see, asked again while the stream is open.
    const scope = access.principal.credential.kind === 'own' ? undefined : { initial: await access.scope(rt.live), refresh: () => access.scope(rt.live) };
    return streamResponse(rt.live, query, last, req.signal, scope);
  });
}
