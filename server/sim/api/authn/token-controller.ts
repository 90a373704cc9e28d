/**
 * The tokens controller of kube-controller-manager, for the Secrets it still serves: a Secret of type
 * `kubernetes.io/service-account-token` naming a service account (annotation
 * `kubernetes.io/service-account.name`) gets `data.token` (a legacy token), `data["ca.crt"]` and
 * `data.namespace`, and the account's uid as annotation. A Secret whose service account does not exist
 * (or has another uid) is deleted, and so are an account's token Secrets when the account is deleted.
 */

import type { MemoryStore } from '../../store/memory-store.ts';
import type { KubeObject } from '../../store/object-store.ts';
import { clone } from '../../store/object-utils.ts';
import type { ServiceAccountTokens } from './service-account-tokens.ts';

export const SA_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

function isTokenSecret(o: KubeObject): boolean {
  return o.apiVersion === 'v1' && o.kind === 'Secret' && o.type === SA_TOKEN_TYPE;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export class TokensController {
  private readonly pending = new Map<string, () => void>();
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: MemoryStore,
    private readonly tokens: ServiceAccountTokens,
    private readonly caPem: string | undefined,
  ) {
    this.unsubscribe = store.subscribe((e) => {
      const o = e.object;
      if (isTokenSecret(o) && e.type !== 'DELETED') this.later(`s/${o.metadata.namespace}/${o.metadata.name}`, () => this.syncSecret(o.metadata.namespace ?? '', o.metadata.name ?? ''));
      else if (o.apiVersion === 'v1' && o.kind === 'ServiceAccount' && e.type === 'DELETED') this.later(`a/${o.metadata.namespace}/${o.metadata.name}`, () => this.removeTokensOf(o));
    });
    for (const s of store.list('v1', 'Secret')) if (isTokenSecret(s)) this.later(`s/${s.metadata.namespace}/${s.metadata.name}`, () => this.syncSecret(s.metadata.namespace ?? '', s.metadata.name ?? ''));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  /** Runs outside the store's event dispatch, once per key however many events came. */
  private later(key: string, work: () => void): void {
    if (this.pending.has(key)) return;
    this.pending.set(key, work);
    setImmediate(() => {
      this.pending.delete(key);
      if (this.stopped) return;
      try {
        work();
      } catch {
        // Changed or gone meanwhile: its next event syncs again.
      }
    });
  }

  private syncSecret(namespace: string, name: string): void {
    const secret = this.store.get('v1', 'Secret', namespace, name);
    if (!secret || secret.metadata.deletionTimestamp || !isTokenSecret(secret)) return;
    const annotations = secret.metadata.annotations ?? {};
    const sa = this.store.get('v1', 'ServiceAccount', namespace, annotations[SA_NAME_ANNOTATION] ?? '');
    const uid = annotations[SA_UID_ANNOTATION];
    if (!sa || (uid && uid !== sa.metadata.uid)) {
      this.store.delete('v1', 'Secret', namespace, name);
      return;
    }
    const data = (secret.data ?? {}) as Record<string, string>;
    if (data.token && data['ca.crt'] !== undefined && data.namespace && uid) return;
    const next = clone(secret);
    next.metadata.annotations = { ...annotations, [SA_UID_ANNOTATION]: sa.metadata.uid! };
    next.data = { ...data, token: data.token || b64(this.tokens.legacyToken(sa, secret)), 'ca.crt': b64(this.caPem ?? ''), namespace: b64(namespace) };
    this.store.update(next);
  }

  private removeTokensOf(sa: KubeObject): void {
    for (const s of this.store.list('v1', 'Secret', { namespace: sa.metadata.namespace })) {
      const a = s.metadata.annotations ?? {};
      if (!isTokenSecret(s) || a[SA_NAME_ANNOTATION] !== sa.metadata.name) continue;
      if (a[SA_UID_ANNOTATION] && a[SA_UID_ANNOTATION] !== sa.metadata.uid) continue;
      this.store.delete('v1', 'Secret', s.metadata.namespace, s.metadata.name!);
    }
  }
}
