/**
 * What the server counts and times, as plain calls with no dependency: the cluster layer, the live
 * index and the stream report here, and `wmap serve` plugs in the Prometheus registry that turns
 * the calls into series (prometheus.ts). Until then (the CLI, tests) every call is a no-op, so a
 * module that reports costs nothing where nobody scrapes.
 *
 * Hot paths bind their labels once (`watch(cluster, resource)`), so an event costs an increment,
 * not a label lookup. The instruments live on globalThis: Next.js bundles the route handlers (the
 * stream) apart from the custom server, and both must report into the same registry.
 */

/** Why a watch was started again. */
export type WatchRestartReason = 'expired' | 'silent' | 'ended' | 'error' | 'forbidden';

/** One list+watch's instruments (bound to its cluster and resource). */
export interface WatchInstruments {
  /** A list completed, in seconds; `relist` when it was not the first. */
  listed(seconds: number, relist: boolean): void;
  /** A watch (or list) will be started again. */
  restarted(reason: WatchRestartReason): void;
  /** An API answer with this HTTP status (410 Gone, 429 Too Many Requests, 5xx, ...). */
  failed(status: number): void;
  /** A 429 or 503's Retry-After was honoured: the wait it imposed beyond the backoff, in seconds. */
  retryAfterHonoured(seconds: number): void;
  /** An object event arrived (ADDED, MODIFIED, DELETED). */
  event(): void;
}

export interface Instruments {
  watch(cluster: string, resource: string): WatchInstruments;
  /** One root resolved into its tree and row, in seconds. */
  resolved(seconds: number): void;
  /** From a root being queued by an event to its delta being emitted, in seconds. */
  deltaLatency(seconds: number): void;
  /** A stream client connected (+1) or left (-1). */
  streamClients(change: 1 | -1): void;
  /** Frames a slow stream client did not take, and were dropped with it (it resumes from its last event id). */
  streamFramesDropped(frames: number): void;
  /** One API call answered: its route template (never a raw path: names are unbounded), method, status and duration. */
  request(route: string, method: string, status: number, seconds: number): void;
}

const NO_WATCH: WatchInstruments = { listed() {}, restarted() {}, failed() {}, retryAfterHonoured() {}, event() {} };
const NOOP: Instruments = { watch: () => NO_WATCH, resolved() {}, deltaLatency() {}, streamClients() {}, streamFramesDropped() {}, request() {} };

const KEY = Symbol.for('workload-map.instruments');
type WithInstruments = typeof globalThis & { [KEY]?: Instruments };

/** The process's instruments (no-ops until a server installs a registry). */
export function instruments(): Instruments {
  return (globalThis as WithInstruments)[KEY] ?? NOOP;
}

/** Installs (or, with null, removes) the process's instruments. */
export function setInstruments(i: Instruments | null): void {
  const g = globalThis as WithInstruments;
  if (i) g[KEY] = i;
  else delete g[KEY];
}
