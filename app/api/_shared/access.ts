/**
 * Who a request is and what it may see, for the route handlers. Local mode: the kubeconfig's own
 * identity, which sees everything its kubeconfig lets the server watch. Shared mode: the principal the
 * gate authenticated; rows are those whose kind they may list in the row's namespace (cached access
 * reviews), and reads and writes that reach through to a cluster are sent as them.
 */
import { actAsFor, getAccessSettings, ownPrincipal, principalOfHeaders, type AccessAttributes, type AccessDecision, type ActAsValue, type Principal } from '@/server/auth/for-routes.ts';
import type { LiveWorkloads } from '@/server/workloads/live.ts';
import { ALL_ROWS, mayListRow, rowScope, type RowScope } from '@/server/workloads/row-access.ts';
import type { WorkloadRow } from '@/server/workloads/row.ts';
import { findRow } from '@/server/workloads/views.ts';
import type { Runtime } from '@/server/workloads/runtime.ts';
import { jsonError, withRuntime } from './respond.ts';

export interface RequestAccess {
  principal: Principal;
  shared: boolean;
  may(cluster: string, a: AccessAttributes): Promise<AccessDecision>;
  /** The rows this user may see (all of them for the server's own identity). */
  scope(live: LiveWorkloads): Promise<RowScope>;
  mayListRow(live: LiveWorkloads, row: WorkloadRow): Promise<boolean>;
  /** How to send a request to `cluster` as this user (null: the server's own identity). */
  actAs(cluster: string): ActAsValue | null;
}

const LOCAL = ownPrincipal('local', 'kubeconfig');

/** The request's access, or a 401 when shared mode has no principal for it. */
export function requestAccess(req: Request): RequestAccess | Response {
  const settings = getAccessSettings();
  const stamped = principalOfHeaders(req.headers);
  if (settings?.mode === 'shared' && !stamped) return jsonError(401, 'unauthorized', 'sign in first: this dashboard is shared');
  const principal = stamped ?? LOCAL;
  const own = principal.credential.kind === 'own';
  const may = (cluster: string, a: AccessAttributes): Promise<AccessDecision> =>
    own || !settings ? Promise.resolve({ allowed: true, reason: 'the server\'s own identity' }) : settings.reviewer.check(cluster, principal, a);
  return {
    principal,
    shared: settings?.mode === 'shared',
    may,
    scope: (live) => (own ? Promise.resolve(ALL_ROWS) : rowScope(live, may)),
    mayListRow: (live, row) => (own ? Promise.resolve(true) : mayListRow(live, may, row)),
    actAs: (cluster) => actAsFor(principal, cluster),
  };
}

/**
 * The row an API path names, when this user may see it; a 404 otherwise — the same answer as for a
 * workload that does not exist, so a forbidden namespace's workloads cannot be probed for.
 */
export async function visibleRow(rt: Runtime, access: RequestAccess, p: { cluster: string; namespace: string; kind: string; name: string }): Promise<WorkloadRow | Response> {
  const row = findRow(rt.live.index, p.cluster, p.namespace, p.kind, p.name);
  if (!row || !(await access.mayListRow(rt.live, row))) return jsonError(404, 'not_found', `no workload ${p.kind} ${p.namespace}/${p.name} in cluster ${p.cluster}`);
  return row;
}

/** A pod's namespace must be one where the user may `verb` pods (get; `log` for its log). */
export async function mayReadPod(access: RequestAccess, cluster: string, namespace: string, name: string, subresource?: string): Promise<Response | null> {
  const d = await access.may(cluster, { verb: 'get', group: '', resource: 'pods', subresource, namespace, name });
  return d.allowed ? null : jsonError(404, 'not_found', `no pod ${namespace}/${name} in cluster ${cluster}`);
}

/** A route body with the runtime and the request's access (a 401 when shared mode has no principal). */
export function withAccess(req: Request, fn: (rt: Runtime, access: RequestAccess) => Response | Promise<Response>): Promise<Response> {
  return withRuntime((rt) => {
    const access = requestAccess(req);
    return access instanceof Response ? access : fn(rt, access);
  });
}
