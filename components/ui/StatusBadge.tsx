import type { WorkloadStatusName } from '../../contract/index.ts';

const STYLES: Record<string, string> = {
  Running: 'bg-emerald-100 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-400/30',
  Completed: 'bg-sky-100 text-sky-800 ring-sky-600/20 dark:bg-sky-950 dark:text-sky-300 dark:ring-sky-400/30',
  Failed: 'bg-red-100 text-red-800 ring-red-600/20 dark:bg-red-950 dark:text-red-300 dark:ring-red-400/30',
  Degraded: 'bg-orange-100 text-orange-800 ring-orange-600/20 dark:bg-orange-950 dark:text-orange-300 dark:ring-orange-400/30',
  Initializing: 'bg-amber-100 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-400/30',
  Suspended: 'bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-400/30',
  Suspending: 'bg-violet-100 text-violet-800 ring-violet-600/20 dark:bg-violet-950 dark:text-violet-300 dark:ring-violet-400/30',
  Resuming: 'bg-violet-100 text-violet-800 ring-violet-600/20 dark:bg-violet-950 dark:text-violet-300 dark:ring-violet-400/30',
  Undefined: 'bg-white text-slate-600 ring-slate-400/40 dark:bg-slate-900 dark:text-slate-400 dark:ring-slate-500/40',
};

/**
 * The common-vocabulary status; the native reason (and any other matched statuses) on hover, and
 * `why` some pods are not running and ready (a short form of the row's why) first.
 */
export function StatusBadge({ status, reason, others, why }: { status: WorkloadStatusName | string; reason?: string | null; others?: readonly string[]; why?: string | null }) {
  const extra = (others ?? []).filter((s) => s !== status);
  const title = [why ? `Why: ${why}` : '', reason ? `Reason: ${reason}` : 'No native reason reported', extra.length ? `Also: ${extra.join(', ')}` : ''].filter(Boolean).join('\n');
  return (
    <span
      className={`inline-flex max-w-full items-center gap-1 truncate rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STYLES[status] ?? STYLES.Undefined}`}
      title={title}
    >
      {status}
      {extra.length > 0 && <span aria-label={`also ${extra.join(', ')}`}>+{extra.length}</span>}
      {reason && <span className="sr-only">: {reason}</span>}
    </span>
  );
}
