/**
 * Service-account tokens, issued and checked as kube-apiserver does (pkg/serviceaccount): bound tokens
 * from TokenRequest (`iss` the cluster's issuer, `aud`, `exp`, a `jti`, the service account and the
 * optional pod/secret/node they are bound to under `kubernetes.io`) and legacy tokens of
 * `kubernetes.io/service-account-token` Secrets (issuer `kubernetes/serviceaccount`, no expiry, valid
 * while the Secret holds them). A token stays valid only while its service account (same uid) and bound
 * object exist; a token for other audiences than the request's is refused.
 */

import { randomUUID } from 'node:crypto';
import type { MemoryStore } from '../../store/memory-store.ts';
import type { KubeObject } from '../../store/object-store.ts';
import { isPlainObject } from '../../store/object-utils.ts';
import type { SigningKey } from './jwt.ts';
import { newSigningKey, signJwt, verifyJwt } from './jwt.ts';
import type { UserInfo } from './user.ts';
import { serviceAccountGroups, serviceAccountUsername } from './user.ts';

/** `--service-account-issuer` of kubeadm clusters, which `--api-audiences` defaults to. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
/** go-jose's default leeway for exp/nbf. */
const LEEWAY_SECONDS = 60;

export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';
export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';

export interface TokenCheck {
  /** Present when the token is valid for one of the audiences. */
  user?: UserInfo;
  /** The audiences it was accepted for. */
  audiences?: string[];
  error?: string;
}

export interface ObjectRef {
  name: string;
  uid: string;
}

export interface IssueOptions {
  audiences: string[];
  expirationSeconds: number;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

interface BoundClaims {
  namespace?: string;
  serviceaccount?: { name?: string; uid?: string };
  pod?: { name?: string; uid?: string };
  secret?: { name?: string; uid?: string };
  node?: { name?: string; uid?: string };
}

const LEGACY = 'kubernetes.io/serviceaccount/';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Go's %q of a []string: `["a" "b"]`. */
function goStrings(v: string[]): string {
  return `[${v.map((s) => JSON.stringify(s)).join(' ')}]`;
}

export class ServiceAccountTokens {
  readonly issuer: string;
  readonly apiAudiences: string[];
  private readonly key: SigningKey;

  constructor(
    private readonly store: MemoryStore,
    private readonly now: () => number,
    opts: { issuer?: string; apiAudiences?: string[] } = {},
  ) {
    this.issuer = opts.issuer ?? DEFAULT_ISSUER;
    this.apiAudiences = opts.apiAudiences ?? [this.issuer];
    this.key = newSigningKey();
  }

  /** A bound token for the service account (TokenRequest); the expiry is in the server's clock. */
  issue(sa: KubeObject, o: IssueOptions): { token: string; expiresAt: number } {
    const nowS = Math.floor(this.now() / 1000);
    const exp = nowS + o.expirationSeconds;
    const k8s: Record<string, unknown> = { namespace: sa.metadata.namespace, serviceaccount: { name: sa.metadata.name, uid: sa.metadata.uid } };
    if (o.pod) k8s.pod = { ...o.pod };
    if (o.secret) k8s.secret = { ...o.secret };
    if (o.node) k8s.node = { ...o.node };
    const claims = { aud: o.audiences, exp, iat: nowS, iss: this.issuer, jti: randomUUID(), 'kubernetes.io': k8s, nbf: nowS, sub: serviceAccountUsername(sa.metadata.namespace ?? '', sa.metadata.name ?? '') };
    return { token: signJwt(this.key, claims), expiresAt: exp * 1000 };
  }

  /** The token the tokens controller writes into a `kubernetes.io/service-account-token` Secret. */
  legacyToken(sa: KubeObject, secret: KubeObject): string {
    const ns = sa.metadata.namespace ?? '';
    return signJwt(this.key, {
      iss: LEGACY_ISSUER,
      [`${LEGACY}namespace`]: ns,
      [`${LEGACY}secret.name`]: secret.metadata.name,
      [`${LEGACY}service-account.name`]: sa.metadata.name,
      [`${LEGACY}service-account.uid`]: sa.metadata.uid,
      sub: serviceAccountUsername(ns, sa.metadata.name ?? ''),
    });
  }

  /**
   * The user of a token for the requested audiences (the API server's own when none are asked for);
   * undefined when the token is not one of ours at all.
   */
  authenticate(token: string, requested: string[] = this.apiAudiences): TokenCheck | undefined {
    const claims = verifyJwt(this.key, token);
    if (!claims) return undefined;
    const iss = str(claims.iss);
    if (iss !== this.issuer && iss !== LEGACY_ISSUER) return undefined;
    const aud = Array.isArray(claims.aud) ? claims.aud.map(String) : typeof claims.aud === 'string' ? [claims.aud] : [];
    // Tokens without audiences (legacy ones) are for the API server only.
    const tokenAudiences = aud.length > 0 ? aud : this.apiAudiences;
    const audiences = tokenAudiences.filter((a) => requested.includes(a));
    if (audiences.length === 0) return { error: `token audiences ${goStrings(tokenAudiences)} is invalid for the target audiences ${goStrings(requested)}` };
    const checked = iss === LEGACY_ISSUER ? this.checkLegacy(token, claims) : this.checkBound(claims);
    return 'error' in checked ? checked : { user: checked, audiences };
  }

  private serviceAccount(namespace: string, name: string): KubeObject | undefined {
    const sa = this.store.get('v1', 'ServiceAccount', namespace, name);
    return sa && !sa.metadata.deletionTimestamp ? sa : undefined;
  }

  private checkBound(claims: Record<string, unknown>): UserInfo | { error: string } {
    const nowS = this.now() / 1000;
    if (typeof claims.exp === 'number' && nowS > claims.exp + LEEWAY_SECONDS) return { error: 'service account token has expired' };
    if (typeof claims.nbf === 'number' && nowS < claims.nbf - LEEWAY_SECONDS) return { error: 'service account token is not valid yet' };
    const k = (isPlainObject(claims['kubernetes.io']) ? claims['kubernetes.io'] : {}) as BoundClaims;
    const ns = str(k.namespace);
    const saName = str(k.serviceaccount?.name);
    const sa = this.serviceAccount(ns, saName);
    if (!sa) return { error: 'service account token has been invalidated' };
    if (sa.metadata.uid !== str(k.serviceaccount?.uid)) return { error: `service account UID (${sa.metadata.uid}) does not match claim (${str(k.serviceaccount?.uid)})` };
    const extra: Record<string, string[]> = {};
    for (const [kind, ref] of [['Pod', k.pod], ['Secret', k.secret]] as const) {
      if (!ref) continue;
      const o = this.store.get('v1', kind, ns, str(ref.name));
      if (!o || o.metadata.deletionTimestamp) return { error: 'service account token has been invalidated' };
      if (o.metadata.uid !== str(ref.uid)) return { error: `${kind.toLowerCase()} UID (${o.metadata.uid}) does not match claim (${str(ref.uid)})` };
    }
    if (k.pod) {
      extra[EXTRA_POD_NAME] = [str(k.pod.name)];
      extra[EXTRA_POD_UID] = [str(k.pod.uid)];
    }
    if (typeof claims.jti === 'string') extra[EXTRA_CREDENTIAL_ID] = [`JTI=${claims.jti}`];
    if (k.node) {
      extra[EXTRA_NODE_NAME] = [str(k.node.name)];
      extra[EXTRA_NODE_UID] = [str(k.node.uid)];
    }
    return { username: serviceAccountUsername(ns, saName), uid: sa.metadata.uid, groups: serviceAccountGroups(ns), extra };
  }

  private checkLegacy(token: string, claims: Record<string, unknown>): UserInfo | { error: string } {
    const ns = str(claims[`${LEGACY}namespace`]);
    const secret = this.store.get('v1', 'Secret', ns, str(claims[`${LEGACY}secret.name`]));
    if (!secret || secret.metadata.deletionTimestamp) return { error: 'token has been invalidated' };
    const held = str((secret.data as Record<string, unknown> | undefined)?.token);
    if (Buffer.from(held, 'base64').toString('utf8') !== token) return { error: "token does not match server's copy" };
    const saName = str(claims[`${LEGACY}service-account.name`]);
    const sa = this.serviceAccount(ns, saName);
    if (!sa) return { error: `serviceaccounts "${saName}" not found` };
    const uid = str(claims[`${LEGACY}service-account.uid`]);
    if (sa.metadata.uid !== uid) return { error: `ServiceAccount UID (${sa.metadata.uid}) does not match claim (${uid})` };
    return { username: serviceAccountUsername(ns, saName), uid: sa.metadata.uid, groups: serviceAccountGroups(ns) };
  }
}
