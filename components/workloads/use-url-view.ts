'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { historyAction, type LastWrite } from './history-entry.ts';
import { rememberTableQuery } from './last-view.ts';
import { encodeQuery as encodeView, parseQuery, type RowQuery as ViewState } from '../../lib/rows/index.ts';

/** The dashboard shows what it can read of a URL: unreadable parameters take their defaults. */
const decodeView = (qs: string): ViewState => parseQuery(qs).query;

/**
 * The view lives in the URL. React state mirrors it so typing stays immediate. Every change of
 * filters or sort is a history entry, so that Back undoes it instead of leaving the app; typing in
 * a box (`burst`) rewrites its entry while the keystrokes keep coming (history-entry.ts), so one
 * typed word is one entry. Back and forward between those entries are read again.
 *
 * The browser's own pushState is used, not the router's: the page needs no server round trip to
 * filter, and Next.js keeps its router in step with pushState and replaceState.
 */
export function useUrlView(initialQuery: string): [ViewState, (v: ViewState, burst?: string) => void] {
  const [view, setViewState] = useState<ViewState>(() => decodeView(initialQuery));
  const lastWrite = useRef<LastWrite | null>(null);
  useEffect(() => {
    // A client-side navigation back to this page may render it from a cached tree built for an
    // older query; the address bar is the truth.
    const actual = window.location.search.slice(1);
    if (encodeView(decodeView(actual)) !== encodeView(decodeView(initialQuery))) setViewState(decodeView(actual));
    rememberTableQuery(encodeView(decodeView(actual)));
    // Only on mount: later changes come from setView and popstate.
  }, []);
  useEffect(() => {
    const onPop = () => {
      const v = decodeView(window.location.search.slice(1));
      // After Back, the next keystroke starts a new entry rather than rewriting the one returned to.
      lastWrite.current = null;
      setViewState(v);
      rememberTableQuery(encodeView(v));
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const setView = useCallback((v: ViewState, burst?: string) => {
    setViewState(v);
    const qs = encodeView(v);
    rememberTableQuery(qs);
    const url = qs ? `${window.location.pathname}?${qs}` : window.location.pathname;
    if (url === window.location.pathname + window.location.search) return;
    const now = Date.now();
    const action = historyAction(lastWrite.current, burst ?? null, now);
    lastWrite.current = { burst: burst ?? null, at: now };
    // No state of our own: Next.js copies its router state into the entry and follows the new URL
    // (given its own state, it would take the call for one of its own and not follow).
    if (action === 'push') window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
  }, []);
  return [view, setView];
}
