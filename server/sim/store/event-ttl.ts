/**
 * Events expire, as on a real API server: etcd keeps each Event under a lease of `--event-ttl` (1 h by
 * default) renewed by every write, so an Event goes an hour after it was last recorded. A sweep once a
 * (simulated) minute deletes those, and — so that a big churning cluster stays within bounded memory —
 * the oldest beyond a cap as well.
 */

import type { KubeObject, ObjectStore } from './object-store.ts';
import { StoreError } from './object-store.ts';

export interface EventTtlOptions {
  /** Time to live after the last write (default 1 h). */
  ttlMs?: number;
  /** Most Events kept; the least recently seen go first beyond it (default 50,000). */
  maxEvents?: number;
  /** Simulated now (ms). */
  now: () => number;
  /** Runs `fn` every `ms` (simulated) and returns its cancel. */
  every: (fn: () => void, ms: number) => () => void;
}

export const DEFAULT_EVENT_TTL_MS = 3_600_000;
const SWEEP_MS = 60_000;

function ms(v: unknown): number {
  if (typeof v !== 'string' || v === '') return 0;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
}

/** When an Event was last recorded: its newest timestamp of either API's fields. */
export function lastSeen(e: KubeObject): number {
  const series = e.series as { lastObservedTime?: string } | undefined;
  return Math.max(ms(e.lastTimestamp), ms(series?.lastObservedTime), ms(e.eventTime), ms(e.firstTimestamp), ms(e.metadata.creationTimestamp));
}

/** Deletes expired Events (and the oldest beyond the cap); returns how many went. */
export function sweepEvents(store: ObjectStore, nowMs: number, ttlMs: number, maxEvents: number): number {
  const events = store.list('v1', 'Event');
  const cutoff = nowMs - ttlMs;
  const doomed: KubeObject[] = [];
  const kept: Array<{ e: KubeObject; at: number }> = [];
  for (const e of events) {
    const at = lastSeen(e);
    if (at < cutoff) doomed.push(e);
    else kept.push({ e, at });
  }
  if (kept.length > maxEvents) {
    // Down to nine tenths of the cap, so that a cluster at the cap does not sweep on every tick.
    kept.sort((a, b) => a.at - b.at);
    for (const k of kept.slice(0, kept.length - Math.floor(maxEvents * 0.9))) doomed.push(k.e);
  }
  let n = 0;
  for (const e of doomed) {
    try {
      store.delete('v1', 'Event', e.metadata.namespace, e.metadata.name!);
      n++;
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
    }
  }
  return n;
}

export function startEventTtl(store: ObjectStore, o: EventTtlOptions): { stop(): void } {
  const ttl = o.ttlMs ?? DEFAULT_EVENT_TTL_MS;
  const max = o.maxEvents ?? 50_000;
  const cancel = o.every(() => sweepEvents(store, o.now(), ttl, max), Math.min(SWEEP_MS, ttl));
  return { stop: cancel };
}
