/**
 * Server-side sessions of shared mode. The browser holds only an opaque, random session id in an
 * HttpOnly, SameSite=Strict cookie (Secure when served over TLS) with an expiry; who the user is and
 * any credential (their Kubernetes token, an OIDC refresh token) stay in this process. Sessions are
 * bounded in number (the oldest goes first) so that signing in in a loop cannot exhaust memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Principal } from './principal.ts';

export const SESSION_COOKIE = 'wmap_session';

export interface Session {
  id: string;
  principal: Principal;
  createdAt: number;
  /** The session ends here whatever happens (the cookie's Max-Age says the same). */
  expiresAt: number;
  /** OIDC: when the identity must be refreshed, and with what. */
  refresh?: { at: number; token: string };
}

export interface SessionStoreOptions {
  ttlMs?: number;
  maxSessions?: number;
  now?: () => number;
}

const DEFAULT_TTL_MS = 8 * 60 * 60 * 1000;

/** Session ids are looked up by their hash, so a timing difference in the map says nothing of a live id. */
function keyOf(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

export class SessionStore {
  readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;
  private readonly byKey = new Map<string, Session>();

  constructor(o: SessionStoreOptions = {}) {
    this.ttlMs = o.ttlMs ?? DEFAULT_TTL_MS;
    this.max = o.maxSessions ?? 10_000;
    this.now = o.now ?? Date.now;
  }

  create(principal: Principal, o: { expiresAt?: number; refresh?: Session['refresh'] } = {}): Session {
    const now = this.now();
    const id = randomBytes(32).toString('base64url');
    const s: Session = { id, principal, createdAt: now, expiresAt: Math.min(o.expiresAt ?? Infinity, now + this.ttlMs), refresh: o.refresh };
    this.byKey.set(keyOf(id), s);
    while (this.byKey.size > this.max) this.byKey.delete(this.byKey.keys().next().value as string);
    return s;
  }

  /** The live session of an id; an expired one is forgotten. */
  get(id: string | undefined): Session | null {
    if (!id || id.length > 200) return null;
    const k = keyOf(id);
    const s = this.byKey.get(k);
    if (!s) return null;
    if (s.expiresAt <= this.now()) {
      this.byKey.delete(k);
      return null;
    }
    return s;
  }

  update(s: Session, principal: Principal, refresh?: Session['refresh']): void {
    s.principal = principal;
    s.refresh = refresh;
  }

  delete(id: string | undefined): void {
    if (id) this.byKey.delete(keyOf(id));
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The Set-Cookie of a session (`secure` when the dashboard is served over TLS). */
  cookie(s: Session, secure: boolean): string {
    const maxAge = Math.max(0, Math.ceil((s.expiresAt - this.now()) / 1000));
    return `${SESSION_COOKIE}=${s.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
  }
}

/** The Set-Cookie that ends a session in the browser. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? '; Secure' : ''}`;
}
