/**
 * The namespace lifecycle controller: deleting a Namespace marks it Terminating (with the `kubernetes`
 * finalizer in its spec, as the API server does); the controller then deletes everything inside it and
 * removes the namespace once it is empty. It runs from the store's work queue.
 */

import type { KubeObject } from './object-store.ts';
import { nextVersion, rfc3339 } from './object-utils.ts';
import type { GracefulDeletion } from './graceful-deletion.ts';
import type { StoreWriter } from './storage.ts';
import type { WorkQueue } from './work-queue.ts';

const NAME = 'namespace-lifecycle';

export class NamespaceLifecycle {
  constructor(
    private readonly store: StoreWriter,
    private readonly queue: WorkQueue,
    private readonly graceful: GracefulDeletion,
    private readonly now: () => Date,
  ) {}

  /** A delete of a Namespace: marks it Terminating and queues the cleanup; returns the marked object. */
  terminate(current: KubeObject): KubeObject {
    const name = current.metadata.name!;
    const next = nextVersion(current);
    next.metadata.deletionTimestamp = rfc3339(this.now());
    next.spec = { ...((next.spec as Record<string, unknown> | undefined) ?? {}), finalizers: ['kubernetes'] };
    next.status = { ...((next.status as Record<string, unknown> | undefined) ?? {}), phase: 'Terminating' };
    const marked = this.store.commit('/Namespace', '', name, next, current);
    this.queue.add(NAME, () => this.clean(name));
    return marked;
  }

  /** Deletes everything inside, then the namespace itself. */
  private clean(name: string): void {
    let remaining = 0;
    for (const [gk, table] of this.store.storage.entries()) {
      if (!table.byNs.has(name)) continue;
      for (const obj of table.list(name, undefined)) {
        if (!obj.metadata.deletionTimestamp) this.store.delete(obj.apiVersion, obj.kind, name, obj.metadata.name!);
        else if ((obj.metadata.finalizers ?? []).length === 0 && !this.graceful.isGraceful(obj)) this.store.remove(gk, name, obj.metadata.name!);
      }
      remaining += table.byNs.get(name)?.size ?? 0;
    }
    if (remaining > 0) {
      // Something still holds a finalizer or is terminating gracefully: look again shortly.
      this.queue.addAfter(200, NAME, () => this.clean(name));
      return;
    }
    if (this.store.storage.get('/Namespace', '', name)) this.store.remove('/Namespace', '', name);
  }
}
