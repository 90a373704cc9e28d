/**
 * The short form of a row's "why" (contract/row.ts RowWhy) for the status cell's tooltip and
 * accessible description: "2 pods Unschedulable: 0/14 nodes are available: 8 Insufficient
 * nvidia.com/gpu", or for pods waiting as a gang "waiting for its gang pg-x: 3 of 8 scheduled" (after
 * the scheduler's message when the scheduler has one: a gang of one that does not fit waits for GPUs,
 * not for its gang).
 * Pure.
 */
import type { RowWhy } from '../../contract/index.ts';

/** A tooltip line, not the whole story: the workload page shows every message in full. */
export const WHY_MESSAGE_MAX = 160;

/** Cuts at a word boundary when one is near, and says it did. */
function shorten(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return one;
  const cut = one.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** `maxMessage`: how much of the cluster's message to keep (the workload page keeps all of it). */
export function whyShort(why: RowWhy | null | undefined, maxMessage = WHY_MESSAGE_MAX): string | null {
  if (!why) return null;
  const others = why.otherPods > 0 ? ` (+${why.otherPods} ${why.otherPods === 1 ? 'pod' : 'pods'} for other reasons)` : '';
  const who = `${why.pods} ${why.pods === 1 ? 'pod' : 'pods'} ${why.reason}`;
  const message = why.message.trim() ? `: ${shorten(why.message, maxMessage)}` : '';
  if (why.gang) {
    const { name, scheduled, minMember } = why.gang;
    const gang = `${minMember !== null ? `${scheduled} of ${minMember}` : scheduled} scheduled`;
    // Gated or not yet looked at: the gang is the reason. Unschedulable: the scheduler's message is,
    // and the gang's progress follows it.
    if (why.kind !== 'unschedulable' || !message) return `waiting for its gang ${name}: ${gang}${others}`;
    return `${who}${message}; its gang ${name}: ${gang}${others}`;
  }
  return `${who}${message}${others}`;
}
