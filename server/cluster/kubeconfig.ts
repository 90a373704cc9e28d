/**
 * Cluster contexts from kubeconfig: `--kubeconfig`, else `KUBECONFIG` (several files merged), else
 * `~/.kube/config`, else the in-cluster service account. Every context becomes a cluster unless
 * `--context` restricts them.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

export interface ClusterConfig {
  /** The context name, used as the cluster name everywhere. */
  name: string;
  kc: KubeConfig;
  server: string;
}

const IN_CLUSTER = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The kubeconfig files `loadClusterConfigs` reads, in the same order of precedence. */
export function kubeconfigFiles(explicit?: string): string[] {
  if (explicit) return [explicit];
  const env = (process.env.KUBECONFIG ?? '').split(':').filter(Boolean);
  if (env.some((f) => existsSync(f))) return env;
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return [home];
  return process.env.KUBERNETES_SERVICE_HOST ? [join(IN_CLUSTER, 'token'), join(IN_CLUSTER, 'ca.crt')] : [];
}

export function hasKubeconfig(explicit?: string): boolean {
  if (explicit) return true;
  return kubeconfigFiles().some((f) => existsSync(f));
}

export function loadClusterConfigs(options: { kubeconfig?: string; contexts?: string[] } = {}): ClusterConfig[] {
  const base = new KubeConfig();
  if (options.kubeconfig) base.loadFromFile(options.kubeconfig);
  else base.loadFromDefault();
  const wanted = options.contexts && options.contexts.length > 0 ? new Set(options.contexts) : null;
  const contexts = base.getContexts();
  if (contexts.length === 0) {
    // In-cluster config has a single synthetic context.
    const cluster = base.getCurrentCluster();
    return cluster ? [{ name: base.getCurrentContext() || 'in-cluster', kc: base, server: cluster.server }] : [];
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
