'use client';

import { useEffect, useId, useState } from 'react';
import type { RefObject } from 'react';
import { FacetMenu } from '../ui/FacetMenu.tsx';
import type { FacetOption } from '../ui/FacetMenu.tsx';
import { clearFilters, hasFilters, UNDERUSED_PERCENT, type CelOutcome, type GpuField, type GpuPreset, type RowQuery as ViewState } from '../../lib/rows/index.ts';
import { CEL_CHECK_DELAY_MS, celBoxMessage } from './cel-draft.ts';
import { CEL_HELP_EXAMPLES, CEL_HELP_VARIABLES } from './cel-help.ts';
import { invalidBoundText, rangeConflict, readBound } from './range-input.ts';

export interface Facets {
  status: FacetOption[];
  kind: FacetOption[];
  namespace: FacetOption[];
  cluster: FacetOption[];
}

/**
 * Changes the view. `burst` names the box being typed in, so that a word typed in one go is one
 * history entry (history-entry.ts); clicks leave it out and make an entry each.
 */
export type SetView = (v: ViewState, burst?: string) => void;

const input =
  'h-8 rounded-md border border-slate-300 bg-white px-2 text-sm placeholder:text-slate-500 focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500/30 dark:border-slate-700 dark:bg-slate-900 dark:placeholder:text-slate-400';
const invalidInput = 'border-red-600 ring-2 ring-red-600/30 dark:border-red-500';
// Active: white on sky-700 (5.9:1); sky-600 was 4.0:1, below AA for this text size.
const chip = (on: boolean) =>
  `h-8 rounded-md border px-2 text-sm ${on ? 'border-sky-700 bg-sky-700 text-white dark:border-sky-600 dark:bg-sky-700' : 'border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800'}`;

/** Where the filter bar's problems are listed; every box with a problem points there. */
const PROBLEMS_ID = 'filter-problems';

/**
 * A bound of a range. What is typed is checked as it is typed: a valid number is applied at once,
 * an invalid one is marked (aria-invalid, red) and reported through `onProblem` with what stays
 * applied, never applied silently nor silently ignored. It stays in the box until corrected.
 */
function NumberBox({ label, short, value, onCommit, onProblem, max, conflict }: { label: string; short: string; value: number | null; onCommit(n: number | null): void; onProblem(message: string | null): void; max?: number; conflict: boolean }) {
  const [draft, setDraft] = useState(value === null ? '' : String(value));
  const [invalid, setInvalid] = useState(false);
  // The applied value changed from elsewhere (Back, Clear filters, a link): the box follows it,
  // unless the draft already says that value ("0.50" stays as typed).
  useEffect(() => {
    setDraft((d) => {
      const b = readBound(d, { max });
      return (b.kind === 'empty' && value === null) || (b.kind === 'value' && b.value === value) ? d : value === null ? '' : String(value);
    });
    setInvalid(false);
    onProblem(null);
    // onProblem and max are the same for a box's life that matters here; only the value changes.
  }, [value]);
  const bad = invalid || conflict;
  return (
    <input
      type="text"
      inputMode="decimal"
      autoComplete="off"
      aria-label={label}
      aria-invalid={bad}
      aria-describedby={bad ? PROBLEMS_ID : undefined}
      placeholder={short}
      className={`${input} w-16 tabular-nums ${bad ? invalidInput : ''}`}
      value={draft}
      onChange={(e) => {
        setDraft(e.target.value);
        const b = readBound(e.target.value, { max });
        if (b.kind === 'invalid') {
          setInvalid(true);
          onProblem(invalidBoundText(label, b.message, value));
          return;
        }
        setInvalid(false);
        onProblem(null);
        const next = b.kind === 'empty' ? null : b.value;
        if (next !== value) onCommit(next);
      }}
    />
  );
}

const PRESETS: Array<{ value: GpuPreset | null; label: string; title: string }> = [
  { value: null, label: 'All', title: 'No GPU preset' },
  { value: 'using', label: 'Using GPUs', title: 'Workloads holding at least one GPU' },
  { value: 'waiting', label: 'Waiting for GPUs', title: 'Requested more GPUs than are allocated (pods waiting to be scheduled)' },
  { value: 'idle', label: 'Idle GPUs', title: 'Workloads holding GPUs that stayed below the idle threshold for the whole idle window (workloads without readings are not idle: unknown)' },
  { value: 'underused', label: `Underused (< ${UNDERUSED_PERCENT}%)`, title: `Workloads whose allocated GPUs average below ${UNDERUSED_PERCENT}% utilization (workloads without readings are left out)` },
];

/**
 * The GPU presets are one choice (the query has one `preset`): a segmented control of native radio
 * buttons, so that it looks like one choice, arrow keys move within it, and "All" turns it off.
 */
function PresetChoice({ value, onChange }: { value: GpuPreset | null; onChange(p: GpuPreset | null): void }) {
  const name = `gpu-preset-${useId().replace(/:/g, '')}`;
  return (
    <fieldset className="flex items-center" data-testid="gpu-presets">
      <legend className="sr-only">GPU preset</legend>
      <div className="flex h-8 overflow-hidden rounded-md border border-slate-300 dark:border-slate-700">
        {PRESETS.map((p, i) => {
          const on = value === p.value;
          return (
            <label
              key={p.label}
              title={p.title}
              className={`flex cursor-pointer items-center px-2 text-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:-outline-offset-2 has-[:focus-visible]:outline-sky-500 ${i > 0 ? 'border-l border-slate-300 dark:border-slate-700' : ''} ${on ? 'bg-sky-700 text-white' : 'hover:bg-slate-100 dark:hover:bg-slate-800'}`}
            >
              <input type="radio" name={name} className="sr-only" checked={on} onChange={() => onChange(p.value)} />
              {p.label}
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}

export function FilterBar({ view, setView, facets, cel, searchRef }: { view: ViewState; setView: SetView; facets: Facets; cel: CelOutcome; searchRef: RefObject<HTMLInputElement | null> }) {
  const [q, setQ] = useState(view.q);
  useEffect(() => setQ(view.q), [view.q]);
  const [celDraft, setCelDraft] = useState(view.cel);
  useEffect(() => setCelDraft(view.cel), [view.cel]);
  // The draft as of the last pause in typing: what the box's message is about.
  const [celChecked, setCelChecked] = useState(view.cel);
  useEffect(() => {
    const t = setTimeout(() => setCelChecked(celDraft), CEL_CHECK_DELAY_MS);
    return () => clearTimeout(t);
  }, [celDraft]);
  const [showCel, setShowCel] = useState(view.cel !== '');
  const [boxProblems, setBoxProblems] = useState<Record<string, string>>({});
  const patch = (p: Partial<ViewState>, burst?: string) => setView({ ...view, ...p }, burst);
  const problemSetter = (key: string) => (message: string | null) =>
    setBoxProblems((cur) => {
      if ((cur[key] ?? null) === message) return cur;
      const next = { ...cur };
      if (message === null) delete next[key];
      else next[key] = message;
      return next;
    });

  const gpuConflict = rangeConflict('GPU range', view.minGpus, view.maxGpus);
  const utilConflict = rangeConflict('Utilization range', view.minUtil, view.maxUtil);
  const problems = [...Object.values(boxProblems), ...[gpuConflict, utilConflict].filter((x): x is string => x !== null)];
  const celMessage = celBoxMessage({ draft: celDraft, checked: celChecked, applied: view.cel, appliedError: cel.error });

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
              patch({ q: e.target.value }, 'q');
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
          <span className="text-xs text-slate-600 dark:text-slate-400">GPUs</span>
          <select aria-label="GPU field for the range" className={`${input} w-28 px-1`} value={view.gpuField} onChange={(e) => patch({ gpuField: e.target.value as GpuField })}>
            <option value="allocated">allocated</option>
            <option value="requested">requested</option>
            <option value="desired">desired</option>
          </select>
          <NumberBox label="Minimum GPUs" short="min" value={view.minGpus} conflict={gpuConflict !== null} onProblem={problemSetter('minGpus')} onCommit={(minGpus) => patch({ minGpus }, 'minGpus')} />
          <span className="text-slate-500 dark:text-slate-400" aria-hidden="true">–</span>
          <NumberBox label="Maximum GPUs" short="max" value={view.maxGpus} conflict={gpuConflict !== null} onProblem={problemSetter('maxGpus')} onCommit={(maxGpus) => patch({ maxGpus }, 'maxGpus')} />
        </fieldset>
        <fieldset className="flex items-center gap-1 rounded-md border border-slate-200 px-1.5 py-0.5 dark:border-slate-700" title="Average utilization of the allocated GPUs; workloads without readings are in no range">
          <legend className="sr-only">Utilization range</legend>
          <span className="text-xs text-slate-600 dark:text-slate-400">Util %</span>
          <NumberBox label="Minimum utilization %" short="min" max={100} value={view.minUtil} conflict={utilConflict !== null} onProblem={problemSetter('minUtil')} onCommit={(minUtil) => patch({ minUtil }, 'minUtil')} />
          <span className="text-slate-500 dark:text-slate-400" aria-hidden="true">–</span>
          <NumberBox label="Maximum utilization %" short="max" max={100} value={view.maxUtil} conflict={utilConflict !== null} onProblem={problemSetter('maxUtil')} onCommit={(maxUtil) => patch({ maxUtil }, 'maxUtil')} />
        </fieldset>
        <PresetChoice value={view.preset} onChange={(preset) => patch({ preset })} />
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
      {problems.length > 0 && (
        <ul id={PROBLEMS_ID} role="alert" className="flex flex-col gap-0.5 text-sm text-red-700 dark:text-red-300" data-testid="filter-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {(showCel || view.cel !== '') && (
        <div id="cel-filter" className="flex flex-col gap-1">
          <form
            className="flex items-center gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              setCelChecked(celDraft);
              patch({ cel: celDraft.trim() });
            }}
          >
            <label htmlFor="cel-input" className="shrink-0 text-xs text-slate-600 dark:text-slate-400">
              CEL
            </label>
            <input
              id="cel-input"
              className={`${input} flex-1 font-mono ${celMessage?.tone === 'bad' ? invalidInput : ''}`}
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
          <div id="cel-help" className="min-h-5 text-xs" data-testid="cel-help">
            {celMessage?.tone === 'bad' ? (
              <pre role="alert" className="overflow-x-auto whitespace-pre-wrap rounded bg-red-50 p-2 font-mono text-red-800 dark:bg-red-950 dark:text-red-200">
                {celMessage.applied ? 'This expression is not applied: ' : 'This draft is not valid: '}
                {celMessage.text}
              </pre>
            ) : celMessage?.tone === 'hint' ? (
              <p role="status" className="text-slate-600 dark:text-slate-300">
                {celMessage.text}
              </p>
            ) : view.cel && cel.failures > 0 && celDraft.trim() === view.cel.trim() ? (
              <p role="status" className="text-amber-800 dark:text-amber-300">
                Left out {cel.failures} row{cel.failures === 1 ? '' : 's'} on which the expression failed: {cel.firstError?.split('\n')[0]}
              </p>
            ) : (
              <p className="text-slate-600 dark:text-slate-400">
                Enter applies. Variables:{' '}
                {CEL_HELP_VARIABLES.map((v, i) => (
                  <span key={v.code}>
                    {i > 0 && ', '}
                    <code>{v.code}</code>
                    {v.text && ` (${v.text})`}
                  </span>
                ))}
                . Examples:{' '}
                {CEL_HELP_EXAMPLES.map((e, i) => (
                  <span key={e.code}>
                    {i > 0 && '; '}
                    <code>{e.code}</code>
                    {e.text && ` (${e.text})`}
                  </span>
                ))}
                .
              </p>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
