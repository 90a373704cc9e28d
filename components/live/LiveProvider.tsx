'use client';

import { createContext, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';
import type { ClusterInfo, WorkloadRow } from '../../contract/index.ts';
import { RowStore } from './row-store.ts';
import { StreamClient } from './stream-client.ts';
import type { ConnectionState } from './stream-client.ts';
import { throttle } from './throttle.ts';

/**
 * One live stream for the whole app, started by the first page that needs rows and kept across
 * client-side navigations, so going back to the table is instant and the workload page can watch
 * its row without a second connection.
 */
class Live {
  readonly store = new RowStore();
  private client: StreamClient | null = null;
  private stateListeners = new Set<() => void>();
  private _state: ConnectionState | null = null;

  get state(): ConnectionState | null {
    return this._state;
  }

  /** Starts the stream if no page has yet. */
  ensureStarted(): void {
    if (!this.client) {
      this.client = new StreamClient({
        url: '/api/stream',
        onSnapshot: (s) => this.store.applySnapshot(s),
        onDeltas: (d) => this.store.applyDeltas(d),
        onClusters: (c) => this.store.setClusters(c),
        onState: (s) => {
          this._state = s;
          for (const fn of this.stateListeners) fn();
        },
        lastSeq: () => this.store.seq,
      });
      this._state = this.client.state;
      this.client.start();
    }
  }

  /** Reconnect now instead of waiting for the backoff (the browser came back online). */
  nudge(): void {
    if (this._state && this._state.status !== 'live') this.client?.reconnectNow();
  }

  subscribeState(fn: () => void): () => void {
    this.stateListeners.add(fn);
    return () => this.stateListeners.delete(fn);
  }

  stop(): void {
    this.client?.stop();
    this.client = null;
  }
}

// One per browser tab (never on the server): created when this module loads so that, on pages that
// show rows, the stream opens while React is still hydrating rather than after it.
let singleton: Live | null = null;
function browserLive(): Live {
  singleton ??= new Live();
  return singleton;
}
if (typeof window !== 'undefined' && /^\/(workloads\/|$)/.test(window.location.pathname)) browserLive().ensureStarted();

const LiveContext = createContext<Live | null>(null);

export function LiveProvider({ children }: { children: ReactNode }) {
  const [live] = useState(() => (typeof window === 'undefined' ? new Live() : browserLive()));
  useEffect(() => {
    // Back online: retry at once rather than after the current backoff delay.
    const onOnline = () => live.nudge();
    window.addEventListener('online', onOnline);
    return () => window.removeEventListener('online', onOnline);
  }, [live]);
  return <LiveContext.Provider value={live}>{children}</LiveContext.Provider>;
}

function useLive(): Live {
  const live = useContext(LiveContext);
  if (!live) throw new Error('LiveProvider is missing');
  useEffect(() => live.ensureStarted(), [live]);
  return live;
}

export interface LiveRows {
  rows: WorkloadRow[];
  clusters: ClusterInfo[];
  hasSnapshot: boolean;
  version: number;
}

const EMPTY: LiveRows = Object.freeze({ rows: [], clusters: [], hasSnapshot: false, version: 0 }) as LiveRows;

/**
 * All rows, re-rendering at most every `ms` under churn. The server (and hydration) sees no rows:
 * the stream may already have delivered some before React hydrates, and what hydration renders must
 * equal the server's HTML.
 */
export function useLiveRows(ms = 250): LiveRows {
  const live = useLive();
  const subscribe = useMemo(() => {
    return (fn: () => void) => {
      const t = throttle(fn, ms);
      const un = live.store.subscribe(t);
      return () => {
        t.cancel();
        un();
      };
    };
  }, [live, ms]);
  const cache = useRef<LiveRows>(EMPTY);
  const snapshot = () => {
    const s = live.store;
    if (cache.current.version !== s.version || cache.current === EMPTY) cache.current = { rows: s.list(), clusters: s.clusters, hasSnapshot: s.hasSnapshot, version: s.version };
    return cache.current;
  };
  return useSyncExternalStore(subscribe, snapshot, () => EMPTY);
}

/** One row by id (undefined until the snapshot has it, or after it was removed). */
export function useLiveRow(id: string): { row: WorkloadRow | undefined; hasSnapshot: boolean } {
  const live = useLive();
  const row = useSyncExternalStore(
    (fn) => live.store.subscribe(fn),
    () => live.store.get(id),
    () => undefined,
  );
  const hasSnapshot = useSyncExternalStore(
    (fn) => live.store.subscribe(fn),
    () => live.store.hasSnapshot,
    () => false,
  );
  return { row, hasSnapshot };
}

/** The clusters' states (and utilization sources); re-renders only when they change, not on every row. */
export function useLiveClusters(): ClusterInfo[] {
  const live = useLive();
  return useSyncExternalStore(
    (fn) => live.store.subscribe(fn),
    () => live.store.clusters,
    () => NO_CLUSTERS,
  );
}
const NO_CLUSTERS: ClusterInfo[] = [];

export function useConnection(): { state: ConnectionState | null; hasSnapshot: boolean } {
  const live = useContext(LiveContext);
  const state = useSyncExternalStore(
    (fn) => live?.subscribeState(fn) ?? (() => {}),
    () => live?.state ?? null,
    () => null,
  );
  const hasSnapshot = useSyncExternalStore(
    (fn) => live?.store.subscribe(fn) ?? (() => {}),
    () => live?.store.hasSnapshot ?? false,
    () => false,
  );
  return { state, hasSnapshot };
}

/** A clock that ticks every `ms` (ages, "stale since"). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
