import { getAccessSettings, principalView } from '@/server/auth/for-routes.ts';
import { requestAccess } from '../_shared/access.ts';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `GET /api/me`: who the dashboard thinks you are (user, groups, how you signed in), the mode, and
 * whether writes are on (and why not). Never a credential.
 */
export function GET(req: Request): Response {
  const access = requestAccess(req);
  if (access instanceof Response) return access;
  const settings = getAccessSettings();
  return Response.json({
    ...principalView(access.principal),
    mode: settings?.mode ?? 'local',
    writes: settings?.writes ?? { enabled: true, reason: null },
  });
}
