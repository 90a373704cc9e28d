/**
 * One list+watch of one resource across all namespaces (never per namespace or per workload).
 * - Lists in pages, then watches from the list's resourceVersion with bookmarks.
 * - A watch that ends is resumed from the last resourceVersion; 410 Gone (as an ERROR event or an
 *   HTTP answer) relists, and the consumer reconciles against the full list (deletes included).
 * - Errors back off exponentially with jitter, from a floor that also applies to Retry-After (a
 *   server saying "retry after 0" must not get a tight loop); the backoff is reset only once an
 *   attempt has succeeded (a list completed, a watch accepted). 403 is reported as forbidden and
 *   retried slowly; a watch that goes silent is restarted by a watchdog.
 * - `failingSince` says since when the resource has been failing (null while healthy), so that
 *   what is built from it can be shown as stale.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { logger, type Logger } from '../log/index.ts';
import { instruments, type WatchInstruments } from '../metrics/index.ts';
import { resourcePath } from './discovery.ts';
import { ApiError, getJson, streamLines } from './http.ts';
import { trimObject } from './trim.ts';
import type { ClusterObject, ServedResource, WatchEventType } from './types.ts';

export type ListWatchState = 'listing' | 'watching' | 'forbidden' | 'error' | 'stopped';

export interface ListWatchHandlers {
  onEvent(type: WatchEventType, obj: ClusterObject): void;
  /**
   * One page of a (re)list as it arrives, so the consumer can index while the rest is on its way;
   * `onList` still follows with the complete set.
   */
  onListPage?(objects: ClusterObject[]): void;
  /** The complete current set after a (re)list: objects not in it are gone. */
  onList(objects: ClusterObject[]): void;
  onState(state: ListWatchState, message: string | null): void;
}

export interface ListWatchOptions {
  pageSize?: number;
  /** Server-side watch timeout; the watch is then resumed. */
  watchTimeoutSeconds?: number;
  /** Restart a watch that delivered nothing (not even a bookmark) for this long. */
  inactivityMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  forbiddenRetryMs?: number;
  /** Per-object trimming on arrival (default: managed fields and last-applied annotations). */
  trim?: (o: ClusterObject) => ClusterObject;
  /** Where this list+watch logs (default: the cluster layer's logger, with the resource bound). */
  log?: Logger;
  /** The cluster's name, for the metrics (instruments.ts). */
  cluster?: string;
  /**
   * One namespace only (a namespaced resource). The server never does this; `wmap get -w` does for
   * a user who may read some namespaces only.
   */
  namespace?: string;
}

interface ListBody {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: ClusterObject[];
  kind?: string;
  apiVersion?: string;
}

export class ListWatch {
  private stopped = false;
  private abort: AbortController | null = null;
  private wake: (() => void) | null = null;
  private resourceVersion: string | null = null;
  private backoffMs: number;
  readonly resource: ServedResource;
  state: ListWatchState = 'listing';
  message: string | null = null;
  lastEventAt = 0;
  /** Completed (re)lists, for tests and diagnostics. */
  lists = 0;
  /** Time of the first failure since the last success; null while healthy. */
  failingSince: number | null = null;
  private readonly log: Logger;
  private readonly metrics: WatchInstruments;

  constructor(
    private readonly kc: KubeConfig,
    resource: ServedResource,
    private readonly handlers: ListWatchHandlers,
    private readonly opts: ListWatchOptions = {},
  ) {
    this.resource = resource;
    this.backoffMs = opts.minBackoffMs ?? 500;
    const name = resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
    this.log = (opts.log ?? logger('cluster')).child({ resource: name, version: resource.version });
    this.metrics = instruments().watch(opts.cluster ?? '', name);
  }

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    this.wake?.();
    this.setState('stopped', null);
  }

  /**
   * Hands data to the consumer. A consumer that throws is a bug on its side, not a failure of the
   * API server: it is logged, and the list or watch goes on (retrying would lose the same data again).
   */
  private deliver(what: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error({ err: e instanceof Error ? e.message : String(e), what }, 'the consumer failed on data from the API server');
    }
  }

  /** An attempt succeeded: healthy again, and the next failure backs off from the floor. */
  private succeeded(state: ListWatchState): void {
    this.backoffMs = this.opts.minBackoffMs ?? 500;
    const wasFailing = this.failingSince !== null;
    this.failingSince = null;
    if (wasFailing) this.log.info({}, 'recovered');
    // setState reports only changes; a recovery with the same state must still be reported.
    if (wasFailing && this.state === state) this.handlers.onState(state, null);
    this.setState(state, null);
  }

  private setState(state: ListWatchState, message: string | null): void {
    if (state === this.state && message === this.message) return;
    this.state = state;
    this.message = message;
    this.handlers.onState(state, message);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(t); this.wake = null; resolve(); };
    });
  }

  private trim(o: ClusterObject): ClusterObject {
    const t = this.opts.trim ?? trimObject;
    return t(o);
  }

  private async list(): Promise<void> {
    const items: ClusterObject[] = [];
    const started = Date.now();
    let rv = '';
    const limit = this.opts.pageSize ?? 500;
    const groupVersion = this.resource.group ? `${this.resource.group}/${this.resource.version}` : this.resource.version;
    const fetchPage = (cont: string | undefined) => {
      const q = new URLSearchParams({ limit: String(limit) });
      if (cont) q.set('continue', cont);
      this.abort = new AbortController();
      const page = getJson<ListBody>(this.kc, `${resourcePath(this.resource, this.opts.namespace)}?${q}`, this.abort.signal);
      // A page asked for ahead may fail after the loop has ended (stopped, or the consumer threw):
      // the failure is then nobody's to handle, and must not become an unhandled rejection.
      page.catch(() => {});
      return page;
    };
    let next: Promise<ListBody> | null = fetchPage(undefined);
    while (next && !this.stopped) {
      const page: ListBody = await next;
      const cont = page.metadata?.continue || undefined;
      rv = page.metadata?.resourceVersion ?? rv;
      // The next page is asked for before this one is handled, so the API server's work on it
      // overlaps ours on this one.
      next = cont && !this.stopped ? fetchPage(cont) : null;
      // List items carry no apiVersion/kind: restore them, the engine needs both.
      const pageItems = (page.items ?? []).map((it) => this.trim({ apiVersion: groupVersion, kind: this.resource.kind, ...it }));
      for (const it of pageItems) items.push(it);
      if (!this.stopped) this.deliver('list page', () => this.handlers.onListPage?.(pageItems));
    }
    if (this.stopped) return;
    this.resourceVersion = rv;
    this.lists++;
    this.lastEventAt = Date.now();
    this.metrics.listed((this.lastEventAt - started) / 1000, this.lists > 1);
    this.succeeded('listing');
    this.log.debug({ objects: items.length, ms: this.lastEventAt - started, resourceVersion: rv }, 'listed');
    this.deliver('list', () => this.handlers.onList(items));
  }

  private async watch(): Promise<void> {
    const q = new URLSearchParams({
      watch: '1',
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(this.opts.watchTimeoutSeconds ?? 240),
    });
    if (this.resourceVersion) q.set('resourceVersion', this.resourceVersion);
    const abort = new AbortController();
    this.abort = abort;
    const inactivity = this.opts.inactivityMs ?? 300_000;
    let timer = setTimeout(() => abort.abort(), inactivity);
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(), inactivity);
    };
    let gone = false;
    try {
      await streamLines(this.kc, `${resourcePath(this.resource, this.opts.namespace)}?${q}`, (line) => {
        touch();
        const ev = line as { type?: string; object?: ClusterObject & { code?: number; message?: string } };
        if (!ev || typeof ev !== 'object' || !ev.object) return;
        if (ev.type === 'BOOKMARK') {
          const rv = ev.object.metadata?.resourceVersion;
          if (rv) this.resourceVersion = rv;
          return;
        }
        if (ev.type === 'ERROR') {
          if (ev.object.code === 410) {
            gone = true;
            abort.abort();
            return;
          }
          throw new ApiError(ev.object.code ?? 500, 'WatchError', ev.object.message ?? 'watch error');
        }
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') return;
        const rv = ev.object.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        this.lastEventAt = Date.now();
        this.metrics.event();
        const obj = this.trim(ev.object);
        this.deliver('event', () => this.handlers.onEvent(ev.type as WatchEventType, obj));
      }, abort.signal, () => this.succeeded('watching'));
    } finally {
      clearTimeout(timer);
    }
    if (gone) {
      this.log.info({ resourceVersion: this.resourceVersion }, 'watch expired (410 Gone), relisting');
      this.metrics.failed(410);
      this.metrics.restarted('expired');
      this.resourceVersion = null;
    } else if (abort.signal.aborted && !this.stopped) {
      this.log.warn({ silentMs: inactivity }, 'watch silent, restarting it');
      this.metrics.restarted('silent');
    } else if (!this.stopped) {
      this.log.debug({ resourceVersion: this.resourceVersion }, 'watch ended, resuming');
      this.metrics.restarted('ended');
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.resourceVersion === null) {
          // While failing, the state stays 'error' until an attempt succeeds.
          if (this.failingSince === null) this.setState('listing', null);
          await this.list();
          if (this.stopped) return;
        }
        await this.watch();
      } catch (e) {
        if (this.stopped) return;
        const err = e instanceof ApiError ? e : new ApiError(0, 'Error', e instanceof Error ? e.message : String(e));
        this.metrics.failed(err.status);
        if (err.status === 410) {
          this.log.info({ resourceVersion: this.resourceVersion }, 'resource version expired (410 Gone), relisting');
          this.metrics.restarted('expired');
          this.resourceVersion = null;
          continue;
        }
        if (err.status === 403) {
          this.metrics.restarted('forbidden');
          if (this.state !== 'forbidden') this.log.warn({ status: 403, error: err.message }, 'forbidden: not listed or watched until access is granted');
          this.setState('forbidden', err.message);
          await this.sleep(this.opts.forbiddenRetryMs ?? 120_000);
          continue;
        }
        this.failingSince ??= Date.now();
        this.setState('error', err.message);
        // Retry-After is a minimum, never a reason to retry sooner than the backoff says.
        const floor = this.opts.minBackoffMs ?? 500;
        const wait = Math.max(this.backoffMs, (err.retryAfterSeconds ?? 0) * 1000);
        if (wait > this.backoffMs) this.metrics.retryAfterHonoured((wait - this.backoffMs) / 1000);
        this.metrics.restarted('error');
        this.log.warn({ status: err.status || null, error: err.message, retryInMs: Math.round(wait), listing: this.resourceVersion === null }, 'list or watch failed, backing off');
        this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs ?? 30_000);
        // Jitter so that many kinds do not retry in lockstep.
        await this.sleep(Math.max(floor, wait * (0.8 + Math.random() * 0.4)));
      }
    }
  }
}
