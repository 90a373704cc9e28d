/**
 * The endpoints a platform talks to, not people: `/healthz` (the process answers), `/readyz` (every
 * cluster has settled: listed, or failed with a reason) and `/metrics` (Prometheus text).
 *
 * Kubelets probe the pod's IP, and Prometheus scrapes it, so these are answered before the Host
 * check that guards the dashboard. The probes reveal nothing but their verdict (which clusters are
 * not ready, and why, goes to the log). `/metrics` holds per-namespace figures: in local mode it is
 * behind the Host check like the rest (loopback only); in shared mode it needs a credential the
 * server authenticates (a Kubernetes bearer token, as Prometheus sends its service account's) and
 * `get` on the non-resource URL `/metrics` by an access review — the way the Kubernetes components
 * protect their own metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SharedAuth } from '../auth/index.ts';
import type { AccessReviewer } from '../auth/index.ts';
import type { Logger } from '../log/index.ts';
import type { MetricsRegistry } from '../metrics/prometheus.ts';
import { readinessOf, type LiveWorkloads } from '../workloads/index.ts';

export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export interface ProbeOptions {
  live: LiveWorkloads;
  metrics: MetricsRegistry;
  /** Shared mode's authentication; null in local mode. */
  shared: SharedAuth | null;
  reviewer: AccessReviewer;
  /** The cluster whose authorizer decides who may scrape (the sign-in cluster). */
  authCluster: string | undefined;
  log: Logger;
}

function text(res: ServerResponse, status: number, body: string, head: boolean, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

export interface Probes {
  /** Answers a probe path that needs no Host check; true when answered. */
  beforeGate(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean>;
  /** Answers `/metrics` in local mode, once the gate has checked the Host; true when answered. */
  afterGate(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean>;
}

export function probes(o: ProbeOptions): Probes {
  let lastVerdict = '';
  const methodOk = (req: IncomingMessage, res: ServerResponse): boolean => {
    const m = (req.method ?? 'GET').toUpperCase();
    if (m === 'GET' || m === 'HEAD') return true;
    res.setHeader('allow', 'GET, HEAD');
    text(res, 405, 'method not allowed\n', false);
    return false;
  };
  const head = (req: IncomingMessage) => (req.method ?? '').toUpperCase() === 'HEAD';

  async function scrape(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const { body, contentType } = await o.metrics.render();
      text(res, 200, body, head(req), contentType);
    } catch (e) {
      o.log.error({ err: e instanceof Error ? e.message : String(e) }, 'rendering /metrics failed');
      text(res, 500, 'metrics unavailable\n', head(req));
    }
  }

  return {
    async beforeGate(req, res, pathname) {
      if (!PROBE_PATHS.has(pathname)) return false;
      if (pathname === '/metrics' && !o.shared) return false;
      if (!methodOk(req, res)) return true;
      if (pathname === '/healthz') {
        text(res, 200, 'ok\n', head(req));
        return true;
      }
      if (pathname === '/readyz') {
        const r = readinessOf(o.live);
        const waiting = r.clusters.filter((c) => c.state === 'syncing').length;
        const failed = r.clusters.filter((c) => c.state === 'failed').length;
        const verdict = r.ready ? `ok${failed ? ` (${failed} of ${r.clusters.length} clusters failed)` : ''}` : `not ready: ${r.clusters.length === 0 ? 'no cluster configured' : `${waiting} of ${r.clusters.length} clusters still syncing`}`;
        if (verdict !== lastVerdict) {
          lastVerdict = verdict;
          o.log.info({ ready: r.ready, clusters: r.clusters }, `readiness: ${verdict}`);
        }
        text(res, r.ready ? 200 : 503, `${verdict}\n`, head(req));
        return true;
      }
      // /metrics in shared mode: authenticated, then authorized.
      const auth = await o.shared!.authenticator.authenticate(req);
      if (auth === null || 'refused' in auth) {
        res.setHeader('www-authenticate', 'Bearer realm="workload-map"');
        text(res, 401, `${auth === null ? 'unauthorized: send a bearer token' : 'unauthorized'}\n`, head(req));
        return true;
      }
      const p = auth.principal;
      const decision = p.credential.kind === 'own' || !o.authCluster
        ? { allowed: p.credential.kind === 'own', reason: 'no cluster to review access' }
        : await o.reviewer.check(o.authCluster, p, { verb: 'get', group: '', resource: '', nonResourcePath: '/metrics' });
      if (!decision.allowed) {
        text(res, 403, `forbidden: ${p.user} may not get /metrics\n`, head(req));
        return true;
      }
      await scrape(req, res);
      return true;
    },
    async afterGate(req, res, pathname) {
      if (pathname !== '/metrics') return false;
      if (methodOk(req, res)) await scrape(req, res);
      return true;
    },
  };
}
