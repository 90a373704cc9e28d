/**
 * The open watches, by group/kind: store changes fan out to them, and faults and CRD deletions
 * end them.
 */

import type { HistoryEntry } from '../store/memory-store.ts';
import type { FaultController } from './faults.ts';
import type { Registry } from './registry.ts';
import type { WatchSession } from './watch.ts';

function drop(w: WatchSession, mode: 'close' | 'reset'): void {
  if (mode === 'reset') w.reset();
  else w.end();
}

export class WatchHub {
  private readonly byGroupKind = new Map<string, Set<WatchSession>>();
  private lastDropAll = Date.now();

  constructor(private readonly faults: FaultController) {}

  add(gk: string, session: WatchSession): void {
    let set = this.byGroupKind.get(gk);
    if (!set) this.byGroupKind.set(gk, (set = new Set()));
    set.add(session);
  }

  remove(gk: string, session: WatchSession): void {
    const set = this.byGroupKind.get(gk);
    set?.delete(session);
    if (set && set.size === 0) this.byGroupKind.delete(gk);
  }

  count(): number {
    let n = 0;
    for (const s of this.byGroupKind.values()) n += s.size;
    return n;
  }

  deliver(e: HistoryEntry): void {
    const set = this.byGroupKind.get(e.gk);
    if (!set) return;
    for (const w of set) w.deliver(e);
  }

  /** Ends every watch cleanly (so clients re-watch). */
  endAll(): void {
    for (const set of this.byGroupKind.values()) for (const w of [...set]) w.end();
    this.byGroupKind.clear();
  }

  /** A deleted CRD ends the watches on its resource, as the real server's CR handler does. */
  endUnserved(registry: Registry): void {
    for (const [gk, set] of this.byGroupKind) {
      const cut = gk.indexOf('/');
      if (!registry.byGroupKind(gk.slice(0, cut), gk.slice(cut + 1))) for (const w of [...set]) w.end();
    }
  }

  /** Drops every watch the way the faults say (clean close or TCP reset). */
  dropAll(): void {
    const mode = this.faults.dropMode();
    for (const set of this.byGroupKind.values()) for (const w of [...set]) drop(w, mode);
  }

  /** Once a second: all watches every N seconds, or each watch with the configured probability. */
  dropTick(): void {
    const every = this.faults.dropEverySeconds();
    if (every > 0 && Date.now() - this.lastDropAll >= every * 1000) {
      this.lastDropAll = Date.now();
      this.dropAll();
      return;
    }
    const mode = this.faults.dropMode();
    for (const set of this.byGroupKind.values()) {
      for (const w of [...set]) if (this.faults.dropThisSecond()) drop(w, mode);
    }
  }
}
