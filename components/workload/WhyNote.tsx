import type { PodWhy } from '../../contract/index.ts';
import { podWhyTitle } from './why-text.ts';

/** Why a pod is not running and ready, in the cluster's words. */
export function WhyNote({ why }: { why: PodWhy }) {
  const bad = why.kind === 'failed' || why.kind === 'unschedulable' || why.reason === 'CrashLoopBackOff';
  return (
    <div
      role="note"
      className={`rounded border px-3 py-2 text-sm ${bad ? 'border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100' : 'border-sky-300 bg-sky-50 text-sky-950 dark:border-sky-800 dark:bg-sky-950/50 dark:text-sky-100'}`}
      data-testid="why-note"
    >
      <div className="font-semibold">Why: {podWhyTitle(why)}</div>
      <div className="break-words">{why.message}</div>
    </div>
  );
}
