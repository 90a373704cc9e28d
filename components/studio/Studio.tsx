'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { DefinitionDetail, DefinitionItem, DraftAnswer, TrialAnswer, ValidateResult, WorkloadPage } from '../../contract/index.ts';
import { kindRef } from '../../lib/rows/identity.ts';
import { fetchApiJson } from '../workload/fetch-json.ts';
import { COMMON_FIELDS, readCommonFields, writeCommonField } from './common-fields.ts';
import { marksOf } from './diagnostics.ts';
import { StartChooser } from './StartChooser.tsx';
import { RegisterPanel } from './RegisterPanel.tsx';
import { TrialView } from './TrialView.tsx';
import { YamlEditor } from './YamlEditor.tsx';

export interface StudioStart {
  /** A blank definition (no chooser). */
  blank?: boolean;
  /** Edit a copy of a definition. */
  definition?: { name: string; source: string; cluster?: string };
  /** Draft one from this row (a workload no definition describes). */
  draft?: string;
  /** Rows to try the definition on. */
  rows: string[];
}

const BLANK = `apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: my-workload
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind:
        group: example.com
        version: v1
        kind: MyWorkload
      statusDefinition:
        statusMappings:
          Running:
            - byConditions:
                - type: Ready
                  status: "True"
`;

async function postJson<T>(url: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal, cache: 'no-store' });
  const answer = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
  if (!res.ok || !answer) throw new Error(answer?.error?.message ?? `HTTP ${res.status}`);
  return answer;
}

/** A debounced value: the studio validates and tries the text a moment after typing stops. */
function useSettled<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * The definition studio: start from a definition, a blank one, or a draft from a workload no
 * definition describes; edit it with its errors marked at their lines; try it on live objects of its
 * kind, each beside kubectl's raw view with the differences called out; then register it.
 */
export function Studio({ start }: { start: StudioStart }) {
  const [text, setText] = useState<string>(start.definition || start.draft ? '' : BLANK);
  const [origin, setOrigin] = useState<string>(start.definition ? `a copy of ${start.definition.source} definition ${start.definition.name}` : start.draft ? 'a draft' : 'a blank definition');
  const [guesses, setGuesses] = useState<DraftAnswer['guesses']>([]);
  const [selected, setSelected] = useState<string[]>(start.rows.length ? start.rows : start.draft ? [start.draft] : []);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    if (start.definition) {
      const q = new URLSearchParams({ source: start.definition.source, ...(start.definition.cluster ? { cluster: start.definition.cluster } : {}) });
      fetchApiJson<DefinitionDetail>(`/api/definitions/${encodeURIComponent(start.definition.name)}?${q}`).then((d) => setText(d.yaml), (e: Error) => setLoadError(e.message));
    } else if (start.draft) {
      fetchApiJson<DraftAnswer>(`/api/studio/draft?row=${encodeURIComponent(start.draft)}`).then(
        (d) => {
          setText(d.yaml);
          setGuesses(d.guesses);
          setOrigin(`a draft from ${start.draft}`);
        },
        (e: Error) => setLoadError(e.message),
      );
    }
  }, [start.definition, start.draft]);

  const settled = useSettled(text, 350);
  const validation = useQuery({
    queryKey: ['studio-validate', settled],
    queryFn: ({ signal }) => postJson<ValidateResult>('/api/definitions/validate', { text: settled }, signal),
    enabled: settled.trim() !== '',
    placeholderData: (prev) => prev,
    staleTime: Infinity,
  });
  const errors = useMemo(() => [...(validation.data?.errors ?? []), ...(validation.data?.definitions.flatMap((d) => d.errors) ?? [])], [validation.data]);
  const marks = useMemo(() => marksOf(settled, errors), [settled, errors]);
  const def: DefinitionItem | undefined = validation.data?.definitions[0];
  const kind = def ? kindRef(def.kind, def.apiVersion) : null;

  const candidates = useQuery({
    queryKey: ['studio-candidates', kind],
    queryFn: () => fetchApiJson<WorkloadPage>(`/api/workloads?kind=${encodeURIComponent(kind!)}&limit=200&sort=name`),
    enabled: kind !== null,
  });
  const trial = useQuery({
    queryKey: ['studio-trial', settled, selected],
    queryFn: ({ signal }) => postJson<TrialAnswer>('/api/studio/trial', { text: settled, rows: selected }, signal),
    enabled: settled.trim() !== '' && selected.length > 0,
    placeholderData: (prev) => prev,
    staleTime: 10_000,
  });

  const common = useMemo(() => readCommonFields(text), [text]);
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : s.length >= 5 ? s : [...s, id]));

  return (
    <div className="flex flex-col gap-3">
      <header className="flex flex-wrap items-baseline gap-3">
        <h1 className="text-lg font-semibold">Definition studio</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="studio-origin">Editing {origin}.</p>
      </header>
      {!start.definition && !start.draft && !start.blank && start.rows.length === 0 && <StartChooser />}
      {loadError && <p role="alert" className="rounded border border-rose-300 bg-rose-50 px-2 py-1 text-sm text-rose-900 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200">{loadError}</p>}
      <div className="grid gap-3 xl:grid-cols-[minmax(0,5fr)_minmax(0,7fr)]">
        <div className="flex flex-col gap-2">
          <fieldset className="grid gap-2 rounded border border-slate-200 p-2 text-sm sm:grid-cols-5 dark:border-slate-800" disabled={common === null} data-testid="studio-form">
            <legend className="px-1 font-medium">Common fields {common === null ? '(fix the YAML to edit them here)' : ''}</legend>
            {COMMON_FIELDS.map((f) => (
              <label key={f.key} className="flex flex-col text-xs">
                {f.label}
                <input className="rounded border border-slate-300 bg-white px-1 py-0.5 font-mono text-sm dark:border-slate-700 dark:bg-slate-900" value={common?.[f.key] ?? ''} onChange={(e) => setText((t) => writeCommonField(t, f.key, e.target.value))} />
              </label>
            ))}
          </fieldset>
          <YamlEditor value={text} onChange={setText} marks={marks} label="Definition YAML" />
          <p role="status" className="text-sm" data-testid="studio-validity">
            {validation.isFetching && !validation.data ? 'Checking…' : validation.isError ? `Could not check: ${validation.error.message}` : errors.length === 0 ? (def ? `Valid: ${def.kind} (${def.apiVersion}), ${def.components.length} components.` : 'No definition in the text.') : `${errors.length} error${errors.length === 1 ? '' : 's'}, marked at their lines.`}
          </p>
          {errors.length > 0 && (
            <ul tabIndex={0} aria-label="Errors in the definition" className="max-h-40 list-disc overflow-auto pl-5 text-sm text-rose-900 dark:text-rose-200" data-testid="studio-errors">
              {marks.map((m, i) => <li key={i}>line {m.line}: {m.message}</li>)}
            </ul>
          )}
          {guesses.length > 0 && (
            <details open className="rounded border border-sky-300 bg-sky-50 p-2 text-sm dark:border-sky-800 dark:bg-sky-950/50" data-testid="studio-guesses">
              <summary className="cursor-pointer font-medium">The draft guessed {guesses.length} thing{guesses.length === 1 ? '' : 's'}: check them</summary>
              <ul className="mt-1 list-disc pl-5">
                {guesses.map((g, i) => <li key={i}><span className="font-mono text-xs">{g.path}</span>: {g.why}</li>)}
              </ul>
            </details>
          )}
          <RegisterPanel text={settled} valid={errors.length === 0 && def !== undefined} name={def?.name ?? null} />
        </div>
        <div className="flex flex-col gap-2">
          <fieldset className="rounded border border-slate-200 p-2 dark:border-slate-800">
            <legend className="px-1 text-sm font-medium">Try it on live {def ? def.kind : ''} objects (up to 5)</legend>
            {!kind && <p className="text-sm text-slate-600 dark:text-slate-400">Once the definition is valid, its kind&apos;s objects are listed here.</p>}
            {candidates.data && candidates.data.rows.length === 0 && <p className="text-sm">No {def?.kind} objects in any connected cluster.</p>}
            <div className="flex max-h-40 flex-wrap gap-x-4 gap-y-1 overflow-auto" data-testid="studio-candidates">
              {candidates.data?.rows.map((r) => (
                <label key={r.id} className="inline-flex items-center gap-1 text-sm">
                  <input type="checkbox" checked={selected.includes(r.id)} onChange={() => toggle(r.id)} />
                  {r.namespace ? `${r.namespace}/` : ''}{r.name} <span className="text-xs text-slate-500 dark:text-slate-400">({r.cluster})</span>
                </label>
              ))}
            </div>
          </fieldset>
          {trial.isError && <p role="alert" className="text-sm text-rose-900 dark:text-rose-200">The trial failed: {trial.error.message}</p>}
          {trial.data?.results.map((r) => <TrialView key={r.row.id} r={r} />)}
        </div>
      </div>
    </div>
  );
}
