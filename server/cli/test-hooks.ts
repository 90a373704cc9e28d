/**
 * Hooks the browser tests use to change the embedded simulated cluster (enabled only with
 * `WMAP_TEST_HOOKS=1` on a loopback-bound server). They act on the sim's store and faults directly.
 */
import type { SimHandle } from '../sim/index.ts';
import type { TestHooks } from '../workloads/runtime.ts';
import type { KubeObject } from '../sim/index.ts';

function str(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== 'string' || !v) throw new Error(`argument "${key}" (string) is required`);
  return v;
}

export function simTestHooks(sim: SimHandle): TestHooks {
  return {
    async run(action, args) {
      const store = sim.store;
      switch (action) {
        case 'create':
          return store.create(args.object as KubeObject);
        case 'delete':
          store.delete(str(args, 'apiVersion'), str(args, 'kind'), typeof args.namespace === 'string' ? args.namespace : undefined, str(args, 'name'));
          return null;
        case 'merge': {
          // Shallow-merges `set` into the object's top-level fields (spec, metadata.labels …) and stores it.
          const cur = store.get(str(args, 'apiVersion'), str(args, 'kind'), typeof args.namespace === 'string' ? args.namespace : undefined, str(args, 'name'));
          if (!cur) throw new Error('object not found');
          const set = (args.set ?? {}) as Record<string, Record<string, unknown>>;
          const next = structuredClone(cur) as KubeObject & Record<string, unknown>;
          for (const [k, v] of Object.entries(set)) next[k] = { ...((next[k] as Record<string, unknown> | undefined) ?? {}), ...v };
          return k8sWrite(store, next, args.status === true);
        }
        case 'list':
          return store.list(str(args, 'apiVersion'), str(args, 'kind'), { namespace: typeof args.namespace === 'string' ? args.namespace : undefined }).map((o) => ({ name: o.metadata.name, namespace: o.metadata.namespace }));
        case 'dropWatches':
          sim.faults.dropWatches();
          return null;
        case 'faults':
          return sim.faults.set(args as Parameters<SimHandle['faults']['set']>[0]);
        case 'restart':
          await sim.restart();
          return null;
        default:
          throw new Error(`unknown test hook "${action}" (create, delete, merge, list, dropWatches, faults, restart)`);
      }
    },
  };
}

function k8sWrite(store: SimHandle['store'], obj: KubeObject, status: boolean): KubeObject {
  const { resourceVersion: _rv, ...meta } = obj.metadata;
  const next = { ...obj, metadata: meta };
  return status ? store.updateStatus(next) : store.update(next);
}
