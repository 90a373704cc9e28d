/**
 * A request path as a route template for metrics labels: names (clusters, namespaces, workloads,
 * pods) are unbounded and some are sensitive, so only the fixed words of our routes survive.
 * `/api/workloads/prod/team-a/JobSet.jobset.x-k8s.io/llama/events` → `/api/workloads/:id/events`.
 */
const API_AREAS = new Set(['workloads', 'pods', 'nodes', 'definitions', 'clusters', 'stream', 'accounting', 'audit', 'me', 'studio', 'test-hooks']);
/** Fixed last words of API routes that take names before them. */
const TAILS = new Set(['events', 'actions', 'usage', 'history', 'log', 'yaml']);
/** Fixed words right after an area (`/api/studio/draft`, `/api/definitions/validate`). */
const FIXED = new Set(['draft', 'trial', 'registry', 'register', 'validate']);
const PAGES = new Set(['', 'nodes', 'definitions', 'studio', 'audit', 'signin', 'workloads', 'accounting']);

export function routeTemplate(pathname: string): string {
  if (pathname === '/healthz' || pathname === '/readyz' || pathname === '/metrics') return pathname;
  if (pathname.startsWith('/_next/')) return '/_next';
  if (pathname.startsWith('/auth/')) return pathname.length < 40 && /^\/auth\/[a-z/]+$/.test(pathname) ? pathname : '/auth/other';
  const parts = pathname.split('/').slice(1);
  if (parts[0] === 'api') {
    const area = parts[1] ?? '';
    if (!API_AREAS.has(area)) return '/api/other';
    if (parts.length <= 2) return `/api/${area}`;
    if (parts.length === 3 && FIXED.has(parts[2])) return `/api/${area}/${parts[2]}`;
    const last = parts[parts.length - 1];
    return `/api/${area}/:id${TAILS.has(last) && parts.length > 3 ? `/${last}` : ''}`;
  }
  const page = parts[0] ?? '';
  if (!PAGES.has(page)) return '/other';
  return parts.length > 1 && parts[1] !== '' ? `/${page}/:id` : `/${page}`;
}
