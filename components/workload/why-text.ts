/** The "why" of a pod, a role or a row as one line for people. Pure. */
import type { PodWhy, RowWhy } from '../../contract/index.ts';

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

/** `2 pods Unschedulable: 0/14 nodes are available: … · waiting for its gang pg-x: 3 of 8 scheduled (needs 8) · 1 more not ready for other reasons` */
export function rowWhyText(w: RowWhy): string {
  const head = `${w.pods} pod${w.pods === 1 ? '' : 's'} ${w.reason}: ${w.message}`;
  const gang = w.gang ? ` · waiting for its gang ${w.gang.name}: ${w.gang.scheduled} scheduled${w.gang.minMember !== null ? `, needs ${w.gang.minMember}` : ''}` : '';
  const others = w.otherPods > 0 ? ` · ${w.otherPods} more not ready for other reasons` : '';
  return head + gang + others;
}
