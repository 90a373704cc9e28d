import type { ClusterNotice } from '../workloads/cluster-notices.ts';

const TONE = {
  bad: 'border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200',
  warn: 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200',
  info: 'border-slate-300 bg-slate-50 text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300',
};

export function Notices({ notices }: { notices: ClusterNotice[] }) {
  if (notices.length === 0) return null;
  return (
    <ul className="flex flex-col gap-1" aria-label="Cluster notices" data-testid="cluster-notices">
      {notices.map((n, i) => (
        <li key={`${n.cluster}-${i}`} role={n.tone === 'bad' ? 'alert' : 'status'} className={`rounded-md border px-3 py-1.5 text-sm ${TONE[n.tone]}`}>
          {n.text}
        </li>
      ))}
    </ul>
  );
}
