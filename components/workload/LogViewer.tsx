'use client';

import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { PodContainer } from '../../contract/index.ts';
import { EMPTY_LOG, allLines, appendChunk, type LogLines } from './log-buffer.ts';

/** Lines the viewer keeps (the newest); older ones are dropped and counted. */
const MAX_LINES = 5000;
const TAILS = [{ label: 'last 100', value: '100' }, { label: 'last 1,000', value: '1000' }, { label: 'last 10,000', value: '10000' }];

type StreamState = { kind: 'loading' } | { kind: 'streaming' } | { kind: 'ended' } | { kind: 'error'; message: string };

export interface LogViewerProps {
  cluster: string;
  namespace: string;
  pod: string;
  uid: string;
  containers: readonly PodContainer[];
  /** Whether the pod can still write (a finished pod's log is complete: nothing to follow). */
  live: boolean;
  /** The container to show first (the one the pod's "why" is about). */
  initialContainer?: string;
}

function logUrl(p: LogViewerProps, container: string, previous: boolean, tail: string, follow: boolean, timestamps: boolean): string {
  const q = new URLSearchParams({ container, tailLines: tail, uid: p.uid });
  if (previous) q.set('previous', 'true');
  if (follow) q.set('follow', 'true');
  if (timestamps) q.set('timestamps', 'true');
  return `/api/pods/${encodeURIComponent(p.cluster)}/${encodeURIComponent(p.namespace || '_')}/${encodeURIComponent(p.pod)}/log?${q}`;
}

/** A container's log: container picker, previous instance, tail, follow (live) and timestamps. */
export function LogViewer(props: LogViewerProps) {
  const { containers, live } = props;
  const first = props.initialContainer && containers.some((c) => c.name === props.initialContainer) ? props.initialContainer : (containers.find((c) => !c.init)?.name ?? containers[0]?.name ?? '');
  const [container, setContainer] = useState(first);
  const [previous, setPrevious] = useState(false);
  const [tail, setTail] = useState('1000');
  const [follow, setFollow] = useState(live);
  const [timestamps, setTimestamps] = useState(false);
  const [log, setLog] = useState<LogLines>(EMPTY_LOG);
  const [state, setState] = useState<StreamState>({ kind: 'loading' });
  const box = useRef<HTMLPreElement>(null);
  const stick = useRef(true);
  const current = containers.find((c) => c.name === container);
  const hasPrevious = (current?.restarts ?? 0) > 0 || current?.last != null;
  const following = follow && live && !previous;
  const url = container ? logUrl(props, container, previous, tail, following, timestamps) : null;

  useEffect(() => {
    if (!url) return;
    const ac = new AbortController();
    let pending = '';
    let frame: number | null = null;
    const flush = () => {
      frame = null;
      const chunk = pending;
      pending = '';
      setLog((b) => appendChunk(b, chunk, MAX_LINES));
    };
    setLog(EMPTY_LOG);
    setState({ kind: 'loading' });
    stick.current = true;
    (async () => {
      const res = await fetch(url, { signal: ac.signal, cache: 'no-store' });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        setState({ kind: 'error', message: body?.error?.message ?? `HTTP ${res.status}` });
        return;
      }
      setState({ kind: 'streaming' });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // Many chunks a frame (a burst of lines) become one update.
        pending += value;
        frame ??= requestAnimationFrame(flush);
      }
      if (frame !== null) cancelAnimationFrame(frame);
      flush();
      setState({ kind: 'ended' });
    })().catch((e: unknown) => {
      if (!ac.signal.aborted) setState({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    });
    return () => {
      ac.abort();
      if (frame !== null) cancelAnimationFrame(frame);
    };
  }, [url]);

  // New lines keep the view at the bottom unless the reader scrolled up to read.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [log]);

  const lines = allLines(log);
  const status =
    state.kind === 'error'
      ? state.message
      : state.kind === 'loading'
        ? 'Loading…'
        : `${lines.length.toLocaleString('en-US')} line${lines.length === 1 ? '' : 's'}${log.dropped ? ` (${log.dropped.toLocaleString('en-US')} older dropped)` : ''}${state.kind === 'streaming' && following ? ' · following' : state.kind === 'ended' ? ' · end of log' : ''}`;
  const control = 'rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs dark:border-slate-600 dark:bg-slate-900';
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2" data-testid="log-viewer">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <label className="flex items-center gap-1">
          Container
          <select className={control} value={container} onChange={(e) => { setContainer(e.target.value); setPrevious(false); }} data-testid="log-container">
            {containers.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
                {c.init ? ' (init)' : ''}
                {c.restarts ? ` · ${c.restarts} restarts` : ''}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1" title={hasPrevious ? 'The log of the container before its last restart' : 'This container has not restarted'}>
          <input type="checkbox" checked={previous} disabled={!hasPrevious} onChange={(e) => setPrevious(e.target.checked)} data-testid="log-previous" />
          Previous
        </label>
        <label className="flex items-center gap-1">
          Tail
          <select className={control} value={tail} onChange={(e) => setTail(e.target.value)}>
            {TAILS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1" title={live ? 'Keep reading new lines as they are written' : 'The pod has finished: its log is complete'}>
          <input type="checkbox" checked={following} disabled={!live || previous} onChange={(e) => setFollow(e.target.checked)} data-testid="log-follow" />
          Follow
        </label>
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={timestamps} onChange={(e) => setTimestamps(e.target.checked)} />
          Timestamps
        </label>
        <span role="status" className={`ml-auto ${state.kind === 'error' ? 'text-red-700 dark:text-red-300' : 'text-slate-600 dark:text-slate-300'}`} data-testid="log-status">
          {status}
        </span>
      </div>
      <pre
        ref={box}
        tabIndex={0}
        aria-label={`Log of container ${container} of pod ${props.pod}${previous ? ' (previous instance)' : ''}`}
        className="min-h-[240px] flex-1 overflow-auto whitespace-pre rounded bg-slate-950 p-2 font-mono text-[11px] leading-4 text-slate-100"
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
        }}
        data-testid="log-text"
      >
        {lines.join('\n')}
      </pre>
    </div>
  );
}
