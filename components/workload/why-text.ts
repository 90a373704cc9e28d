/** The "why" of a pod, a role or a row as one line for people. Pure. */
import type { PodWhy, RowWhy } from '../../contract/index.ts';
import { whyShort } from '../workloads/why-text.ts';

const KIND_WORD: Record<PodWhy['kind'], string> = {
  unschedulable: 'cannot be scheduled',
  gated: 'held by scheduling gates',
  unscheduled: 'not scheduled yet',
  waiting: 'waiting',
  unready: 'not ready',
  failed: 'failed',
};

export function podWhyTitle(w: PodWhy): string {
  return `${w.reason}: ${KIND_WORD[w.kind]}`;
}

/** The row's why in full, for the workload page (the table's tooltip shortens the message). */
export function rowWhyText(w: RowWhy): string {
  return whyShort(w, Number.POSITIVE_INFINITY) ?? '';
}
