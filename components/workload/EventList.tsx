'use client';

import type { EventItem, EventList as EventListPayload } from '../../contract/index.ts';
import { humanAge } from '../../lib/format/duration.ts';
import { groupEvents, objectsText, type EventGroup } from '../../lib/events/group-events.ts';

/**
 * Events newest first; warnings stand out (colour and a word, not colour alone). With `showObject`
 * (a workload's timeline) the same reason and message from many objects is one entry: 2,000 pods
 * that cannot be scheduled read as one line, with the pods listed on demand.
 */
export function EventList({ list, now, showObject, empty }: { list: EventListPayload; now: number; showObject: boolean; empty: string }) {
  if (list.error) return <p className="text-red-700 dark:text-red-300" role="status">{list.error}</p>;
  if (list.events.length === 0) return <p className="text-slate-600 dark:text-slate-300">{empty}</p>;
  return (
    <>
      <ol className="flex flex-col gap-1" data-testid="event-list">
        {(showObject ? groupEvents(list.events) : list.events.map((e) => ({ newest: e, objects: [], count: e.count }))).map((g, i) => (
          <EventEntry key={`${g.newest.object.uid ?? g.newest.object.name}-${g.newest.reason}-${g.newest.last ?? ''}-${i}`} g={g} now={now} showObject={showObject} />
        ))}
      </ol>
      {list.truncated > 0 && <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">{list.truncated.toLocaleString('en-US')} older events not shown.</p>}
    </>
  );
}

function EventEntry({ g, now, showObject }: { g: EventGroup; now: number; showObject: boolean }) {
  const e: EventItem = g.newest;
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
          <span className="font-mono text-slate-700 dark:text-slate-300" data-testid="event-objects">
            {objectsText(g.objects)}
          </span>
        )}
        <span className="ml-auto whitespace-nowrap text-slate-600 dark:text-slate-300" title={e.last ?? ''}>
          {g.count > 1 ? `×${g.count} · ` : ''}
          {e.last ? `${humanAge(e.last, now)} ago` : 'time unknown'}
          {e.source ? ` · ${e.source}` : ''}
        </span>
      </div>
      <div className="whitespace-pre-wrap break-words">{e.message}</div>
      {showObject && g.objects.length > 1 && (
        <details className="mt-0.5">
          <summary className="cursor-pointer text-slate-700 underline dark:text-slate-300">Which {objectsText(g.objects).replace(/^\d+ /, '')}</summary>
          <p className="break-words font-mono">
            {g.objects.slice(0, 100).join(', ')}
            {g.objects.length > 100 ? `, … ${g.objects.length - 100} more` : ''}
          </p>
        </details>
      )}
    </li>
  );
}
