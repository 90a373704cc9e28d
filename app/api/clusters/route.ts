import { withRuntime } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export function GET(): Promise<Response> {
  return withRuntime((rt) => Response.json(rt.live.clusters()));
}
