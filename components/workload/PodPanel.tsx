'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useMemo, useRef, useState } from 'react';
import { stringify } from 'yaml';
import type { ContainerState, PodContainer, PodDetail } from '../../contract/index.ts';
import { humanAge } from '../../lib/format/duration.ts';
import { useNow } from '../live/LiveProvider.tsx';
import { EventList } from './EventList.tsx';
import { fetchApiJson } from './fetch-json.ts';
import { perPodText } from './detail-model.ts';
import { LogViewer } from './LogViewer.tsx';
import { WhyNote } from './WhyNote.tsx';

const TABS = ['Overview', 'Events', 'Logs', 'YAML'] as const;
type Tab = (typeof TABS)[number];

export function podApi(cluster: string, namespace: string, name: string, uid?: string): string {
  return `/api/pods/${encodeURIComponent(cluster)}/${encodeURIComponent(namespace || '_')}/${encodeURIComponent(name)}${uid ? `?uid=${encodeURIComponent(uid)}` : ''}`;
}

/** `Running since 5m`, `Terminated: OOMKilled (exit 137)`, `Waiting: CrashLoopBackOff`. */
export function stateText(s: ContainerState, now: number): string {
  if (s.state === 'running') return `Running${s.startedAt ? ` for ${humanAge(s.startedAt, now)}` : ''}`;
  if (s.state === 'waiting') return `Waiting: ${s.reason ?? 'unknown reason'}`;
  if (s.state === 'terminated') return `Terminated: ${s.reason ?? 'Terminated'}${s.exitCode !== null ? ` (exit ${s.exitCode})` : ''}`;
  return 'No status yet';
}

/** One pod: phase and why, conditions, containers (restarts, last termination), events, logs, YAML. */
export function PodPanel({ cluster, namespace, name, uid, onClose }: { cluster: string; namespace: string; name: string; uid?: string; onClose: () => void }) {
  const [tab, setTab] = useState<Tab>('Overview');
  const heading = useRef<HTMLHeadingElement>(null);
  const now = useNow(5_000);
  const q = useQuery({ queryKey: ['pod', cluster, namespace, name], queryFn: () => fetchApiJson<PodDetail>(podApi(cluster, namespace, name, uid)), refetchInterval: 5_000, retry: 1 });
  const d = q.data;
  const yamlText = useMemo(() => (d ? stringify(d.object, { lineWidth: 0 }) : ''), [d]);

  useEffect(() => heading.current?.focus(), [name]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <aside
      role="dialog"
      aria-labelledby="pod-panel-title"
      className="fixed inset-y-0 right-0 z-40 flex w-full max-w-[760px] flex-col border-l border-slate-300 bg-white shadow-2xl dark:border-slate-700 dark:bg-slate-950"
      data-testid="pod-panel"
    >
      <div className="flex items-center gap-2 border-b border-slate-200 px-4 py-2 dark:border-slate-800">
        <div className="min-w-0">
          <h2 id="pod-panel-title" ref={heading} tabIndex={-1} className="truncate font-mono text-sm font-semibold" title={name}>
            {name}
          </h2>
          <p className="text-xs text-slate-600 dark:text-slate-300">
            Pod · {namespace} · cluster {cluster}
            {d ? ` · ${d.phase}${d.ready ? ', ready' : ''}` : ''}
          </p>
        </div>
        <button type="button" onClick={onClose} className="ml-auto rounded border border-slate-300 px-2 py-0.5 text-sm hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800" aria-label="Close the pod panel">
          ✕
        </button>
      </div>
      <div role="tablist" aria-label="Pod details" className="flex gap-1 border-b border-slate-200 px-4 dark:border-slate-800">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            aria-controls={`pod-tab-${t}`}
            onClick={() => setTab(t)}
            className={`-mb-px border-b-2 px-2 py-1.5 text-sm ${tab === t ? 'border-sky-700 font-semibold text-sky-800 dark:border-sky-400 dark:text-sky-300' : 'border-transparent text-slate-700 hover:text-slate-950 dark:text-slate-300 dark:hover:text-white'}`}
            data-testid={`pod-tab-${t.toLowerCase()}`}
          >
            {t}
            {t === 'Events' && d && d.events.events.some((e) => e.type === 'Warning') ? ' ⚠' : ''}
          </button>
        ))}
      </div>
      <div id={`pod-tab-${tab}`} role="tabpanel" className="flex min-h-0 flex-1 flex-col overflow-auto p-4 text-sm">
        {q.isPending && <p>Loading the pod…</p>}
        {q.isError && !d && <p className="text-red-700 dark:text-red-300">Could not load the pod: {q.error.message}</p>}
        {q.isError && d && <p className="mb-2 text-amber-800 dark:text-amber-200">Could not refresh: {q.error.message}. Showing what was last read.</p>}
        {d && tab === 'Overview' && <Overview d={d} now={now} />}
        {d && tab === 'Events' && (
          <>
            <p className="mb-2 text-xs text-slate-600 dark:text-slate-300">Events of this pod, newest first (read {humanAge(d.events.at, now)} ago).</p>
            <EventList list={d.events} now={now} showObject={false} empty="No events for this pod (the API server keeps events for about an hour)." />
          </>
        )}
        {d && tab === 'Logs' && <LogViewer cluster={cluster} namespace={namespace} pod={name} uid={d.uid} containers={d.containers} live={d.phase !== 'Succeeded' && d.phase !== 'Failed'} initialContainer={d.why?.container} />}
        {d && tab === 'YAML' && (
          <pre tabIndex={0} aria-label={`YAML of pod ${name}`} className="overflow-auto rounded bg-slate-50 p-3 text-xs dark:bg-slate-900" data-testid="pod-yaml">
            {yamlText}
          </pre>
        )}
      </div>
    </aside>
  );
}

function Overview({ d, now }: { d: PodDetail; now: number }) {
  const dt = 'text-slate-600 dark:text-slate-300';
  return (
    <div className="flex flex-col gap-3">
      {d.why && <WhyNote why={d.why} />}
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className={dt}>Phase</dt>
        <dd data-testid="pod-phase">{d.phase}{d.ready ? ' · ready' : ' · not ready'}</dd>
        <dt className={dt}>Node</dt>
        <dd>
          {d.node ? (
            <Link href={`/nodes?node=${encodeURIComponent(d.node)}&cluster=${encodeURIComponent(d.cluster)}`} className="text-sky-800 underline dark:text-sky-300">
              {d.node}
            </Link>
          ) : (
            'not scheduled'
          )}
        </dd>
        <dt className={dt}>GPUs</dt>
        <dd>{perPodText(d.gpus)}</dd>
        <dt className={dt}>Workload</dt>
        <dd>{d.workload ? `${d.workload.kind} ${d.workload.name}` : 'none (counted as its own row)'}</dd>
        <dt className={dt}>Started</dt>
        <dd>{d.startedAt ? `${humanAge(d.startedAt, now)} ago` : 'not yet'}</dd>
        <dt className={dt}>IP · QoS</dt>
        <dd>
          {d.podIP ?? '—'} · {d.qosClass ?? '—'}
        </dd>
      </dl>
      <section aria-labelledby="pod-containers">
        <h3 id="pod-containers" className="mb-1 font-semibold">
          Containers
        </h3>
        <table className="w-full text-xs" data-testid="pod-containers">
          <thead>
            <HeaderRow names={['Name', 'State', 'Last termination', 'Restarts', 'GPUs']} right={['Restarts']} />
          </thead>
          <tbody>
            {d.containers.map((c) => (
              <ContainerRow key={`${c.init}-${c.name}`} c={c} now={now} />
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="pod-conditions">
        <h3 id="pod-conditions" className="mb-1 font-semibold">
          Conditions
        </h3>
        {d.conditions.length === 0 ? (
          <p className={dt}>None reported yet.</p>
        ) : (
          <table className="w-full text-xs" data-testid="pod-conditions">
            <thead>
              <HeaderRow names={['Type', 'Status', 'Reason and message']} />
            </thead>
            <tbody>
              {d.conditions.map((c) => (
                <tr key={c.type} className="border-t border-slate-100 align-top dark:border-slate-800">
                  <td className="whitespace-nowrap px-1 py-0.5">{c.type}</td>
                  <td className="whitespace-nowrap px-1 py-0.5">{c.status}</td>
                  <td className="px-1 py-0.5">
                    {c.reason ?? '—'}
                    {c.message && <div className="break-words text-slate-700 dark:text-slate-300">{c.message}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

/** A table's header: names that never wrap (a narrow column must not read "STATU S"). */
function HeaderRow({ names, right = [] }: { names: readonly string[]; right?: readonly string[] }) {
  return (
    <tr className="text-left text-slate-600 dark:text-slate-300">
      {names.map((n) => (
        <th key={n} className={`whitespace-nowrap px-1 py-0.5 font-medium ${right.includes(n) ? 'text-right' : ''}`}>
          {n}
        </th>
      ))}
    </tr>
  );
}

function ContainerRow({ c, now }: { c: PodContainer; now: number }) {
  const bad = c.current.state === 'waiting' || (c.current.state === 'terminated' && c.current.exitCode !== 0);
  return (
    <tr className="border-t border-slate-100 align-top dark:border-slate-800" data-testid="pod-container">
      <td className="px-1 py-0.5 font-mono">
        {c.name}
        {c.init ? ' (init)' : ''}
        <div className="break-all text-[10px] text-slate-600 dark:text-slate-300">{c.image}</div>
      </td>
      <td className={`px-1 py-0.5 ${bad ? 'font-semibold text-red-800 dark:text-red-300' : ''}`}>
        {stateText(c.current, now)}
        {c.current.message && <div className="break-words font-normal text-slate-700 dark:text-slate-300">{c.current.message}</div>}
      </td>
      <td className="px-1 py-0.5" data-testid="pod-container-last">
        {c.last ? `${c.last.reason ?? 'Terminated'}${c.last.exitCode !== null ? ` (exit ${c.last.exitCode})` : ''}${c.last.finishedAt ? `, ${humanAge(c.last.finishedAt, now)} ago` : ''}` : '—'}
      </td>
      <td className={`px-1 py-0.5 text-right tabular-nums ${c.restarts > 0 ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}`}>{c.restarts}</td>
      <td className="px-1 py-0.5">{perPodText(c.gpus)}</td>
    </tr>
  );
}
