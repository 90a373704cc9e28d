'use client';

import { useCallback, useEffect, useState } from 'react';
import { rememberTableQuery } from './last-view.ts';
import { encodeQuery as encodeView, parseQuery, type RowQuery as ViewState } from '../../lib/rows/index.ts';

/** The dashboard shows what it can read of a URL: unreadable parameters take their defaults. */
const decodeView = (qs: string): ViewState => parseQuery(qs).query;

/**
 * The view lives in the URL. React state mirrors it so typing stays immediate; every change is
 * written back with replaceState (filters should not flood the back button), and back/forward
 * between views the user did navigate to are read again.
 */
export function useUrlView(initialQuery: string): [ViewState, (v: ViewState) => void] {
  const [view, setViewState] = useState<ViewState>(() => decodeView(initialQuery));
  useEffect(() => {
    // A client-side navigation back to this page may render it from a cached tree built for an
    // older query; the address bar is the truth.
    const actual = window.location.search.slice(1);
    if (encodeView(decodeView(actual)) !== encodeView(decodeView(initialQuery))) setViewState(decodeView(actual));
    rememberTableQuery(encodeView(decodeView(actual)));
    // Only on mount: later changes come from setView and popstate.
  }, []);
  useEffect(() => {
    const onPop = () => setViewState(decodeView(window.location.search.slice(1)));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const setView = useCallback((v: ViewState) => {
    setViewState(v);
    const qs = encodeView(v);
    rememberTableQuery(qs);
    const url = qs ? `${window.location.pathname}?${qs}` : window.location.pathname;
    if (url !== window.location.pathname + window.location.search) window.history.replaceState(null, '', url);
  }, []);
  return [view, setView];
}
