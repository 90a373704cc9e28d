'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { DefinitionItem, WorkloadPage } from '../../contract/index.ts';
import { fetchApiJson } from '../workload/fetch-json.ts';

const link = 'text-sky-700 hover:underline dark:text-sky-400';

/** Where a definition can start from: a copy of one, a draft from a workload no definition describes, or a blank one. */
export function StartChooser() {
  const defs = useQuery({ queryKey: ['definitions'], queryFn: () => fetchApiJson<DefinitionItem[]>('/api/definitions') });
  const undescribed = useQuery({ queryKey: ['undescribed'], queryFn: () => fetchApiJson<WorkloadPage>('/api/workloads?definition=none&limit=50&sort=name') });
  const list = defs.data ?? [];
  return (
    <section aria-label="Start from" className="grid gap-3 md:grid-cols-3" data-testid="studio-start">
      <div className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
        <h2 className="mb-1 font-semibold">Draft from a workload</h2>
        <p className="mb-1 text-xs text-slate-600 dark:text-slate-400">Workloads no definition describes: the studio proposes one from what they own.</p>
        {undescribed.data?.rows.length === 0 && <p className="text-xs">Every workload has a definition.</p>}
        <ul className="max-h-48 overflow-auto">
          {undescribed.data?.rows.map((r) => (
            <li key={r.id}>
              <Link className={link} href={`/studio?draft=${encodeURIComponent(r.id)}`}>
                {r.kind} {r.namespace ? `${r.namespace}/` : ''}{r.name}
              </Link>{' '}
              <span className="text-xs text-slate-500 dark:text-slate-400">({r.cluster})</span>
            </li>
          ))}
        </ul>
      </div>
      <div className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
        <h2 className="mb-1 font-semibold">Edit a copy</h2>
        <ul className="max-h-48 overflow-auto">
          {list.map((d) => (
            <li key={`${d.source}/${d.cluster ?? ''}/${d.name}`}>
              <Link className={link} href={`/studio?${new URLSearchParams({ definition: d.name, source: d.source, ...(d.cluster ? { cluster: d.cluster } : {}) })}`}>
                {d.name}
              </Link>{' '}
              <span className="text-xs text-slate-500 dark:text-slate-400">({d.source}{d.cluster ? ` ${d.cluster}` : ''})</span>
            </li>
          ))}
        </ul>
      </div>
      <div className="rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
        <h2 className="mb-1 font-semibold">Start blank</h2>
        <Link className={link} href="/studio?blank=1">A blank definition</Link>
      </div>
    </section>
  );
}
