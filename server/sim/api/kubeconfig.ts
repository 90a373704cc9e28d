/** The kubeconfig the simulator hands out for itself (pure text building). */

import { stringify } from 'yaml';

export interface KubeconfigOptions {
  server: string;
  token: string;
  /** Context, cluster and user name. */
  name?: string;
  namespace?: string;
  /** PEM of the CA (the simulator's self-signed certificate) for https servers. */
  caPem?: string;
}

/**
 * HTTPS servers get their CA, so clients verify the certificate. A plain-http entry carries
 * `insecure-skip-tls-verify: true` for @kubernetes/client-node, which refuses `http://` servers without
 * it ("HTTP protocol is not allowed when skipTLSVerify is not set or false"); kubectl accepts it too,
 * but sends no token over http.
 */
export function kubeconfigYaml(o: KubeconfigOptions): string {
  const name = o.name ?? 'wmap-sim';
  const cluster: Record<string, unknown> = { server: o.server };
  if (o.caPem) cluster['certificate-authority-data'] = Buffer.from(o.caPem).toString('base64');
  else cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: o.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: o.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
