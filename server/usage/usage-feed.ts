/**
 * One cluster's utilization, refreshed on a timer: finds its source (again every few minutes, and
 * after failures), reads every GPU in one batch, tracks idleness, and hands out snapshots. A failed
 * refresh keeps the last readings and says since when they are old — never zeros.
 */
import { setMaxListeners } from 'node:events';
import type { KubeConfig } from '@kubernetes/client-node';
import type { IdleRule, UsageSourceKind } from '../../contract/index.ts';
import { logger } from '../log/index.ts';
import type { DeviceReading } from './dcgm.ts';
import { discoverSource } from './discover.ts';
import { IdleTracker, type IdleState } from './idle-tracker.ts';
import type { PodRef, PodSeries, UsageSource } from './source.ts';

export interface FeedOptions {
  /** A Prometheus for this cluster (`http(s)://…` or `service:ns/name:port`); discovered when absent. */
  prometheus?: string;
  idle: IdleRule;
  intervalSeconds: number;
  /** How often the source is looked for again (default 5 min). */
  rediscoverSeconds?: number;
  /** How far back the history is asked when a GPU is first seen idle (default 24 h). */
  lookbackSeconds?: number;
}

export type ReadingState = DeviceReading & IdleState;

export interface UsageSnapshot {
  cluster: string;
  source: UsageSourceKind;
  detail: string;
  /** Epoch ms of the readings; null before the first successful refresh. */
  at: number | null;
  error: string | null;
  history: boolean;
  idle: IdleRule;
  intervalSeconds: number;
  /** By `namespace/pod`. */
  byPod: ReadonlyMap<string, readonly ReadingState[]>;
  /** By node name (every device its exporter reports, held or not). */
  byNode: ReadonlyMap<string, readonly ReadingState[]>;
  /** Increases with every refresh that changed anything (readings, source, error). */
  version: number;
  /** Cost of the last refresh (benchmarks): wall ms and bytes read. */
  lastRefresh: { ms: number; bytes: number; readings: number } | null;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The controller whose signal stops a feed's requests. Every request of a refresh (16 exporters at
 * once) listens on it, the CLI's single refresh as much as a started feed's.
 */
function stopSignal(): AbortController {
  const c = new AbortController();
  setMaxListeners(256, c.signal);
  return c;
}

export class UsageFeed {
  readonly cluster: string;
  private readonly kc: KubeConfig;
  private readonly opts: FeedOptions;
  private readonly onSnapshot: (s: UsageSnapshot) => void;
  private source: UsageSource | null = null;
  private discoveredAt = 0;
  /** When to look for a source again (ms after discoveredAt); shorter while a Prometheus may be about to hold DCGM series. */
  private rediscoverAfter = 0;
  private retries = 0;
  private failures = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private abort = stopSignal();
  private tracker: IdleTracker;
  private snap: UsageSnapshot;
  private readonly log;

  constructor(cluster: string, kc: KubeConfig, opts: FeedOptions, onSnapshot: (s: UsageSnapshot) => void) {
    this.cluster = cluster;
    this.kc = kc;
    this.opts = opts;
    this.onSnapshot = onSnapshot;
    this.tracker = new IdleTracker(opts.idle);
    this.log = logger('usage', { cluster });
    this.snap = { cluster, source: 'none', detail: 'looking for a source', at: null, error: null, history: false, idle: opts.idle, intervalSeconds: opts.intervalSeconds, byPod: new Map(), byNode: new Map(), version: 0, lastRefresh: null };
  }

  snapshot(): UsageSnapshot {
    return this.snap;
  }

  start(): void {
    this.stopped = false;
    if (this.abort.signal.aborted) this.abort = stopSignal();
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh().finally(() => this.schedule(this.opts.intervalSeconds * 1000));
    }, ms);
  }

  /** One refresh now (the timer's, or a test's); concurrent calls share one. */
  refresh(): Promise<void> {
    this.running ??= this.doRefresh().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private publish(next: Partial<UsageSnapshot>): void {
    this.snap = { ...this.snap, ...next, version: this.snap.version + 1 };
    this.onSnapshot(this.snap);
  }

  private async doRefresh(): Promise<void> {
    const signal = this.abort.signal;
    const started = performance.now();
    const rediscover = (this.opts.rediscoverSeconds ?? 300) * 1000;
    if (!this.source || this.failures >= 3 || Date.now() - this.discoveredAt > this.rediscoverAfter) {
      try {
        const found = await discoverSource(this.kc, this.opts.prometheus, signal);
        this.discoveredAt = Date.now();
        // A Prometheus without DCGM series yet (just started) is looked at again soon, backing off.
        this.retries = found.retrySoon ? this.retries + 1 : 0;
        this.rediscoverAfter = found.retrySoon ? Math.min(rediscover, this.opts.intervalSeconds * 1000 * 2 ** this.retries) : rediscover;
        const changed = found.source?.identity !== this.source?.identity;
        if (changed) this.tracker = new IdleTracker(this.opts.idle);
        this.source = found.source;
        this.failures = 0;
        if (!found.source) {
          this.publish({ source: 'none', detail: found.detail, error: null, history: false, at: null, byPod: new Map(), byNode: new Map() });
          return;
        }
        if (changed) this.log.info({ source: found.source.kind, detail: found.source.detail }, 'utilization source');
      } catch (e) {
        if (signal.aborted) return;
        this.source = null;
        this.discoveredAt = Date.now();
        this.rediscoverAfter = 0;
        // A configured Prometheus that does not answer: its readings, if any, age; nothing is made up.
        this.publish({ source: 'none', detail: this.opts.prometheus ? `Prometheus ${this.opts.prometheus} (configured)` : 'looking for a source', error: message(e) });
        return;
      }
    }
    const source = this.source!;
    try {
      const read = await source.read(this.opts.idle.windowSeconds, this.opts.idle.thresholdPercent, signal);
      const states = this.tracker.update(read.readings, read.at);
      if (source.lastBusy) await this.seed(source, states, read.at, signal);
      const byPod = new Map<string, ReadingState[]>();
      const byNode = new Map<string, ReadingState[]>();
      for (const r of read.readings) {
        // The readings are this refresh's own objects: their idle state is set on them, not copied.
        const st = states.get(r.key);
        const s = r as ReadingState;
        s.idle = st?.idle ?? null;
        s.since = st?.since ?? null;
        if (s.pod && s.namespace) push(byPod, `${s.namespace}/${s.pod}`, s);
        push(byNode, s.node, s);
      }
      this.failures = 0;
      this.publish({
        source: source.kind, detail: source.detail, history: source.history, at: read.at, byPod, byNode,
        error: read.warnings.length ? read.warnings.join('; ') : null,
        lastRefresh: { ms: performance.now() - started, bytes: read.bytes, readings: read.readings.length },
      });
    } catch (e) {
      if (signal.aborted) return;
      this.failures++;
      this.log.warn({ err: message(e), failures: this.failures }, 'utilization refresh failed');
      this.publish({ error: message(e) });
    }
  }

  /** Readings first seen idle get their last busy time from the history, in one query for them all. */
  private async seed(source: UsageSource, states: Map<string, IdleState>, at: number, signal: AbortSignal): Promise<void> {
    const keys = this.tracker.unseeded(states);
    if (keys.length === 0 || !source.lastBusy) return;
    const lookback = this.opts.lookbackSeconds ?? 86_400;
    let found: Map<string, number>;
    try {
      found = await source.lastBusy(this.opts.idle.thresholdPercent, lookback, signal);
    } catch (e) {
      this.log.warn({ err: message(e) }, 'cannot look back for when idle GPUs were last busy; their idle time starts at the window');
      return;
    }
    for (const key of keys) {
      this.tracker.seed(key, found.get(key) ?? null, at - lookback * 1000);
      const s = states.get(key);
      if (s?.idle) s.since = this.tracker.sinceOf(key) ?? s.since;
    }
  }

  /** Utilization of the pods over time (Prometheus only). */
  async range(pods: readonly PodRef[], start: number, end: number, stepSeconds: number): Promise<Map<string, PodSeries> | null> {
    if (!this.source?.range) return null;
    return this.source.range(pods, start, end, stepSeconds, this.abort.signal);
  }
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}
