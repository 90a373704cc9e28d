'use client';

import type { EventItem, EventList as EventListPayload } from '../../contract/index.ts';
import { humanAge } from '../../lib/format/duration.ts';

/** Events newest first; warnings stand out (colour and a word, not colour alone). */
export function EventList({ list, now, showObject, empty }: { list: EventListPayload; now: number; showObject: boolean; empty: string }) {
  if (list.error) return <p className="text-red-700 dark:text-red-300" role="status">{list.error}</p>;
  if (list.events.length === 0) return <p className="text-slate-600 dark:text-slate-300">{empty}</p>;
  return (
    <>
      <ol className="flex flex-col gap-1" data-testid="event-list">
        {list.events.map((e, i) => (
          <EventEntry key={`${e.object.uid ?? e.object.name}-${e.reason}-${e.last ?? ''}-${i}`} e={e} now={now} showObject={showObject} />
        ))}
      </ol>
      {list.truncated > 0 && <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">{list.truncated.toLocaleString('en-US')} older events not shown.</p>}
    </>
  );
}

function EventEntry({ e, now, showObject }: { e: EventItem; now: number; showObject: boolean }) {
  const warning = e.type === 'Warning';
  return (
    <li
      className={`rounded border px-2 py-1 text-xs ${warning ? 'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100' : 'border-slate-200 dark:border-slate-800'}`}
      data-testid="event"
      data-type={e.type}
    >
      <div className="flex flex-wrap items-baseline gap-x-2">
        <span className={`font-semibold ${warning ? '' : 'text-slate-700 dark:text-slate-200'}`}>
          {warning ? 'Warning ' : ''}
          {e.reason}
        </span>
        {showObject && (
          <span className="font-mono text-slate-700 dark:text-slate-300">
            {e.object.kind} {e.object.name}
          </span>
        )}
        <span className="ml-auto whitespace-nowrap text-slate-600 dark:text-slate-300" title={e.last ?? ''}>
          {e.count > 1 ? `×${e.count} · ` : ''}
          {e.last ? `${humanAge(e.last, now)} ago` : 'time unknown'}
          {e.source ? ` · ${e.source}` : ''}
        </span>
      </div>
      <div className="whitespace-pre-wrap break-words">{e.message}</div>
    </li>
  );
}
