/**
 * The runtime's work queue, like client-go's workqueue: a key (controller, namespace, name) is queued at
 * most once until it runs, so a burst of events for one object costs one reconcile. Keys sit in priority
 * levels, lowest first (see Controller.priority).
 */

import type { Controller } from './runtime.ts';

export interface QueueItem {
  ctrl: Controller;
  ns: string;
  name: string;
}

/** The key a reconcile request is de-duplicated (and retried, and delayed) by. */
export function queueKey(ctrl: Controller, ns: string, name: string): string {
  return `${ctrl.name}\x00${ns}\x00${name}`;
}

/** FIFO with an advancing head (no per-item shifting). */
class Fifo {
  items: QueueItem[] = [];
  head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: QueueItem): void {
    this.items.push(item);
  }

  shift(): QueueItem | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

const LEVELS = 3;

export class ReconcileQueue {
  private readonly levels: Fifo[] = Array.from({ length: LEVELS }, () => new Fifo());
  private readonly queued = new Set<string>();

  /** Queues a key; false when it is queued already. */
  add(ctrl: Controller, ns: string, name: string): boolean {
    const key = queueKey(ctrl, ns, name);
    if (this.queued.has(key)) return false;
    this.queued.add(key);
    this.levels[Math.min(LEVELS - 1, Math.max(0, ctrl.priority ?? 1))].push({ ctrl, ns, name });
    return true;
  }

  /** The next key, lowest level first; from now on it can be queued again. */
  next(): QueueItem | undefined {
    for (const q of this.levels) {
      const item = q.shift();
      if (item) {
        this.queued.delete(queueKey(item.ctrl, item.ns, item.name));
        return item;
      }
    }
    return undefined;
  }

  isEmpty(): boolean {
    return this.levels.every((q) => q.size === 0);
  }

  clear(): void {
    for (const q of this.levels) q.clear();
    this.queued.clear();
  }
}
