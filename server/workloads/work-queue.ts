/**
 * A de-duplicating work queue, as controllers use one: a key added while it waits is done once,
 * in the order keys were first added. Keys taken out can be added again (a change after the work
 * started makes the work stale, so it is queued once more).
 */
export class WorkQueue<K> {
  private keys = new Set<K>();

  add(key: K): void {
    this.keys.add(key);
  }

  has(key: K): boolean {
    return this.keys.has(key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Takes every waiting key. */
  drain(): Set<K> {
    const out = this.keys;
    this.keys = new Set();
    return out;
  }

  /**
   * Takes keys one by one while `more()` says so; `more` is asked every `every` keys (reading a
   * clock for each key would cost more than the work).
   */
  takeWhile(work: (key: K) => void, more: () => boolean, every = 16): void {
    let n = 0;
    for (const key of this.keys) {
      this.keys.delete(key);
      work(key);
      if (++n % every === 0 && !more()) break;
    }
  }
}
