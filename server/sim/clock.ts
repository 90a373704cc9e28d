/**
 * The simulated cluster's clock. Everything time-driven in the simulation (pod start-up, batch run times,
 * deadlines, scenario churn) reads this clock and sets its timers here, never on the real clock directly,
 * so that a demo can run faster than real time and a test can step time by hand (`advance`).
 *
 * Two modes:
 * - real: simulated time = start + (real elapsed) × speed; timers fire on real timers, scaled.
 * - manual: time only moves on `advance(ms)`, which fires due timers in time order, synchronously.
 */

import { logger } from '../log/index.ts';

export type TimerId = number;

interface Timer {
  id: TimerId;
  due: number;
  seq: number;
  fn: () => void;
}

export interface SimClockOptions {
  /** `manual` for tests; `real` (default) follows the wall clock scaled by `speed`. */
  mode?: 'manual' | 'real';
  /** Simulated milliseconds per real millisecond (real mode). Default 1. */
  speed?: number;
  /** Simulated start time (ms since epoch or Date). Real mode defaults to now; manual mode to 2026-01-01T00:00:00Z. */
  start?: number | Date;
}

/** A binary min-heap of timers by (due, seq): cheap with hundreds of thousands of pending timers. */
class TimerHeap {
  private readonly items: Timer[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Timer | undefined {
    return this.items[0];
  }

  push(t: Timer): void {
    const a = this.items;
    a.push(t);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  pop(): Timer | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l], a[m])) m = l;
        if (r < a.length && less(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

function less(a: Timer, b: Timer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

export class SimClock {
  readonly mode: 'manual' | 'real';
  private speedFactor: number;
  /** Simulated time at `realBase` (real mode) or the current simulated time (manual mode). */
  private simBase: number;
  private realBase: number;
  private readonly heap = new TimerHeap();
  /** Live timers by id; a cancelled timer is dropped from here and skipped when popped. */
  private readonly live = new Map<TimerId, Timer>();
  private nextId = 1;
  private seq = 0;
  private realTimer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  private readonly afterHooks = new Set<() => void>();
  private firing = false;
  private stopped = false;

  constructor(options: SimClockOptions = {}) {
    this.mode = options.mode ?? 'real';
    this.speedFactor = options.speed ?? 1;
    if (!(this.speedFactor > 0)) throw new Error('SimClock speed must be > 0');
    const start = options.start instanceof Date ? options.start.getTime() : options.start;
    this.simBase = start ?? (this.mode === 'manual' ? Date.UTC(2026, 0, 1) : Date.now());
    this.realBase = Date.now();
  }

  /** A clock for tests: time moves only with `advance`. */
  static manual(start?: number | Date): SimClock {
    return new SimClock({ mode: 'manual', start });
  }

  /** A clock following real time, `speed` times faster. */
  static realtime(speed = 1): SimClock {
    return new SimClock({ mode: 'real', speed });
  }

  /** Simulated milliseconds since the epoch. */
  now(): number {
    if (this.mode === 'manual') return this.simBase;
    return this.simBase + (Date.now() - this.realBase) * this.speedFactor;
  }

  date(): Date {
    return new Date(this.now());
  }

  /** RFC 3339, seconds precision, `Z` — the timestamp format of the Kubernetes API. */
  iso(): string {
    const sec = Math.floor(this.now() / 1000);
    if (sec !== this.isoSecond) {
      this.isoSecond = sec;
      this.isoText = new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
    }
    return this.isoText;
  }

  private isoSecond = NaN;
  private isoText = '';

  get speed(): number {
    return this.speedFactor;
  }

  /** Changes the speed of a real-time clock without a jump in simulated time. */
  setSpeed(speed: number): void {
    if (!(speed > 0)) throw new Error('SimClock speed must be > 0');
    if (this.mode === 'real') {
      this.simBase = this.now();
      this.realBase = Date.now();
    }
    this.speedFactor = speed;
    this.arm(true);
  }

  /** Calls `fn` once, `ms` simulated milliseconds from now. */
  setTimeout(fn: () => void, ms: number): TimerId {
    const t: Timer = { id: this.nextId++, due: this.now() + Math.max(0, ms), seq: this.seq++, fn };
    this.live.set(t.id, t);
    this.heap.push(t);
    if (this.mode === 'real' && !this.firing) this.arm(false);
    return t.id;
  }

  clearTimeout(id: TimerId | undefined): void {
    if (id !== undefined) this.live.delete(id);
  }

  /** Calls `fn` every `ms` simulated milliseconds until the returned function is called. */
  setInterval(fn: () => void, ms: number): () => void {
    let id: TimerId | undefined;
    let active = true;
    const tick = (): void => {
      if (!active) return;
      id = this.setTimeout(tick, ms);
      fn();
    };
    id = this.setTimeout(tick, ms);
    return () => {
      active = false;
      this.clearTimeout(id);
    };
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.live.size;
  }

  /** Simulated time of the next live timer, if any. */
  nextTimerAt(): number | undefined {
    this.dropCancelledTop();
    return this.heap.peek()?.due;
  }

  /**
   * Runs `hook` after each batch of timers that fire together, before later timers: the controllers
   * register their settle loop here so that work caused by one timer is done before the next one fires.
   */
  onAfterTimers(hook: () => void): () => void {
    this.afterHooks.add(hook);
    return () => {
      this.afterHooks.delete(hook);
    };
  }

  /** Manual mode: moves time forward by `ms`, firing every timer that becomes due, in time order. */
  advance(ms: number): void {
    if (this.mode !== 'manual') throw new Error('SimClock.advance needs a manual clock');
    const target = this.simBase + Math.max(0, ms);
    for (;;) {
      this.dropCancelledTop();
      const top = this.heap.peek();
      if (!top || top.due > target) break;
      this.simBase = Math.max(this.simBase, top.due);
      this.fireDue(this.simBase);
    }
    this.simBase = target;
  }

  /** Manual mode: advances to the next timer (if any) and fires it; returns false when none is pending. */
  step(): boolean {
    const next = this.nextTimerAt();
    if (next === undefined) return false;
    this.advance(Math.max(0, next - this.now()));
    return true;
  }

  /** Cancels every timer and stops firing (the clock still tells time). */
  stop(): void {
    this.stopped = true;
    this.live.clear();
    if (this.realTimer) clearTimeout(this.realTimer);
    this.realTimer = undefined;
  }

  private dropCancelledTop(): void {
    for (let top = this.heap.peek(); top && !this.live.has(top.id); top = this.heap.peek()) this.heap.pop();
  }

  /** Fires all live timers due at or before `at` that share the earliest due time, then the hooks. */
  private fireDue(at: number): void {
    this.firing = true;
    try {
      const due = this.heap.peek()?.due;
      if (due === undefined || due > at) return;
      while (true) {
        const top = this.heap.peek();
        if (!top || top.due !== due) break;
        this.heap.pop();
        if (!this.live.delete(top.id)) continue;
        try {
          top.fn();
        } catch (e) {
          logger('sim.clock').error({ err: e }, 'timer failed');
        }
      }
      for (const h of this.afterHooks) {
        try {
          h();
        } catch (e) {
          logger('sim.clock').error({ err: e }, 'after-timers hook failed');
        }
      }
    } finally {
      this.firing = false;
    }
  }

  /** Real mode: keeps exactly one real timer armed for the earliest simulated due time. */
  private arm(force: boolean): void {
    if (this.mode !== 'real' || this.stopped) return;
    this.dropCancelledTop();
    const top = this.heap.peek();
    if (!top) {
      if (this.realTimer) clearTimeout(this.realTimer);
      this.realTimer = undefined;
      this.armedFor = Infinity;
      return;
    }
    if (!force && this.realTimer && top.due >= this.armedFor) return;
    if (this.realTimer) clearTimeout(this.realTimer);
    this.armedFor = top.due;
    const delay = Math.max(0, (top.due - this.now()) / this.speedFactor);
    // Real timers max out at ~24.8 days; re-arm on wake-up if the target is further away.
    this.realTimer = setTimeout(() => this.onRealTimer(), Math.min(delay, 2 ** 31 - 1));
    // The simulation never keeps a process alive on its own: the API server (or a test) does.
    this.realTimer.unref();
  }

  private onRealTimer(): void {
    this.realTimer = undefined;
    this.armedFor = Infinity;
    if (this.stopped) return;
    const now = this.now();
    // Bounded batch per wake-up so a burst of due timers cannot starve the event loop.
    const deadline = Date.now() + 50;
    for (;;) {
      this.dropCancelledTop();
      const top = this.heap.peek();
      if (!top || top.due > now) break;
      this.fireDue(top.due);
      if (Date.now() > deadline) break;
    }
    this.arm(true);
  }
}
