'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { definitionHref } from '../workloads/workload-href.ts';
import { getJson } from './types.ts';
import type { DefinitionError, DefinitionItem, ValidateResult } from './types.ts';

const th = 'px-3 py-2 text-left text-xs font-medium uppercase text-slate-500 dark:text-slate-400';
const td = 'px-3 py-2 align-top';

export function ErrorList({ errors }: { errors: DefinitionError[] }) {
  return (
    <ul className="flex flex-col gap-1" aria-label="Definition errors">
      {errors.map((e, i) => (
        <li key={i} className="rounded bg-red-50 px-2 py-1 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">
          {e.path && <div className="font-mono text-[11px]">{e.path}</div>}
          <span>{e.message}</span> <code className="opacity-70">({e.code})</code>
        </li>
      ))}
    </ul>
  );
}

const BADGE: Record<DefinitionItem['status'], string> = {
  valid: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  shadowed: 'bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300',
  failing: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
  quarantined: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
  invalid: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
};

/** Why a definition has the status it has, for the badge's hover. */
function statusDetail(d: Pick<DefinitionItem, 'status' | 'shadowedBy' | 'failing' | 'quarantined'>): string {
  switch (d.status) {
    case 'shadowed':
      return d.shadowedBy.map((s) => `${s.cluster}: ${s.source} definition ${s.name} serves this kind and version`).join('\n');
    case 'failing':
      return `fails on ${d.failing.workloads} live workload${d.failing.workloads === 1 ? '' : 's'}${d.failing.example ? `: ${d.failing.example.message}` : ''}`;
    case 'quarantined':
      return d.quarantined.map((q) => `${q.cluster}: ${q.reason}`).join('\n');
    default:
      return '';
  }
}

/** The definition's status; validation results (no live status) show valid or invalid. */
export function ValidBadge({ d }: { d: Pick<DefinitionItem, 'valid'> & Partial<Pick<DefinitionItem, 'status' | 'shadowedBy' | 'failing' | 'quarantined'>> }) {
  const status = d.status ?? (d.valid ? 'valid' : 'invalid');
  const title = d.status ? statusDetail(d as DefinitionItem) : '';
  return (
    <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${BADGE[status]}`} title={title || undefined} data-testid="definition-status">
      {status}
    </span>
  );
}

function Validate() {
  const [text, setText] = useState('');
  const m = useMutation({ mutationFn: (body: string) => getJson<ValidateResult>('/api/definitions/validate', { method: 'POST', body: JSON.stringify({ text: body }), headers: { 'content-type': 'application/json' } }) });
  return (
    <details className="rounded-lg border border-slate-200 dark:border-slate-800">
      <summary className="cursor-pointer px-3 py-2 text-sm font-medium">Validate a definition</summary>
      <form
        className="flex flex-col gap-2 p-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) m.mutate(text);
        }}
      >
        <label htmlFor="validate-text" className="text-xs text-slate-500 dark:text-slate-400">
          Paste Karta or ResourceInterface YAML or JSON (several documents allowed). Nothing is applied to any cluster.
        </label>
        <textarea id="validate-text" value={text} onChange={(e) => setText(e.target.value)} rows={10} spellCheck={false} className="rounded-md border border-slate-300 bg-white p-2 font-mono text-xs dark:border-slate-700 dark:bg-slate-900" />
        <div className="flex items-center gap-3">
          <button type="submit" disabled={m.isPending || !text.trim()} className="rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800">
            {m.isPending ? 'Validating…' : 'Validate'}
          </button>
          {m.data && (
            <span role="status" className="text-sm">
              {m.data.valid ? 'Valid.' : 'Not valid.'} {m.data.definitions.length} definition{m.data.definitions.length === 1 ? '' : 's'} read.
            </span>
          )}
          {m.error && (
            <span role="alert" className="text-sm text-red-700 dark:text-red-400">
              {m.error.message}
            </span>
          )}
        </div>
        {m.data && (
          <div className="flex flex-col gap-2">
            {m.data.errors.length > 0 && <ErrorList errors={m.data.errors} />}
            {m.data.definitions.map((d, i) => (
              <div key={`${d.name}-${i}`} className="flex flex-col gap-1 rounded border border-slate-200 p-2 text-sm dark:border-slate-800">
                <div className="flex items-center gap-2">
                  <span className="font-mono">{d.name || '(unnamed)'}</span>
                  <ValidBadge d={d} />
                  <span className="text-slate-500 dark:text-slate-400">{d.kind ? `${d.kind} (${d.apiVersion})` : ''}</span>
                </div>
                {d.errors.length > 0 && <ErrorList errors={d.errors} />}
              </div>
            ))}
          </div>
        )}
      </form>
    </details>
  );
}

export function DefinitionsList() {
  const q = useQuery({ queryKey: ['definitions'], queryFn: () => getJson<DefinitionItem[]>('/api/definitions'), refetchInterval: 15_000 });
  const items = q.data ?? [];
  const invalid = items.filter((d) => !d.valid).length;
  return (
    <div className="flex flex-col gap-3">
      <div className="flex items-baseline gap-3">
        <h1 className="text-xl font-semibold">Definitions</h1>
        {q.data && (
          <p className="text-sm text-slate-500 dark:text-slate-400" aria-live="polite">
            {items.length} definition{items.length === 1 ? '' : 's'}
            {invalid > 0 && <span className="text-red-700 dark:text-red-400"> · {invalid} invalid</span>} · from the catalog and from each cluster&apos;s Karta objects
          </p>
        )}
      </div>
      <Validate />
      {q.isPending ? (
        <p role="status" className="p-6 text-center text-slate-500 dark:text-slate-400">
          Loading definitions…
        </p>
      ) : q.isError ? (
        <p role="alert" className="p-6 text-center text-red-700 dark:text-red-400">
          Could not load the definitions: {q.error.message}
        </p>
      ) : items.length === 0 ? (
        <p role="status" className="p-6 text-center text-slate-500 dark:text-slate-400">
          No definitions are loaded.
        </p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800">
          <table className="w-full text-sm" data-testid="definitions-table">
            <thead className="bg-slate-50 dark:bg-slate-900">
              <tr>
                <th className={th}>Definition</th>
                <th className={th}>Root kind</th>
                <th className={th}>Source</th>
                <th className={th}>Validity</th>
                <th className={`${th} text-right`}>Workloads</th>
                <th className={th}>Components</th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={`${d.source}/${d.cluster ?? ''}/${d.name}`} className="border-t border-slate-100 dark:border-slate-800">
                  <td className={td}>
                    <Link href={definitionHref(d)} className="font-mono text-sky-700 hover:underline dark:text-sky-400">
                      {d.name}
                    </Link>
                  </td>
                  <td className={td}>
                    {d.kind || '—'}
                    {d.apiVersion && <div className="text-xs text-slate-500 dark:text-slate-400">{d.apiVersion}</div>}
                  </td>
                  <td className={td}>{d.source === 'cluster' ? `cluster ${d.cluster ?? ''}` : d.source}</td>
                  <td className={td}>
                    <ValidBadge d={d} />
                    {d.errors.length > 0 && (
                      <div className="mt-1">
                        <ErrorList errors={d.errors} />
                      </div>
                    )}
                  </td>
                  <td className={`${td} text-right tabular-nums`}>
                    {d.workloads > 0 && d.kind ? (
                      <Link href={`/?kind=${encodeURIComponent(d.kind)}`} className="text-sky-700 hover:underline dark:text-sky-400" title={`Show the ${d.kind} workloads`}>
                        {d.workloads}
                      </Link>
                    ) : (
                      d.workloads
                    )}
                  </td>
                  <td className={`${td} text-xs text-slate-600 dark:text-slate-300`}>{d.components.map((c) => c.name).join(', ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
