/**
 * The apiextensions naming/establishing controllers, in small: a CRD that is created or changed is
 * registered at once (so `kubectl apply -f crd.yaml && kubectl apply -f cr.yaml` works without a wait)
 * and its status conditions are written right after, as their own MODIFIED event.
 */

import type { MemoryStore } from '../store/memory-store.ts';
import type { KubeObject } from '../store/object-store.ts';
import { clone, rfc3339 } from '../store/object-utils.ts';
import { crdStatus, descriptorFromCrd, validateCrd } from './crd.ts';
import type { Registry } from './registry.ts';

const CRD_GROUP = 'apiextensions.k8s.io';

function isCrd(o: KubeObject): boolean {
  return o.kind === 'CustomResourceDefinition' && o.apiVersion.startsWith(`${CRD_GROUP}/`);
}

export class CrdController {
  private readonly store: MemoryStore;
  private readonly registry: Registry;
  private readonly unsubscribe: () => void;
  private readonly pending = new Set<string>();
  private stopped = false;

  constructor(store: MemoryStore, registry: Registry) {
    this.store = store;
    this.registry = registry;
    for (const crd of store.list(`${CRD_GROUP}/v1`, 'CustomResourceDefinition')) this.sync(crd);
    this.unsubscribe = store.subscribe((e) => {
      if (!isCrd(e.object)) return;
      if (e.type === 'DELETED') this.registry.removeCrd(e.object.metadata.name!);
      else this.sync(e.object);
    });
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  /** A conflict message when another kind in the group already uses the plural or kind. */
  private conflict(crd: KubeObject): string | undefined {
    const d = descriptorFromCrd(crd);
    if (!d) return undefined;
    for (const other of this.registry.all()) {
      if (other.group !== d.group || other.crd === crd.metadata.name) continue;
      if (other.plural === d.plural) return `"${d.plural}" is already in use`;
      if (other.kind === d.kind) return `"${d.kind}" is already in use`;
    }
    return undefined;
  }

  private sync(crd: KubeObject): void {
    if (validateCrd(crd)) return;
    const conflict = this.conflict(crd);
    const d = descriptorFromCrd(crd);
    if (!conflict) {
      if (d) this.registry.add(d);
      else this.registry.removeCrd(crd.metadata.name!);
    }
    const name = crd.metadata.name!;
    if (this.pending.has(name)) return;
    this.pending.add(name);
    // Not inside the store's event dispatch: every watcher must see this CRD's change before its status change.
    setImmediate(() => {
      this.pending.delete(name);
      if (this.stopped) return;
      const current = this.store.get(`${CRD_GROUP}/v1`, 'CustomResourceDefinition', undefined, name);
      if (!current || current.metadata.deletionTimestamp) return;
      const next = clone(current);
      next.status = crdStatus(current, this.conflict(current), rfc3339(new Date()));
      try {
        this.store.updateStatus(next);
      } catch {
        // Changed meanwhile: the next event syncs again.
      }
    });
  }
}
