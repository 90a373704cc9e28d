import { definitionItems } from '@/server/workloads/views.ts';
import { withRuntime } from '../_shared/respond.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export function GET(): Promise<Response> {
  return withRuntime((rt) => Response.json(definitionItems(rt.live.index)));
}
