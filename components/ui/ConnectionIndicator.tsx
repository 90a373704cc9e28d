'use client';

import { describeConnection } from '../live/connection-label.ts';
import type { ConnectionTone } from '../live/connection-label.ts';
import { useConnection, useLiveRows, useNow } from '../live/LiveProvider.tsx';

const DOT: Record<ConnectionTone, string> = {
  ok: 'bg-emerald-500',
  wait: 'bg-slate-400 animate-pulse',
  warn: 'bg-amber-500 animate-pulse',
  bad: 'bg-red-500',
};

/** Live / reconnecting / stale since …: the table never goes silently stale. */
export function ConnectionIndicator() {
  const { state, hasSnapshot } = useConnection();
  const { clusters } = useLiveRows();
  const now = useNow(1000);
  if (!state) return <span className="w-40" aria-hidden="true" />;
  const d = describeConnection(state, now, hasSnapshot, clusters);
  return (
    <span
      role="status"
      aria-live="polite"
      data-testid="connection"
      data-tone={d.tone}
      title={d.detail}
      className="inline-flex min-w-40 items-center gap-2 rounded-md border border-slate-200 px-2 py-1 text-xs text-slate-700 dark:border-slate-700 dark:text-slate-300"
    >
      <span className={`h-2 w-2 shrink-0 rounded-full ${DOT[d.tone]}`} aria-hidden="true" />
      <span>{d.label}</span>
    </span>
  );
}
