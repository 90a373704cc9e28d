/**
 * One connection to `GET /api/stream`, kept alive: reconnects with backoff, resumes with
 * `Last-Event-ID`, treats a silent connection (no bytes, not even the heartbeat) as dropped, and
 * reports its state so the page can say "live", "reconnecting" or "stale since …".
 */
import { HEARTBEAT_MS, type ClusterInfo, type RowDelta, type SnapshotEvent } from '../../contract/index.ts';
import { SseParser } from './sse-parser.ts';


export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting';

export interface ConnectionState {
  status: ConnectionStatus;
  /** When the current status began (ms since epoch). */
  since: number;
  /** When we last heard anything from the server (event or heartbeat), or null. */
  lastDataAt: number | null;
  /** Failed attempts since the last good connection. */
  attempts: number;
  /** Why the last attempt failed, for people. */
  error: string | null;
}

export interface StreamClientOptions {
  url: string;
  onSnapshot(s: SnapshotEvent): void;
  onDeltas(d: RowDelta[]): void;
  onClusters(c: ClusterInfo[]): void;
  onState(s: ConnectionState): void;
  /** The seq already applied, so a resume asks only for what is missing. */
  lastSeq?: () => number | null;
  fetch?: typeof fetch;
  now?: () => number;
  /** No byte for this long means the connection is dead (default 2.5 heartbeats). */
  silenceMs?: number;
  /** Delay before attempt n (1-based). */
  backoffMs?: (attempt: number) => number;
}

export function defaultBackoff(attempt: number): number {
  // 0.5 s, 1 s, 2 s, 4 s … capped at 15 s, with jitter so many tabs do not reconnect in step.
  const base = Math.min(15_000, 500 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** User-timing marks, so benchmarks (and the browser's profiler) can see where load time goes. */
function mark(name: string): void {
  if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark(name);
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

export class StreamClient {
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly silenceMs: number;
  private readonly backoff: (attempt: number) => number;
  private controller: AbortController | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private silenceTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = true;
  private lastEventId: string | null = null;
  private serverRetryMs: number | null = null;
  private generation = 0;
  private _state: ConnectionState;

  constructor(private readonly o: StreamClientOptions) {
    this.fetchFn = o.fetch ?? ((...a) => fetch(...a));
    this.now = o.now ?? Date.now;
    this.silenceMs = o.silenceMs ?? HEARTBEAT_MS * 2.5;
    this.backoff = o.backoffMs ?? defaultBackoff;
    this._state = { status: 'connecting', since: this.now(), lastDataAt: null, attempts: 0, error: null };
  }

  get state(): ConnectionState {
    return this._state;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.clearTimers();
    this.controller?.abort();
    this.controller = null;
  }

  /** Drop the current connection and reconnect now (e.g. the page became visible again). */
  reconnectNow(): void {
    if (this.stopped) return;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
      void this.connect();
    } else {
      this.controller?.abort();
    }
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.retryTimer = null;
    this.silenceTimer = null;
  }

  private setState(patch: Partial<ConnectionState>): void {
    const next = { ...this._state, ...patch };
    if (patch.status && patch.status !== this._state.status) next.since = this.now();
    this._state = next;
    this.o.onState(next);
  }

  private heard(): void {
    this._state = { ...this._state, lastDataAt: this.now() };
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => {
      this.silenceTimer = null;
      this.controller?.abort(new Error(`no data from the server for ${Math.round(this.silenceMs / 1000)} s`));
    }, this.silenceMs);
  }

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    const controller = new AbortController();
    this.controller = controller;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    // The stream's own id first: with server-side filters it can be ahead of the last delta we got.
    const seq = this.o.lastSeq?.() ?? null;
    const resumeFrom = this.lastEventId ?? (seq !== null ? String(seq) : null);
    if (resumeFrom !== null) headers['last-event-id'] = resumeFrom;
    let failure: string;
    mark('wmap:stream-connect');
    try {
      const res = await this.fetchFn(this.o.url, { headers, signal: controller.signal, cache: 'no-store' });
      if (!res.ok || !res.body) {
        let message = `HTTP ${res.status}`;
        try {
          const body = (await res.json()) as { error?: { message?: string } };
          if (body?.error?.message) message += `: ${body.error.message}`;
        } catch {
          // not JSON: the status is all we can say
        }
        throw new Error(message);
      }
      if (gen !== this.generation) return;
      mark('wmap:stream-open');
      this.heard();
      this.setState({ status: 'live', attempts: 0, error: null });
      await this.read(res.body, gen);
      failure = 'the server closed the stream';
    } catch (e) {
      const reason = controller.signal.aborted ? controller.signal.reason : e;
      failure = reason instanceof DOMException && reason.name === 'AbortError' ? 'connection dropped' : errorText(reason);
    } finally {
      if (this.silenceTimer) clearTimeout(this.silenceTimer);
      this.silenceTimer = null;
    }
    if (this.stopped || gen !== this.generation) return;
    const attempts = this._state.attempts + 1;
    // Keep `since` from the first failure: "stale since" means since the data stopped.
    this.setState({ status: this._state.status === 'connecting' ? 'connecting' : 'reconnecting', attempts, error: failure });
    const delay = Math.max(this.backoff(attempts), this.serverRetryMs ?? 0);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) void this.connect();
    }, delay);
  }

  private async read(body: ReadableStream<Uint8Array>, gen: number): Promise<void> {
    const parser = new SseParser({
      event: (e) => {
        if (gen !== this.generation) return;
        if (e.id !== null) this.lastEventId = e.id;
        this.dispatch(e.event, e.data);
      },
      comment: () => undefined,
      retry: (ms) => {
        this.serverRetryMs = ms;
      },
    });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let first = true;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (gen !== this.generation) return;
        if (first) {
          first = false;
          mark('wmap:stream-first-byte');
        }
        this.heard();
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      parser.reset();
      reader.releaseLock();
    }
  }

  private dispatch(event: string, data: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return; // not ours; a proxy's message, say
    }
    // A bug in a consumer is logged, not allowed to drop the connection (and with it live data).
    try {
      if (event === 'snapshot') {
        mark('wmap:snapshot-parsed');
        this.o.onSnapshot(payload as SnapshotEvent);
      } else if (event === 'delta') this.o.onDeltas(payload as RowDelta[]);
      else if (event === 'clusters') this.o.onClusters(payload as ClusterInfo[]);
    } catch (e) {
      console.error(`workload-map: handling a "${event}" event failed`, e);
    }
  }
}
