/**
 * The event log that watches read, like the API server's watch cache: every change in resourceVersion
 * order, a bounded window of them for watches that resume from a resourceVersion (older ones answer 410
 * Expired), and the fan-out to in-process subscribers.
 */

import { logger } from '../../log/index.ts';
import type { WatchEvent } from './object-store.ts';
import { StoreError } from './object-store.ts';

export interface HistoryEntry extends WatchEvent {
  rv: number;
  /** `group/Kind` of the object. */
  gk: string;
  namespace: string;
}

export class WatchHistory {
  private readonly handlers = new Set<(event: WatchEvent) => void>();
  private history: HistoryEntry[] = [];
  private historyStart = 0;
  private readonly historySize: number;
  /** Highest resourceVersion no longer in the history: watches from below it get 410. */
  private compactedRv: number;

  constructor(historySize: number, initialRv: number) {
    this.historySize = historySize;
    this.compactedRv = initialRv;
  }

  /** The compaction floor. */
  oldest(): number {
    return this.compactedRv;
  }

  /**
   * Events after `rv` (exclusive), oldest first. Throws StoreError 410 Expired when `rv` is older than
   * the retained history, with the message of the real watch cache.
   */
  since(rv: number): HistoryEntry[] {
    if (rv < this.compactedRv) {
      throw new StoreError(410, 'Expired', `too old resource version: ${rv} (${this.compactedRv + 1})`);
    }
    const h = this.history;
    let lo = this.historyStart;
    let hi = h.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return h.slice(lo);
  }

  /** Drops history up to `target` (at most the current resourceVersion), so that older watches get 410. */
  compact(target: number): void {
    while (this.historyStart < this.history.length && this.history[this.historyStart].rv <= target) this.historyStart++;
    this.compactedRv = Math.max(this.compactedRv, target);
    this.trimHistory();
  }

  subscribe(handler: (event: WatchEvent) => void): () => void {
    this.handlers.add(handler);
    return () => {
      this.handlers.delete(handler);
    };
  }

  /** Records a change and hands it to every subscriber (a failing one does not stop the others). */
  emit(entry: HistoryEntry): void {
    this.history.push(entry);
    if (this.history.length - this.historyStart > this.historySize) {
      this.compactedRv = this.history[this.historyStart].rv;
      this.historyStart++;
    }
    this.trimHistory();
    const event: WatchEvent = entry;
    for (const h of this.handlers) {
      try {
        h(event);
      } catch (e) {
        logger('sim.store').error({ err: e, event: entry.type, gk: entry.gk, object: `${entry.namespace}/${entry.object.metadata.name ?? ''}` }, 'watch handler failed');
      }
    }
  }

  private trimHistory(): void {
    // Amortised: shift the array only once the dead prefix is as large as the window.
    if (this.historyStart > 1024 && this.historyStart >= this.history.length - this.historyStart) {
      this.history = this.history.slice(this.historyStart);
      this.historyStart = 0;
    }
  }
}
