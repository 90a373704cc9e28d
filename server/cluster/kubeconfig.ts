/**
 * Cluster contexts from kubeconfig: `--kubeconfig`, else `KUBECONFIG` (several files merged), else
 * `~/.kube/config`, else the in-cluster service account. Every context becomes a cluster unless
 * `--context` restricts them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

export interface ClusterConfig {
  /** The context name, used as the cluster name everywhere. */
  name: string;
  kc: KubeConfig;
  server: string;
}

/** Where the kubelet mounts a pod's service account token, CA and namespace. */
export const IN_CLUSTER = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The cluster name (and context name) of the in-cluster configuration. */
export const IN_CLUSTER_NAME = 'in-cluster';

/**
 * The service account directory: IN_CLUSTER, or `WMAP_SERVICE_ACCOUNT_DIR` (tests that play a pod
 * cannot write to /var/run; a real pod never sets it).
 */
export function serviceAccountDir(): string {
  return process.env.WMAP_SERVICE_ACCOUNT_DIR || IN_CLUSTER;
}

/** Running in a pod: the API server is in the environment and the service account's token is mounted. */
export function inCluster(): boolean {
  return !!process.env.KUBERNETES_SERVICE_HOST && !!process.env.KUBERNETES_SERVICE_PORT && existsSync(join(serviceAccountDir(), 'token'));
}

/** The kubeconfig files `loadClusterConfigs` reads, in the same order of precedence. */
export function kubeconfigFiles(explicit?: string): string[] {
  if (explicit) return [explicit];
  const env = (process.env.KUBECONFIG ?? '').split(':').filter(Boolean);
  if (env.some((f) => existsSync(f))) return env;
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return [home];
  const dir = serviceAccountDir();
  return process.env.KUBERNETES_SERVICE_HOST ? [join(dir, 'token'), join(dir, 'ca.crt')] : [];
}

export function hasKubeconfig(explicit?: string): boolean {
  if (explicit) return true;
  return kubeconfigFiles().some((f) => existsSync(f));
}

/**
 * The in-cluster configuration, as client-go's rest.InClusterConfig builds it: the API server from
 * KUBERNETES_SERVICE_HOST/PORT (https; http only on the insecure ports client-node treats so), the
 * CA and the token file (re-read on every request, so a rotated token is used) from the service
 * account directory, the pod's namespace as the context's.
 */
export function inClusterConfig(dir = serviceAccountDir()): KubeConfig {
  const host = process.env.KUBERNETES_SERVICE_HOST ?? '';
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  const server = `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  const nsFile = join(dir, 'namespace');
  const namespace = existsSync(nsFile) ? readFileSync(nsFile, 'utf8').trim() || undefined : undefined;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: IN_CLUSTER_NAME, server, caFile: join(dir, 'ca.crt'), skipTLSVerify: false }],
    users: [{ name: IN_CLUSTER_NAME, authProvider: { name: 'tokenFile', config: { tokenFile: join(dir, 'token') } } }],
    contexts: [{ name: IN_CLUSTER_NAME, cluster: IN_CLUSTER_NAME, user: IN_CLUSTER_NAME, namespace }],
    currentContext: IN_CLUSTER_NAME,
  });
  return kc;
}

/** Whether the default loading order ends at the in-cluster service account (no kubeconfig file at all). */
function usesInCluster(explicit?: string): boolean {
  if (explicit) return false;
  if ((process.env.KUBECONFIG ?? '').split(':').some((f) => f && existsSync(f))) return false;
  if (existsSync(join(homedir(), '.kube', 'config'))) return false;
  return inCluster();
}

export function loadClusterConfigs(options: { kubeconfig?: string; contexts?: string[] } = {}): ClusterConfig[] {
  const base = usesInCluster(options.kubeconfig) ? inClusterConfig() : new KubeConfig();
  if (options.kubeconfig) base.loadFromFile(options.kubeconfig);
  else if (base.getContexts().length === 0) base.loadFromDefault();
  const wanted = options.contexts && options.contexts.length > 0 ? new Set(options.contexts) : null;
  const contexts = base.getContexts();
  if (contexts.length === 0) {
    // In-cluster config has a single synthetic context.
    const cluster = base.getCurrentCluster();
    return cluster ? [{ name: base.getCurrentContext() || IN_CLUSTER_NAME, kc: base, server: cluster.server }] : [];
  }
  const out: ClusterConfig[] = [];
  for (const ctx of contexts) {
    if (wanted && !wanted.has(ctx.name)) continue;
    const kc = new KubeConfig();
    kc.loadFromString(base.exportConfig());
    kc.setCurrentContext(ctx.name);
    const cluster = kc.getCurrentCluster();
    if (!cluster) continue;
    out.push({ name: ctx.name, kc, server: cluster.server });
  }
  if (wanted) for (const w of wanted) if (!out.some((c) => c.name === w)) throw new Error(`context "${w}" not found in kubeconfig (contexts: ${contexts.map((c) => c.name).join(', ')})`);
  return out;
}
