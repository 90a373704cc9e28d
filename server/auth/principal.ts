/**
 * Who a request is. In local mode (loopback, the default) it is the kubeconfig's own identity; in
 * shared mode every request is authenticated (a session from a signed-in Kubernetes token or an
 * OIDC sign-in, an authenticating proxy's headers, or the single access token) and carries the
 * Kubernetes user and groups the clusters know it by. `credential` says how the server talks to a
 * cluster on the user's behalf: with its own identity, with the user's own bearer token (only to the
 * cluster that validated it), or impersonating the user from the server's account.
 */

export type AuthMethod = 'local' | 'access-token' | 'token' | 'oidc' | 'proxy';

export type Credential =
  /** The server's own identity: the kubeconfig's in local mode, the admin of the single access token. */
  | { kind: 'own' }
  /** The user's own Kubernetes bearer token, valid in `cluster` (the one whose TokenReview accepted it). */
  | { kind: 'bearer'; token: string; cluster: string }
  /** Impersonation headers (`Impersonate-User`, `Impersonate-Group`) sent from the server's account. */
  | { kind: 'impersonate' };

export interface Principal {
  /** The Kubernetes user name (`alice`, `system:serviceaccount:ns:name`, an OIDC claim). */
  user: string;
  groups: string[];
  uid?: string;
  via: AuthMethod;
  credential: Credential;
}

/** The one principal of local mode (and of the single access token): the server's own identity. */
export function ownPrincipal(via: 'local' | 'access-token', user: string): Principal {
  return { user, groups: [], via, credential: { kind: 'own' } };
}

/** What the browser may learn about who it is signed in as (never a credential). */
export interface PrincipalView {
  user: string;
  groups: string[];
  via: AuthMethod;
}

export function principalView(p: Principal): PrincipalView {
  return { user: p.user, groups: p.groups, via: p.via };
}
