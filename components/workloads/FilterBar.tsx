'use client';

import { useEffect, useState } from 'react';
import type { RefObject } from 'react';
import { FacetMenu } from '../ui/FacetMenu.tsx';
import type { FacetOption } from '../ui/FacetMenu.tsx';
import { clearFilters, compileCelFilter, hasFilters, UNDERUSED_PERCENT, type CelOutcome, type GpuField, type GpuPreset, type RowQuery as ViewState } from '../../lib/rows/index.ts';

export interface Facets {
  status: FacetOption[];
  kind: FacetOption[];
  namespace: FacetOption[];
  cluster: FacetOption[];
}

const input =
  'h-8 rounded-md border border-slate-300 bg-white px-2 text-sm placeholder:text-slate-400 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 dark:border-slate-700 dark:bg-slate-900';
const chip = (on: boolean) =>
  `h-8 rounded-md border px-2 text-sm ${on ? 'border-sky-500 bg-sky-600 text-white' : 'border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800'}`;

/** A number field that commits on every valid keystroke (0..max); an invalid draft stays in the box, uncommitted. */
function NumberBox({ label, value, onCommit, max }: { label: string; value: number | null; onCommit(n: number | null): void; max?: number }) {
  const [draft, setDraft] = useState(value === null ? '' : String(value));
  useEffect(() => setDraft(value === null ? '' : String(value)), [value]);
  return (
    <input
      type="number"
      min={0}
      max={max}
      step="any"
      inputMode="decimal"
      aria-label={label}
      placeholder={label.startsWith('Minimum') ? 'min' : 'max'}
      className={`${input} w-16 tabular-nums`}
      value={draft}
      onChange={(e) => {
        setDraft(e.target.value);
        const t = e.target.value.trim();
        if (t === '') onCommit(null);
        else if (Number.isFinite(Number(t)) && Number(t) >= 0 && (max === undefined || Number(t) <= max)) onCommit(Number(t));
      }}
    />
  );
}

export function FilterBar({ view, setView, facets, cel, searchRef }: { view: ViewState; setView(v: ViewState): void; facets: Facets; cel: CelOutcome; searchRef: RefObject<HTMLInputElement | null> }) {
  const [q, setQ] = useState(view.q);
  useEffect(() => setQ(view.q), [view.q]);
  const [celDraft, setCelDraft] = useState(view.cel);
  useEffect(() => setCelDraft(view.cel), [view.cel]);
  const [showCel, setShowCel] = useState(view.cel !== '');
  const patch = (p: Partial<ViewState>) => setView({ ...view, ...p });
  const preset = (p: GpuPreset) => patch({ preset: view.preset === p ? null : p });

  const draftCheck = celDraft.trim() && celDraft !== view.cel ? compileCelFilter(celDraft) : null;
  const celMessage = view.cel && cel.error ? { tone: 'bad' as const, text: cel.error, applied: true } : draftCheck && !draftCheck.ok ? { tone: 'bad' as const, text: draftCheck.error, applied: false } : null;

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <label className="relative">
          <span className="sr-only">Search workloads</span>
          <input
            ref={searchRef}
            type="search"
            id="workload-search"
            placeholder="Search workloads  ( / )"
            className={`${input} w-64`}
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              patch({ q: e.target.value });
            }}
            onKeyDown={(e) => {
              if (e.key === 'Escape' && q) {
                setQ('');
                patch({ q: '' });
              }
            }}
          />
        </label>
        <FacetMenu label="Status" options={facets.status} selected={view.status} onChange={(status) => patch({ status })} />
        <FacetMenu label="Kind" options={facets.kind} selected={view.kind} onChange={(kind) => patch({ kind })} />
        <FacetMenu label="Namespace" options={facets.namespace} selected={view.namespace} onChange={(namespace) => patch({ namespace })} />
        <FacetMenu label="Cluster" options={facets.cluster} selected={view.cluster} onChange={(cluster) => patch({ cluster })} />
        <fieldset className="flex items-center gap-1 rounded-md border border-slate-200 px-1.5 py-0.5 dark:border-slate-700">
          <legend className="sr-only">GPU range</legend>
          <span className="text-xs text-slate-500 dark:text-slate-400">GPUs</span>
          <select aria-label="GPU field for the range" className={`${input} w-28 px-1`} value={view.gpuField} onChange={(e) => patch({ gpuField: e.target.value as GpuField })}>
            <option value="allocated">allocated</option>
            <option value="requested">requested</option>
            <option value="desired">desired</option>
          </select>
          <NumberBox label="Minimum GPUs" value={view.minGpus} onCommit={(minGpus) => patch({ minGpus })} />
          <span className="text-slate-400" aria-hidden="true">–</span>
          <NumberBox label="Maximum GPUs" value={view.maxGpus} onCommit={(maxGpus) => patch({ maxGpus })} />
        </fieldset>
        <fieldset className="flex items-center gap-1 rounded-md border border-slate-200 px-1.5 py-0.5 dark:border-slate-700" title="Average utilization of the allocated GPUs; workloads without readings are in no range">
          <legend className="sr-only">Utilization range</legend>
          <span className="text-xs text-slate-500 dark:text-slate-400">Util %</span>
          <NumberBox label="Minimum utilization %" max={100} value={view.minUtil} onCommit={(minUtil) => patch({ minUtil })} />
          <span className="text-slate-400" aria-hidden="true">–</span>
          <NumberBox label="Maximum utilization %" max={100} value={view.maxUtil} onCommit={(maxUtil) => patch({ maxUtil })} />
        </fieldset>
        <button type="button" className={chip(view.preset === 'using')} aria-pressed={view.preset === 'using'} onClick={() => preset('using')} title="Workloads holding at least one GPU">
          Using GPUs
        </button>
        <button type="button" className={chip(view.preset === 'waiting')} aria-pressed={view.preset === 'waiting'} onClick={() => preset('waiting')} title="Requested more GPUs than are allocated (pods waiting to be scheduled)">
          Waiting for GPUs
        </button>
        <button type="button" className={chip(view.preset === 'idle')} aria-pressed={view.preset === 'idle'} onClick={() => preset('idle')} title="Workloads holding GPUs that stayed below the idle threshold for the whole idle window (workloads without readings are not idle: unknown)">
          Idle GPUs
        </button>
        <button type="button" className={chip(view.preset === 'underused')} aria-pressed={view.preset === 'underused'} onClick={() => preset('underused')} title={`Workloads whose allocated GPUs average below ${UNDERUSED_PERCENT}% utilization (workloads without readings are left out)`}>
          Underused (&lt; {UNDERUSED_PERCENT}%)
        </button>
        <button
          type="button"
          className={chip(view.definition.includes('none'))}
          aria-pressed={view.definition.includes('none')}
          onClick={() => patch({ definition: view.definition.includes('none') ? view.definition.filter((d) => d !== 'none') : [...view.definition, 'none'] })}
          title="Workloads of kinds no definition describes (their pods and GPUs are counted; what they ask for is unknown)"
        >
          No definition
        </button>
        <button type="button" className={chip(showCel || view.cel !== '')} aria-expanded={showCel || view.cel !== ''} aria-controls="cel-filter" onClick={() => setShowCel((s) => !s)}>
          CEL filter
        </button>
        {/* Always laid out (hidden when unused) so that filtering never moves the table. */}
        <button
          type="button"
          className={`h-8 px-1 text-sm text-sky-700 hover:underline dark:text-sky-400 ${hasFilters(view) ? '' : 'invisible'}`}
          aria-hidden={!hasFilters(view)}
          tabIndex={hasFilters(view) ? 0 : -1}
          onClick={() => setView(clearFilters(view))}
        >
          Clear filters
        </button>
      </div>
      {(showCel || view.cel !== '') && (
        <div id="cel-filter" className="flex flex-col gap-1">
          <form
            className="flex items-center gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              patch({ cel: celDraft.trim() });
            }}
          >
            <label htmlFor="cel-input" className="shrink-0 text-xs text-slate-500 dark:text-slate-400">
              CEL
            </label>
            <input
              id="cel-input"
              className={`${input} flex-1 font-mono`}
              placeholder='gpus.allocated >= 8 && status == "Running"'
              spellCheck={false}
              autoComplete="off"
              value={celDraft}
              aria-invalid={celMessage?.tone === 'bad'}
              aria-describedby="cel-help"
              onChange={(e) => setCelDraft(e.target.value)}
            />
            <button type="submit" className={chip(false)}>
              Apply
            </button>
            {view.cel && (
              <button
                type="button"
                className={chip(false)}
                onClick={() => {
                  setCelDraft('');
                  patch({ cel: '' });
                }}
              >
                Remove
              </button>
            )}
          </form>
          <div id="cel-help" className="min-h-5 text-xs">
            {celMessage ? (
              <pre role="alert" className="overflow-x-auto whitespace-pre-wrap rounded bg-red-50 p-2 font-mono text-red-800 dark:bg-red-950 dark:text-red-200">
                {celMessage.applied ? 'This expression is not applied: ' : ''}
                {celMessage.text}
              </pre>
            ) : view.cel && cel.failures > 0 ? (
              <p role="status" className="text-amber-700 dark:text-amber-400">
                Left out {cel.failures} row{cel.failures === 1 ? '' : 's'} on which the expression failed: {cel.firstError?.split('\n')[0]}
              </p>
            ) : (
              <p className="text-slate-500 dark:text-slate-400">
                Enter applies. Variables: <code>name</code>, <code>ns</code> (namespace), <code>kind</code>, <code>cluster</code>, <code>status</code>, <code>gpus.allocated|requested|desired</code>, <code>gpus.byResource</code>, <code>pods.ready|total</code>, <code>roles</code>, <code>utilization</code> (percent, null without readings), <code>idleGpus</code>, <code>usage</code>, <code>age</code> (seconds), <code>createdAt</code>, <code>now</code>, <code>self</code>.
              </p>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
