/**
 * A de-duplicating work queue, as controllers use one: a key added while it waits is done once,
 * in the order keys were first added. Keys taken out can be added again (a change after the work
 * started makes the work stale, so it is queued once more). Each key remembers when it was first
 * queued, so the work can tell how long it waited (the event → delta latency).
 */
export class WorkQueue<K> {
  private keys = new Map<K, number>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  add(key: K): void {
    if (!this.keys.has(key)) this.keys.set(key, this.now());
  }

  has(key: K): boolean {
    return this.keys.has(key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Takes every waiting key. */
  drain(): Set<K> {
    const out = new Set(this.keys.keys());
    this.keys = new Map();
    return out;
  }

  /**
   * Takes keys one by one while `more()` says so; `more` is asked every `every` keys (reading a
   * clock for each key would cost more than the work). `work` gets when the key was queued.
   */
  takeWhile(work: (key: K, queuedAt: number) => void, more: () => boolean, every = 16): void {
    let n = 0;
    for (const [key, at] of this.keys) {
      this.keys.delete(key);
      work(key, at);
      if (++n % every === 0 && !more()) break;
    }
  }
}
