/**
 * Where `wmap __complete` finds what it offers: workload kinds from the catalog (no cluster needed),
 * names, namespaces and contexts from the kubeconfig's cluster. Each answer is one or two requests;
 * a cluster that does not answer quickly completes nothing rather than making the shell wait.
 */
import type { CompletionSources } from './completion.ts';

const TIMEOUT_SECONDS = '3';

export const completionSources: CompletionSources = {
  async kinds() {
    const { lazyCatalog } = await import('./catalog-cache.ts');
    return [...new Set([...lazyCatalog().rootKinds()].map((gk) => gk.slice(gk.indexOf('/') + 1).toLowerCase()))].sort();
  },
  async names(kind, where) {
    const { chooseContext, listAll, pickResource } = await import('./snapshot.ts');
    const { discoverOnce } = await import('./discovery-once.ts');
    const { kindsNamed } = await import('./kind-ref.ts');
    const { closeConnections } = await import('../cluster/index.ts');
    const { config, contextNamespace } = chooseContext(where);
    const signal = AbortSignal.timeout(Number(TIMEOUT_SECONDS) * 1000);
    try {
      const d = await discoverOnce(config.kc, signal);
      const names: string[] = [];
      for (const gk of kindsNamed(kind, d.resources)) {
        const r = pickResource(d, gk);
        if (!r) continue;
        const { items } = await listAll(config.kc, r, r.namespaced ? (where.namespace ?? contextNamespace ?? 'default') : undefined, 500, signal);
        names.push(...items.map((o) => String(o.metadata?.name ?? '')).filter(Boolean));
      }
      return [...new Set(names)].sort();
    } finally {
      closeConnections(config.kc);
    }
  },
  async namespaces(where) {
    const { chooseContext, listAll } = await import('./snapshot.ts');
    const { closeConnections } = await import('../cluster/index.ts');
    const { config } = chooseContext(where);
    try {
      const { items } = await listAll(config.kc, { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['list'] }, undefined, 500, AbortSignal.timeout(Number(TIMEOUT_SECONDS) * 1000));
      return items.map((o) => String(o.metadata?.name ?? '')).filter(Boolean).sort();
    } finally {
      closeConnections(config.kc);
    }
  },
  async contexts(where) {
    const { loadClusterConfigs } = await import('../cluster/index.ts');
    return loadClusterConfigs({ kubeconfig: where.kubeconfig }).map((c) => c.name);
  },
};
