'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { EventList as EventListPayload } from '../../contract/index.ts';
import { humanAge } from '../../lib/format/duration.ts';
import { useNow } from '../live/LiveProvider.tsx';
import { EventList } from './EventList.tsx';
import { fetchApiJson } from './fetch-json.ts';
import { Panel } from './Panels.tsx';

/** Re-read every 10 s: events are read on demand (the server watches none), so the age is shown. */
export const EVENTS_REFRESH_MS = 10_000;

/** The workload's event timeline: its root and everything it owns, newest first, warnings highlighted. */
export function EventsPanel({ api }: { api: string }) {
  const now = useNow(5_000);
  const [warningsOnly, setWarningsOnly] = useState(false);
  const q = useQuery({ queryKey: ['events', api], queryFn: () => fetchApiJson<EventListPayload>(`${api}/events`), refetchInterval: EVENTS_REFRESH_MS, retry: 1 });
  const list = q.data;
  const warnings = list?.events.filter((e) => e.type === 'Warning').length ?? 0;
  const shown = list && warningsOnly ? { ...list, events: list.events.filter((e) => e.type === 'Warning') } : list;
  return (
    <Panel
      title={`Events${list ? ` (${list.events.length}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''})` : ''}`}
      id="panel-events"
      actions={
        <span className="flex items-center gap-3 text-xs text-slate-600 dark:text-slate-300">
          {list && <span data-testid="events-age">read {humanAge(list.at, now)} ago</span>}
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={warningsOnly} onChange={(e) => setWarningsOnly(e.target.checked)} data-testid="events-warnings-only" />
            Warnings only
          </label>
        </span>
      }
    >
      {q.isPending && <p>Loading events…</p>}
      {q.isError && <p className="text-red-700 dark:text-red-300">Could not read the events: {q.error.message}{list ? ' (showing the last read)' : ''}</p>}
      {shown && (
        <div className="max-h-[420px] overflow-auto" tabIndex={0} aria-label="Events of this workload">
          <EventList list={shown} now={now} showObject empty={warningsOnly ? 'No warnings.' : 'No events for this workload or anything it owns (the API server keeps events for about an hour).'} />
        </div>
      )}
    </Panel>
  );
}
