/**
 * The table's Pods cell, for people. Pods that finished successfully are done, not "not ready": a
 * completed Job with four pods reads "4 done", not "0/4" in the warning colour; a Job half-way reads
 * "2/2 · 2 done" (ready of the pods still running, and the finished ones). Pure.
 */
import type { WorkloadRow } from '../../contract/index.ts';

export interface PodsText {
  /** Ready of the pods that have not finished, `null` when every pod has finished. */
  ready: { ready: number; of: number } | null;
  /** Pods that finished successfully; 0 when none. */
  done: number;
  /** Some unfinished pod is not ready: the warning colour. */
  warn: boolean;
  /** The tooltip and accessible name. */
  title: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function podsText(pods: WorkloadRow['pods']): PodsText {
  const done = Math.min(pods.done ?? 0, pods.total);
  const active = pods.total - done;
  const ready = active > 0 || done === 0 ? { ready: pods.ready, of: active } : null;
  const parts = [`${pods.ready} ready of ${plural(pods.total, 'pod', 'pods')}`];
  if (done > 0) parts.push(`${done} finished successfully`);
  return { ready, done, warn: pods.ready < active, title: parts.join(', ') };
}

/** Finished pods over rows whose pods can be read (the totals strip's "· N done", beside ready of the rest). */
export function donePods(rows: readonly WorkloadRow[]): number {
  let n = 0;
  for (const r of rows) if (!r.pods.unknown) n += r.pods.done ?? 0;
  return n;
}
