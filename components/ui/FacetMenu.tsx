'use client';

import { useId, useRef } from 'react';
import { placeUnder } from './popover-under.ts';

export interface FacetOption {
  value: string;
  count: number;
}

/**
 * A multi-select filter as a button and a native popover of checkboxes (the popover gives outside
 * click and Escape for free). Selected values that no row has any more stay listed, so they can be
 * unticked.
 */
export function FacetMenu({ label, options, selected, onChange }: { label: string; options: FacetOption[]; selected: string[]; onChange(next: string[]): void }) {
  const id = useId().replace(/:/g, '');
  const popId = `facet-${id}`;
  const buttonRef = useRef<HTMLButtonElement>(null);
  const all = [...options];
  for (const s of selected) if (!all.some((o) => o.value === s)) all.push({ value: s, count: 0 });
  const toggle = (v: string) => onChange(selected.includes(v) ? selected.filter((x) => x !== v) : [...selected, v]);
  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        popoverTarget={popId}
        className={`inline-flex h-8 items-center gap-1 rounded-md border px-2 text-sm ${selected.length ? 'border-sky-500 bg-sky-50 text-sky-900 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-100' : 'border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800'}`}
      >
        {/* Named by its content (not aria-label), so that the name holds the visible text, count included. */}
        {label}
        <span className="sr-only"> filter</span>
        {selected.length > 0 && (
          <>
            <span className="rounded bg-sky-700 px-1 text-xs text-white tabular-nums">{selected.length}</span>
            <span className="sr-only"> selected: {selected.join(', ')}</span>
          </>
        )}
        <span aria-hidden="true" className="text-xs text-slate-500 dark:text-slate-400">▾</span>
      </button>
      <div
        id={popId}
        popover="auto"
        // Under its button.
        onToggle={placeUnder(buttonRef, (b) => Math.min(b.left, window.innerWidth - 280))}
        className="fixed m-0 max-h-80 w-64 overflow-auto rounded-md border border-slate-200 bg-white p-1 text-sm text-slate-900 shadow-lg dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
      >
        <div role="group" aria-label={label}>
          {all.length === 0 && <p className="p-2 text-slate-500 dark:text-slate-400">No values yet.</p>}
          {all.map((o) => (
            <label key={o.value} className="flex cursor-pointer items-center gap-2 rounded px-2 py-1 hover:bg-slate-100 dark:hover:bg-slate-800">
              <input type="checkbox" checked={selected.includes(o.value)} onChange={() => toggle(o.value)} className="accent-sky-600" />
              <span className="flex-1 truncate">{o.value || '(none)'}</span>
              <span className="text-xs text-slate-500 dark:text-slate-400 tabular-nums">{o.count}</span>
            </label>
          ))}
          {selected.length > 0 && (
            <button type="button" onClick={() => onChange([])} className="mt-1 w-full rounded px-2 py-1 text-left text-xs text-sky-700 hover:bg-slate-100 dark:text-sky-400 dark:hover:bg-slate-800">
              Clear {label.toLowerCase()}
            </button>
          )}
        </div>
      </div>
    </>
  );
}
