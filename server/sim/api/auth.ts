/** Authentication: who a request is, from its bearer token (authorization per verb is in access.ts). */

import type { IncomingMessage } from 'node:http';
import type { AccessRule } from './access.ts';
import { ApiError } from './status.ts';

const PUBLIC_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

export class Authenticator {
  private readonly byToken = new Map<string, AccessRule>();

  /**
   * `anonymous` is the rule for requests without credentials. Over plain http kubectl sends none, so
   * an http simulator on loopback treats them as this rule (typically admin); absent = 401 like a real server.
   */
  constructor(rules: AccessRule[], private readonly anonymous?: AccessRule) {
    for (const r of rules) this.byToken.set(r.token, r);
  }

  /**
   * The rule a request acts under; undefined only for a public path (version, health) asked without
   * credentials. An unknown token is 401 everywhere, no credentials is 401 outside the public paths.
   */
  authenticate(req: IncomingMessage, path: string): AccessRule | undefined {
    const rule = this.ruleOf(req);
    if (rule === null) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    if (!rule && !PUBLIC_PATHS.has(path) && !path.startsWith('/healthz/')) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
    return rule;
  }

  /** undefined = no credentials, null = unknown token. */
  private ruleOf(req: IncomingMessage): AccessRule | undefined | null {
    const h = req.headers.authorization;
    if (!h) return this.anonymous;
    const m = /^Bearer\s+(.+)$/i.exec(h);
    if (!m) return null;
    return this.byToken.get(m[1].trim()) ?? null;
  }
}
