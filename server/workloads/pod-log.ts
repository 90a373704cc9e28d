/**
 * A container's log as a web stream, read through the API server's `pods/log` with the cluster's
 * credentials. The answer's status is known before the stream is handed out, so a container that is
 * still waiting or has no previous instance is a clear error (the API server's own words), not an
 * empty log. Follows are bounded in number and end when the client goes away.
 */
import { logPath, type ClusterReader, type LogQuery } from './pod-inspect.ts';

/** Logs streamed at once, at most (each holds an API server connection). */
export const MAX_LOG_STREAMS = 32;
let open = 0;

export type OpenedLog = { ok: true; stream: ReadableStream<Uint8Array> } | { ok: false; status: number; code: string; message: string };

function statusOf(e: unknown): { status: number; message: string } {
  const err = e as { status?: unknown; message?: unknown };
  const status = typeof err.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 502;
  return { status, message: typeof err.message === 'string' ? err.message : String(e) };
}

export function openLogStreams(): number {
  return open;
}

export async function openLog(reader: ClusterReader, namespace: string, name: string, q: LogQuery, clientSignal: AbortSignal): Promise<OpenedLog> {
  if (open >= MAX_LOG_STREAMS) return { ok: false, status: 429, code: 'too_many_streams', message: `${MAX_LOG_STREAMS} logs are being streamed already; close one and retry` };
  open++;
  const upstream = new AbortController();
  const abort = () => upstream.abort();
  clientSignal.addEventListener('abort', abort, { once: true });
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const early: Uint8Array[] = [];
  let closed = false;
  const release = () => {
    if (closed) return;
    closed = true;
    open--;
    clientSignal.removeEventListener('abort', abort);
  };
  let opened!: () => void;
  const openedP = new Promise<void>((r) => (opened = r));
  const done = reader
    .streamText(
      logPath(namespace, name, q),
      (text) => {
        const bytes = encoder.encode(text);
        if (controller) controller.enqueue(bytes);
        else early.push(bytes);
      },
      upstream.signal,
      opened,
    )
    .then(
      () => ({ error: null as unknown }),
      (error: unknown) => ({ error }),
    );
  const first = await Promise.race([openedP.then(() => 'open' as const), done]);
  if (first !== 'open' && first.error) {
    release();
    const s = statusOf(first.error);
    return { ok: false, status: s.status, code: s.status === 502 ? 'cluster_error' : 'log_unavailable', message: s.message };
  }
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      for (const b of early) c.enqueue(b);
      early.length = 0;
      void done.then(({ error }) => {
        release();
        try {
          if (error && !upstream.signal.aborted) c.error(error);
          else c.close();
        } catch {
          // The reader went away first.
        }
      });
    },
    cancel() {
      upstream.abort();
      release();
    },
  });
  return { ok: true, stream };
}
