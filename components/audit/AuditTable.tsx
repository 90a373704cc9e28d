'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { AuditItem } from '../../contract/index.ts';
import { kindRef } from '../../lib/rows/identity.ts';
import { clockTime } from '../live/connection-label.ts';
import { fetchApiJson } from '../workload/fetch-json.ts';
import { workloadHref } from '../workloads/workload-href.ts';

const th = 'px-2 py-1 text-left text-xs font-medium uppercase text-slate-500 dark:text-slate-400';
const td = 'px-2 py-1 align-top';
const BAD = new Set(['refused', 'forbidden', 'disabled', 'conflict', 'invalid']);

/** Recent write attempts (accepted or refused), newest first: who, what, on which object, and what came of it. */
export function AuditTable() {
  const q = useQuery({ queryKey: ['audit'], queryFn: () => fetchApiJson<{ items: AuditItem[] }>('/api/audit'), refetchInterval: 10_000 });
  if (q.isError) return <p role="alert" className="text-sm">The audit log could not be read: {q.error.message}</p>;
  if (!q.data) return <p role="status" className="text-sm">Loading…</p>;
  const items = q.data.items;
  if (items.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="audit-empty">No actions yet. Every write from the dashboard or the API, accepted or refused, is listed here (and in the server&apos;s structured log, as <code>audit</code> records).</p>;
  return (
    <table className="w-full text-sm" data-testid="audit-table">
      <caption className="sr-only">Recent actions, newest first</caption>
      <thead>
        <tr>
          <th className={th}>Time</th>
          <th className={th}>Who</th>
          <th className={th}>Action</th>
          <th className={th}>Object</th>
          <th className={th}>Dry run</th>
          <th className={th}>Result</th>
        </tr>
      </thead>
      <tbody>
        {items.map((e, i) => (
          <tr key={`${e.at}-${i}`} className="border-t border-slate-100 dark:border-slate-800">
            <td className={`${td} tabular-nums`} title={e.at}>{clockTime(Date.parse(e.at))}</td>
            <td className={td}>
              {e.who} <span className="text-xs text-slate-500 dark:text-slate-400">({e.via})</span>
            </td>
            <td className={td}>
              {e.action}
              {e.summary && <div className="text-xs text-slate-600 dark:text-slate-400">{e.summary}</div>}
            </td>
            <td className={td}>
              <Link className="text-sky-700 hover:underline dark:text-sky-400" href={workloadHref({ cluster: e.cluster, namespace: e.object.namespace, kind: kindRef(e.object.kind, e.object.apiVersion), name: e.object.name })}>
                {e.object.kind} {e.object.namespace ? `${e.object.namespace}/` : ''}{e.object.name}
              </Link>
              <div className="text-xs text-slate-500 dark:text-slate-400">cluster {e.cluster}</div>
            </td>
            <td className={td}>{e.dryRun === 'none' ? 'no' : e.dryRun}</td>
            <td className={td}>
              <span className={BAD.has(e.result) ? 'font-medium text-rose-800 dark:text-rose-300' : 'font-medium text-emerald-800 dark:text-emerald-300'} data-testid="audit-result">{e.result}</span>
              <div className="text-xs text-slate-600 dark:text-slate-400">{e.message}</div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
