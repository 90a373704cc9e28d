/**
 * Which readings are idle and since when: below the threshold for at least the window. Pure state
 * over successive refreshes (times are passed in).
 *
 * With history (Prometheus), the window's highest value decides — it sees bursts between two
 * refreshes — and "since" is the last time the reading was seen busy: by a refresh, as a lower
 * bound while the window still held a busy sample, or, for a reading idle when first seen, by one
 * look back into the history (`unseeded()`, then `seed()`). Without history (the exporters read
 * directly) only the refreshes' own readings count, so idleness is unknown (null) until a reading
 * has been watched for a whole window.
 */
import type { IdleRule } from '../../contract/index.ts';
import type { DeviceReading } from './dcgm.ts';

export interface IdleState {
  idle: boolean | null;
  /** Epoch ms; set when idle. */
  since: number | null;
}

interface Track {
  firstSeen: number;
  lastBusy: number | null;
  /** The history was asked when it was last busy (or it was never busy within the look-back). */
  seeded: boolean;
}

export class IdleTracker {
  private tracks = new Map<string, Track>();
  private readonly rule: IdleRule;

  constructor(rule: IdleRule) {
    this.rule = rule;
  }

  /** The idle state of each reading at `at` (epoch ms), by reading key; readings no longer seen are forgotten. */
  update(readings: readonly DeviceReading[], at: number): Map<string, IdleState> {
    const windowMs = this.rule.windowSeconds * 1000;
    const threshold = this.rule.thresholdPercent;
    const next = new Map<string, Track>();
    const out = new Map<string, IdleState>();
    for (const r of readings) {
      const key = r.key;
      const t = this.tracks.get(key) ?? { firstSeen: at, lastBusy: null, seeded: false };
      next.set(key, t);
      const busyNow = r.utilization !== null && r.utilization >= threshold;
      if (busyNow) t.lastBusy = at;
      let state: IdleState;
      // A window without a sample (a window not much longer than the scrape interval, a late scrape)
      // says nothing: the refreshes' own readings decide then, as without history.
      if (r.windowMax !== undefined && r.windowMax !== null) {
        if (busyNow || r.windowMax >= threshold) {
          // Busy within the window: at least as late as the window's start.
          t.lastBusy = Math.max(t.lastBusy ?? Number.NEGATIVE_INFINITY, at - windowMs);
          state = { idle: false, since: null };
        } else state = { idle: true, since: t.lastBusy ?? at - windowMs };
      } else if (busyNow) state = { idle: false, since: null };
      else if (r.utilization === null) state = { idle: null, since: null };
      else {
        const quietSince = t.lastBusy ?? t.firstSeen;
        if (at - quietSince >= windowMs) state = { idle: true, since: quietSince };
        else state = { idle: t.lastBusy === null ? null : false, since: null };
      }
      out.set(key, state);
    }
    this.tracks = next;
    return out;
  }

  /** Keys of idle readings whose last busy time only the history can tell. */
  unseeded(states: ReadonlyMap<string, IdleState>): string[] {
    const keys: string[] = [];
    for (const [key, s] of states) {
      const t = this.tracks.get(key);
      if (s.idle && t && t.lastBusy === null && !t.seeded) keys.push(key);
    }
    return keys;
  }

  /** What the history says: the last busy time (epoch ms), or `floor` when it holds none (idle since before the look-back began). */
  seed(key: string, lastBusy: number | null, floor: number): void {
    const t = this.tracks.get(key);
    if (!t) return;
    t.seeded = true;
    t.lastBusy = Math.max(t.lastBusy ?? Number.NEGATIVE_INFINITY, lastBusy ?? floor);
  }

  /** The current idle state of a key after seeding (its since may have moved). */
  sinceOf(key: string): number | null {
    return this.tracks.get(key)?.lastBusy ?? null;
  }
}
