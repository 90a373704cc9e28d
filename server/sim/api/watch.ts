/**
 * Watch streams: one JSON document per line, headers flushed at once, selector transitions
 * (ADDED/DELETED when an object moves in or out of the filter), bookmarks only when asked,
 * a clean end on timeout and shutdown, and the 410 ERROR-event-then-close form.
 */

import type { ServerResponse } from 'node:http';
import type { HistoryEntry } from '../store/memory-store.ts';
import type { KubeObject } from '../store/object-store.ts';
import { encodeObject } from './serialize.ts';
import type { Status } from './status.ts';

export interface WatchFilter {
  gk: string;
  namespace?: string;
  match: (obj: KubeObject) => boolean;
}

export interface WatchOptions {
  filter: WatchFilter;
  /** Encodes an object for this client (version rewrite, or a one-row Table). */
  encode: (obj: KubeObject, first: boolean) => string;
  bookmarks: boolean;
  /** kind and apiVersion that BOOKMARK objects carry. */
  kind: string;
  apiVersion: string;
  currentRv: () => string;
  bookmarkIntervalMs: number;
  timeoutMs: number;
  /** Streams buffering more than this are cut, as the real server drops watchers that cannot keep up. */
  maxBufferedBytes?: number;
  onClose: () => void;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export class WatchSession {
  readonly filter: WatchFilter;
  private readonly res: ServerResponse;
  private readonly opts: WatchOptions;
  private first = true;
  private closed = false;
  /** Lines not yet written: a burst of events goes out as one write (one TLS record, one syscall). */
  private pending: string[] = [];
  private flushScheduled = false;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(res: ServerResponse, opts: WatchOptions) {
    this.res = res;
    this.opts = opts;
    this.filter = opts.filter;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    // Clients wait for the headers before they consider the watch open.
    res.flushHeaders();
    res.on('close', () => this.finish());
    const timeout = setTimeout(() => this.end(), opts.timeoutMs);
    timeout.unref();
    this.timers.push(timeout);
    if (opts.bookmarks) {
      const every = setInterval(() => this.bookmark(), opts.bookmarkIntervalMs);
      every.unref();
      this.timers.push(every);
      if (opts.timeoutMs > 2500) {
        // The real cacher sends one shortly before the deadline, so the client resumes from a fresh version.
        const last = setTimeout(() => this.bookmark(), opts.timeoutMs - 2000);
        last.unref();
        this.timers.push(last);
      }
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private write(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    if (this.pending.length >= 256) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.closed || this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.res.write(chunk);
    if (this.res.writableLength > (this.opts.maxBufferedBytes ?? 64 * 1024 * 1024)) this.reset();
  }

  send(type: WatchEventType, obj: KubeObject): void {
    const body = this.opts.encode(obj, this.first);
    this.first = false;
    this.write(`{"type":"${type}","object":${body}}\n`);
  }

  /** Applies one store change, turning selector transitions into ADDED/DELETED as the watch cache does. */
  deliver(e: HistoryEntry): void {
    if (this.closed || e.gk !== this.filter.gk) return;
    if (this.filter.namespace !== undefined && e.namespace !== this.filter.namespace) return;
    const now = this.filter.match(e.object);
    if (e.type === 'ADDED') {
      if (now) this.send('ADDED', e.object);
      return;
    }
    if (e.type === 'DELETED') {
      if (now) this.send('DELETED', e.object);
      return;
    }
    const before = e.previous ? this.filter.match(e.previous) : false;
    if (now && before) this.send('MODIFIED', e.object);
    else if (now) this.send('ADDED', e.object);
    else if (before) {
      // Leaving the filter: the previous state, at the new resourceVersion.
      const prev = e.previous!;
      this.send('DELETED', { ...prev, metadata: { ...prev.metadata, resourceVersion: e.object.metadata.resourceVersion } });
    }
  }

  bookmark(annotations?: Record<string, string>): void {
    const metadata: Record<string, unknown> = { resourceVersion: this.opts.currentRv() };
    if (annotations) metadata.annotations = annotations;
    this.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: this.opts.kind, apiVersion: this.opts.apiVersion, metadata } })}\n`);
  }

  /** An ERROR event (e.g. 410 Expired), then the end of the stream: clients relist only after the end. */
  error(status: Status): void {
    this.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    this.end();
  }

  /** Clean end (terminating chunk): clients re-watch from their last resourceVersion. */
  end(): void {
    if (this.closed) return;
    this.flush();
    this.res.end();
    this.finish();
  }

  /** Abrupt end (TCP reset): what a crashed server or a broken network looks like. */
  reset(): void {
    if (this.closed) return;
    this.res.socket?.destroy();
    this.res.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.opts.onClose();
  }
}

/** Encodes an object as is (frozen objects hit the encoding cache). */
export function plainEncoder(rewrite: (obj: KubeObject) => KubeObject): (obj: KubeObject) => string {
  return (obj) => encodeObject(rewrite(obj));
}
