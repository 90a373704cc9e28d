import { diffLines } from './edit-lines.ts';

const COLOUR = {
  add: 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-200',
  remove: 'bg-rose-50 text-rose-900 dark:bg-rose-950/60 dark:text-rose-200',
  hunk: 'text-sky-800 dark:text-sky-300',
  header: 'font-semibold text-slate-700 dark:text-slate-300',
  context: 'text-slate-700 dark:text-slate-300',
} as const;

/** A unified diff of the root object, additions and removals coloured (and marked + / − for those who cannot see colour). */
export function DiffView({ diff, label }: { diff: string; label: string }) {
  if (!diff.trim()) return <p className="text-sm text-slate-600 dark:text-slate-400">No change to the object.</p>;
  return (
    <pre aria-label={label} tabIndex={0} className="max-h-[360px] overflow-auto rounded border border-slate-200 bg-slate-50 p-2 text-xs leading-5 dark:border-slate-800 dark:bg-slate-900" data-testid="action-diff">
      {diffLines(diff).map((l, i) => (
        <div key={i} className={COLOUR[l.kind]}>
          {l.text || ' '}
        </div>
      ))}
    </pre>
  );
}
