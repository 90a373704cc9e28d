/**
 * Who may use the dashboard and what they may do, from `serve`'s options: local mode (the
 * kubeconfig's identity, loopback only) or shared mode with the sign-in methods configured; the
 * TokenReview and access-review calls to the clusters; whether writes are on.
 */
import { AccessReviewer, actAsFor, sharedMode, type AccessSettings, type ReviewTransport, type SharedAuth, type TokenVerdict } from '../auth/index.ts';
import { ApiError } from '../cluster/index.ts';
import type { LiveWorkloads } from '../workloads/index.ts';
import type { ServeOptions } from './serve.ts';

function errorText(e: unknown): string {
  return e instanceof ApiError ? `${e.status} ${e.message}` : e instanceof Error ? e.message : String(e);
}

/** TokenReview in `cluster` with the server's own account. */
function tokenReviewer(live: LiveWorkloads, cluster: string): (token: string) => Promise<TokenVerdict> {
  return async (token) => {
    const conn = live.connection(cluster);
    if (!conn) return { error: `cluster ${cluster} is not connected` };
    try {
      const r = (await conn.as(null).postJson('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } })) as { status?: { authenticated?: boolean; error?: string; user?: { username?: string; uid?: string; groups?: string[] } } };
      const st = r.status ?? {};
      if (!st.authenticated || !st.user?.username) return { error: st.error ? `cluster ${cluster} says: ${st.error}` : `cluster ${cluster} does not know this token` };
      return { user: st.user.username, groups: st.user.groups ?? [], uid: st.user.uid, cluster };
    } catch (e) {
      return { error: e instanceof ApiError && e.status === 403 ? `the server's account may not create TokenReviews in cluster ${cluster} (${e.message})` : `the token could not be checked with cluster ${cluster}: ${errorText(e)}` };
    }
  };
}

/**
 * SubjectAccessReview from the server's account, or the user's own SelfSubjectAccessReview in the
 * cluster whose token it is (their token may review itself even where the server may not review others).
 */
function reviewTransport(live: LiveWorkloads): ReviewTransport {
  return async (cluster, p, a) => {
    const conn = live.connection(cluster);
    if (!conn) return { allowed: false, reason: `cluster ${cluster} is not connected` };
    const attributes = a.nonResourcePath !== undefined
      ? { nonResourceAttributes: { path: a.nonResourcePath, verb: a.verb } }
      : { resourceAttributes: { verb: a.verb, group: a.group, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name } };
    const as = actAsFor(p, cluster);
    const answer = (as?.kind === 'bearer'
      ? await conn.as(as).postJson('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: attributes })
      : await conn.as(null).postJson('/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: p.user, groups: p.groups, uid: p.uid, ...attributes } })) as { status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string } };
    const st = answer.status ?? {};
    const what = a.nonResourcePath !== undefined
      ? `${a.verb} ${a.nonResourcePath}`
      : `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.group ? `.${a.group}` : ''}${a.namespace ? ` in namespace ${a.namespace}` : ' cluster-wide'}`;
    return { allowed: st.allowed === true && st.denied !== true, reason: st.allowed ? (st.reason || `may ${what}`) : `${p.user} may not ${what}${st.reason ? ` (${st.reason})` : ''}` };
  };
}

export async function accessOf(opts: ServeOptions, live: LiveWorkloads, clusters: string[], shared: boolean, token: string | undefined): Promise<{ settings: AccessSettings; shared: SharedAuth | null }> {
  const reviewer = new AccessReviewer(reviewTransport(live));
  const writes = opts.readOnly
    ? { enabled: false, reason: 'the server runs with --read-only' }
    : shared && !opts.allowWrites
      ? { enabled: false, reason: 'writes are off in shared mode unless the server runs with --allow-writes' }
      : { enabled: true, reason: null };
  const settings: AccessSettings = { mode: shared ? 'shared' : 'local', writes, reviewer };
  if (!shared) return { settings, shared: null };
  const authCluster = opts.authCluster ?? clusters[0];
  if (opts.authCluster && !clusters.includes(opts.authCluster)) throw new Error(`--auth-cluster ${opts.authCluster} is not one of the clusters (${clusters.join(', ')})`);
  let oidc;
  if (opts.oidc) {
    const { createOidcLogin } = await import('../auth/oidc.ts');
    oidc = await createOidcLogin(opts.oidc);
  }
  const auth = sharedMode({
    accessToken: token,
    reviewToken: opts.tokenSignIn === false || !authCluster ? undefined : tokenReviewer(live, authCluster),
    oidc: oidc
      ? {
          begin: (returnTo) => oidc.begin(returnTo),
          complete: (url, pending) => oidc.complete(url, pending as Parameters<typeof oidc.complete>[1]),
          refresh: (rt, subject) => oidc.refresh(rt, subject),
        }
      : undefined,
    proxy: opts.proxy,
    httpsPublicUrl: opts.publicUrl?.startsWith('https:') ?? false,
  });
  return { settings, shared: auth };
}
