/**
 * The queue the store's own controllers (garbage collector, namespace lifecycle) work from. Like the real
 * garbage collector, cascades happen after the change that caused them, not inside it: tasks run on
 * setImmediate, first in first out — one queue for both, so their order is the order of the changes —
 * a bounded number per macrotask so that a big cascade does not starve the API server.
 */

import { logger } from '../../log/index.ts';
import { StoreError } from './object-store.ts';

interface Task {
  /** Which controller queued it (for the log). */
  controller: string;
  run: () => void;
}

export class WorkQueue {
  private tasks: Task[] = [];
  private scheduled = false;
  private readonly waiters: Array<() => void> = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  add(controller: string, run: () => void): void {
    this.tasks.push({ controller, run });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.runTasks());
    }
  }

  /** Queues a task after `ms` real milliseconds (a look again later), unless the queue is closed by then. */
  addAfter(ms: number, controller: string, run: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) this.add(controller, run);
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Resolves when nothing is queued (delayed tasks do not count). */
  idle(): Promise<void> {
    if (!this.scheduled && this.tasks.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops delayed tasks; what is queued still runs. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private runTasks(): void {
    let budget = 5000;
    while (this.tasks.length > 0 && budget-- > 0) {
      const task = this.tasks.shift()!;
      try {
        task.run();
      } catch (e) {
        if (!(e instanceof StoreError)) logger('sim.store').error({ err: e, controller: task.controller }, 'store controller task failed');
      }
    }
    if (this.tasks.length > 0) {
      setImmediate(() => this.runTasks());
      return;
    }
    this.scheduled = false;
    for (const w of this.waiters.splice(0)) w();
  }
}
