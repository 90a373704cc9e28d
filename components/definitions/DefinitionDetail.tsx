'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo } from 'react';
import { FlowGraph } from '../graph/FlowGraph.tsx';
import { definitionGraph } from './definition-graph.ts';
import { ErrorList, ValidBadge } from './DefinitionsList.tsx';
import { getJson } from './types.ts';
import type { DefinitionDetailItem } from './types.ts';

export function DefinitionDetail({ name, source, cluster }: { name: string; source: string | null; cluster: string | null }) {
  const params = new URLSearchParams();
  if (source) params.set('source', source);
  if (cluster) params.set('cluster', cluster);
  const url = `/api/definitions/${encodeURIComponent(name)}${params.size ? `?${params}` : ''}`;
  const q = useQuery({ queryKey: ['definition', name, source, cluster], queryFn: () => getJson<DefinitionDetailItem>(url) });
  const model = useMemo(() => (q.data ? definitionGraph(q.data.components) : null), [q.data]);
  const back = (
    <Link href="/definitions" className="text-sm text-sky-700 hover:underline dark:text-sky-400">
      ← Definitions
    </Link>
  );
  if (q.isPending)
    return (
      <div className="flex flex-col gap-3">
        {back}
        <p role="status" className="p-6 text-center text-slate-500 dark:text-slate-400">
          Loading definition {name}…
        </p>
      </div>
    );
  if (q.isError || !q.data || !model)
    return (
      <div className="flex flex-col gap-3">
        {back}
        <p role="alert" className="p-6 text-center text-red-700 dark:text-red-400">
          {(q.error as { status?: number } | null)?.status === 404 ? `There is no definition named ${name}.` : `Could not load definition ${name}: ${q.error?.message ?? ''}`}
        </p>
      </div>
    );
  const d = q.data;
  return (
    <div className="flex flex-col gap-3">
      {back}
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="font-mono text-xl font-semibold">{d.name}</h1>
        <ValidBadge d={d} />
        <span className="text-sm text-slate-500 dark:text-slate-400">
          {d.kind} ({d.apiVersion}) · {d.source === 'cluster' ? `from cluster ${d.cluster}` : 'catalog'} ·{' '}
          {d.workloads > 0 ? (
            <Link href={`/?kind=${encodeURIComponent(d.kind)}`} className="text-sky-700 underline hover:no-underline dark:text-sky-400">
              serves {d.workloads} workload{d.workloads === 1 ? '' : 's'}
            </Link>
          ) : (
            'serves no workload right now'
          )}
        </span>
      </header>
      {d.errors.length > 0 && <ErrorList errors={d.errors} />}
      <div className="grid gap-3 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <section aria-labelledby="def-components" className="rounded-lg border border-slate-200 dark:border-slate-800">
          <h2 id="def-components" className="border-b border-slate-200 px-3 py-2 text-sm font-semibold dark:border-slate-800">
            Components
          </h2>
          {d.components.length === 0 ? <p className="p-3 text-sm text-slate-500 dark:text-slate-400">No components could be read.</p> : <FlowGraph model={model} label={`Components of ${d.name}`} className="h-[420px] w-full" />}
        </section>
        <section aria-labelledby="def-yaml" className="rounded-lg border border-slate-200 dark:border-slate-800">
          <h2 id="def-yaml" className="border-b border-slate-200 px-3 py-2 text-sm font-semibold dark:border-slate-800">
            YAML
          </h2>
          {/* Focusable so that the keyboard can scroll it; named for screen readers. */}
          <pre className="max-h-[640px] overflow-auto p-3 text-xs focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500" tabIndex={0} aria-label={`YAML of ${d.name}`} data-testid="definition-yaml">
            {d.yaml}
          </pre>
        </section>
      </div>
    </div>
  );
}
