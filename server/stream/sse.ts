/**
 * SSE fan-out of row deltas to browsers (protocol in ./protocol.ts): per-client filters applied on
 * the server, resume by `Last-Event-ID` when the deltas are still kept, heartbeats, cleanup on abort.
 */
import { rowMatcher, type RowQuery } from '../../lib/rows/index.ts';
import type { RowDelta, WorkloadRow } from '../workloads/index.ts';
import type { LiveWorkloads } from '../workloads/live.ts';
import { ALL_ROWS, type RowScope } from '../workloads/row-access.ts';
import { instruments } from '../metrics/index.ts';
import { HEARTBEAT_MS, type SnapshotEvent } from './protocol.ts';

/** How often a shared-mode stream asks again what its user may see (the reviews are cached as long). */
export const SCOPE_REFRESH_MS = 30_000;
/** A row in a namespace the scope has not decided on is held back this long, then the scope is asked again. */
const UNKNOWN_ROW_DELAY_MS = 300;

/** What a shared-mode client may see, and how to ask again (permissions change, namespaces appear). */
export interface ScopeSource {
  initial: RowScope;
  refresh(): Promise<RowScope>;
}

/**
 * Frames a client may leave unread before it is dropped. A stalled browser tab must not hold the
 * server's memory without bound; dropped, it reconnects with its last event id and resumes (or gets
 * a snapshot), so nothing is lost but the backlog it could not take.
 */
export const MAX_BACKLOG_FRAMES = 4096;

const encoder = new TextEncoder();

function frame(event: string, data: unknown, id?: number): Uint8Array {
  return encoder.encode(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Deltas as one filtered client sees them: rows leaving its filter become removals. */
export function filterDeltas(deltas: RowDelta[], query: RowQuery, visible: Set<string>, now = Date.now(), scope: RowScope = ALL_ROWS): RowDelta[] {
  const m = rowMatcher(query, now);
  const out: RowDelta[] = [];
  for (const d of deltas) {
    if (d.op === 'upsert' && scope.test(d.row) && m.test(d.row)) {
      visible.add(d.id);
      out.push(d);
    } else if (visible.has(d.id)) {
      visible.delete(d.id);
      out.push({ seq: d.seq, op: 'remove', id: d.id });
    }
  }
  return out;
}

/**
 * Missed deltas for a resuming client. Its earlier visibility is unknown, so every row that does not
 * pass its filter becomes a removal (a removal of a row it never had is harmless).
 */
export function resumeDeltas(missed: RowDelta[], query: RowQuery, now = Date.now(), scope: RowScope = ALL_ROWS): RowDelta[] {
  const m = rowMatcher(query, now);
  return missed.map((d) => (d.op === 'upsert' && scope.test(d.row) && m.test(d.row) ? d : { seq: d.seq, op: 'remove', id: d.id }));
}

/**
 * `access` (shared mode) limits the stream to the rows its user may see; when what they may see
 * changes — a namespace appears, a binding is added or removed — the client gets a fresh snapshot.
 */
export function streamResponse(live: LiveWorkloads, query: RowQuery, lastEventId: number | null, signal: AbortSignal, access?: ScopeSource, maxBacklog = MAX_BACKLOG_FRAMES): Response {
  const index = live.index;
  let cleanup = () => {};
  const metrics = instruments();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const visible = new Set<string>();
      let scope = access?.initial ?? ALL_ROWS;
      let closed = false;
      metrics.streamClients(1);
      const send = (chunk: Uint8Array) => {
        if (closed) return;
        // With a high-water mark of 0, -desiredSize is the number of frames the client has not read.
        const backlog = -(controller.desiredSize ?? 0);
        if (backlog >= maxBacklog) {
          metrics.streamFramesDropped(backlog + 1);
          close(new Error(`the client left ${backlog} frames unread`));
          return;
        }
        try {
          controller.enqueue(chunk);
        } catch {
          close();
        }
      };
      const snapshot = () => {
        visible.clear();
        const m = rowMatcher(query, Date.now());
        const rows: WorkloadRow[] = index.allRows().filter((r) => scope.test(r) && m.test(r));
        for (const r of rows) visible.add(r.id);
        const ev: SnapshotEvent = { seq: index.currentSeq, rows, clusters: live.clusters() };
        send(frame('snapshot', ev, index.currentSeq));
      };
      // Resume when we still hold every delta since the client's last one; else start over.
      const missed = lastEventId !== null ? index.deltasSince(lastEventId) : null;
      if (missed === null) snapshot();
      else {
        const m = rowMatcher(query, Date.now());
        for (const r of index.allRows()) if (scope.test(r) && m.test(r)) visible.add(r.id);
        const own = resumeDeltas(missed, query, Date.now(), scope);
        if (own.length > 0) send(frame('delta', own, missed[missed.length - 1].seq));
        send(frame('clusters', live.clusters()));
      }
      // Shared mode: ask again now and then, and soon after a row the scope has not decided on.
      let rescoping: ReturnType<typeof setTimeout> | null = null;
      const rescope = (delay: number) => {
        if (!access || closed || rescoping) return;
        rescoping = setTimeout(() => {
          void access.refresh().then((next) => {
            rescoping = null;
            if (closed) return;
            const changed = next.key !== scope.key;
            scope = next;
            if (changed) snapshot();
            rescope(SCOPE_REFRESH_MS);
          }, () => {
            rescoping = null;
            rescope(SCOPE_REFRESH_MS);
          });
        }, delay);
      };
      rescope(SCOPE_REFRESH_MS);
      const unsubscribe = index.subscribe((deltas) => {
        const own = filterDeltas(deltas, query, visible, Date.now(), scope);
        if (own.length > 0) send(frame('delta', own, deltas[deltas.length - 1].seq));
        if (access && deltas.some((d) => d.op === 'upsert' && !scope.knows(d.row))) {
          if (rescoping) clearTimeout(rescoping);
          rescoping = null;
          rescope(UNKNOWN_ROW_DELAY_MS);
        }
      });
      const unsubscribeClusters = live.subscribeClusters((clusters) => send(frame('clusters', clusters)));
      const heartbeat = setInterval(() => send(encoder.encode(`: ping ${Date.now()}\n\n`)), HEARTBEAT_MS);
      /** Ends the stream; with `failure` its backlog is discarded (the client sees the connection break and resumes). */
      function close(failure?: Error) {
        if (closed) return;
        closed = true;
        metrics.streamClients(-1);
        clearInterval(heartbeat);
        if (rescoping) clearTimeout(rescoping);
        unsubscribe();
        unsubscribeClusters();
        try {
          if (failure) controller.error(failure);
          else controller.close();
        } catch {
          // already closed by the client
        }
      }
      cleanup = () => close();
      signal.addEventListener('abort', () => close(), { once: true });
    },
    cancel() {
      cleanup();
    },
  }, new CountQueuingStrategy({ highWaterMark: 0 }));
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
