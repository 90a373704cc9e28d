/**
 * Graceful deletion, as the API server's registry does it (BeforeDelete): a delete with a grace period or
 * a propagation policy that waits for the garbage collector only marks the object (deletionTimestamp,
 * deletionGracePeriodSeconds, the policy's finalizer); it is removed once nothing holds it — the last
 * finalizer gone, the kubelet confirming with a second delete, or the grace period over.
 */

import type { DeleteOptions, KubeObject } from './object-store.ts';
import { nextVersion, rfc3339 } from './object-utils.ts';
import type { Storage } from './storage.ts';

/** The finalizer that makes the garbage collector finish a deletion with this propagation policy. */
export function propagationFinalizer(policy: DeleteOptions['propagationPolicy'] = 'Background'): 'foregroundDeletion' | 'orphan' | undefined {
  return policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
}

/** The next state of an object marked for deletion `grace` seconds from `now`, held by `finalizer` when given. */
export function markedForDeletion(current: KubeObject, finalizer: string | undefined, grace: number, now: Date): KubeObject {
  const finalizers = current.metadata.finalizers ?? [];
  const next = nextVersion(current);
  next.metadata.deletionTimestamp = rfc3339(grace > 0 ? new Date(now.getTime() + grace * 1000) : now);
  next.metadata.deletionGracePeriodSeconds = Math.max(0, grace);
  if (finalizer && !finalizers.includes(finalizer)) next.metadata.finalizers = [...finalizers, finalizer];
  if (typeof next.metadata.generation === 'number' && next.metadata.generation > 0) next.metadata.generation++;
  return next;
}

export class GracefulDeletion {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly now: () => Date,
    /** Upper bound of a grace period in real milliseconds (see MemoryStoreOptions.maxGraceMs). */
    private readonly maxGraceMs: number,
    /** Completes a deletion (the registry's remove: DELETED event, garbage collection). */
    private readonly remove: (gk: string, ns: string, name: string) => void,
  ) {}

  /** Whether a marked object is still within its grace period (so a deletion does not complete yet). */
  isGraceful(obj: KubeObject): boolean {
    const ts = obj.metadata.deletionTimestamp;
    return !!ts && Date.parse(ts) > this.now().getTime() && (obj.metadata.deletionGracePeriodSeconds as number | undefined ?? 0) > 0;
  }

  /** Removes the object when its grace period ends, unless it was replaced or a finalizer holds it by then. */
  scheduleEnd(gk: string, ns: string, name: string, uid: string, grace: number): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      const obj = this.storage.get(gk, ns, name);
      if (!this.closed && obj && obj.metadata.uid === uid && (obj.metadata.finalizers ?? []).length === 0) this.remove(gk, ns, name);
    }, Math.min(grace * 1000, this.maxGraceMs));
    t.unref();
    this.timers.add(t);
  }

  /** Stops the timers: objects still terminating stay so. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
