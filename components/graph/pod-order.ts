/**
 * How pods are ordered, counted and paged in the structure graph. A page of a big group shows the
 * pods that need attention first (failed, then pending or unschedulable, then running but not
 * ready), the rest in natural order; small groups are in natural order, leader before workers.
 */
import type { TreePod } from '../../contract/index.ts';
import { naturalCompare, roleCompare } from '../../lib/format/natural-order.ts';

/** 0 failed, 1 pending (unschedulable, gated, pulling), 2 running but not ready or unknown, 3 fine or finished. */
export function problemRank(p: TreePod): number {
  if (p.phase === 'Failed') return 0;
  if (p.phase === 'Pending') return 1;
  if (p.phase === 'Running') return p.ready ? 3 : 2;
  if (p.phase === 'Succeeded') return 3;
  return 2;
}

/** The role a pod plays, for ordering: its instance, else its component. */
const roleOf = (p: TreePod) => p.instance || p.component || '';

/** Leader before workers, then names in natural order (`-2` before `-10`). */
export function naturalPodOrder(a: TreePod, b: TreePod): number {
  return roleCompare(roleOf(a), roleOf(b)) || naturalCompare(a.name, b.name);
}

/** Problems first, then natural order. */
export function problemsFirst(a: TreePod, b: TreePod): number {
  return problemRank(a) - problemRank(b) || naturalPodOrder(a, b);
}

export interface PodCounts {
  total: number;
  /** Ready pods (of any phase). */
  ready: number;
  running: number;
  /** Running and not ready. */
  notReady: number;
  pending: number;
  succeeded: number;
  failed: number;
  other: number;
  /** The most frequent `why.reason` per bucket, when pods there say one. */
  reasons: { pending?: string; failed?: string; notReady?: string };
}

export function countPods(pods: readonly TreePod[]): PodCounts {
  const c: PodCounts = { total: pods.length, ready: 0, running: 0, notReady: 0, pending: 0, succeeded: 0, failed: 0, other: 0, reasons: {} };
  const tally: Record<'pending' | 'failed' | 'notReady', Map<string, number>> = { pending: new Map(), failed: new Map(), notReady: new Map() };
  const note = (bucket: keyof typeof tally, p: TreePod) => {
    const r = p.why?.reason;
    if (r) tally[bucket].set(r, (tally[bucket].get(r) ?? 0) + 1);
  };
  for (const p of pods) {
    if (p.ready) c.ready++;
    if (p.phase === 'Running') {
      c.running++;
      if (!p.ready) {
        c.notReady++;
        note('notReady', p);
      }
    } else if (p.phase === 'Pending') {
      c.pending++;
      note('pending', p);
    } else if (p.phase === 'Succeeded') c.succeeded++;
    else if (p.phase === 'Failed') {
      c.failed++;
      note('failed', p);
    } else c.other++;
  }
  for (const k of ['pending', 'failed', 'notReady'] as const) {
    let best: [string, number] | null = null;
    for (const e of tally[k]) if (!best || e[1] > best[1] || (e[1] === best[1] && e[0] < best[0])) best = e;
    if (best) c.reasons[k] = best[0];
  }
  return c;
}

export const formatCount = (n: number) => n.toLocaleString('en-US');

/**
 * `1,940 Running · 3 Pending (Unschedulable) · 2 Failed (OOMKilled) · 4 Succeeded`: every phase
 * that has pods; finished pods count as done, never as not ready.
 */
export function histogramText(c: PodCounts): string {
  const parts: string[] = [];
  const add = (n: number, word: string, reason?: string) => {
    if (n > 0) parts.push(`${formatCount(n)} ${word}${reason ? ` (${reason})` : ''}`);
  };
  add(c.running - c.notReady, 'Running');
  add(c.notReady, 'Not ready', c.reasons.notReady);
  add(c.pending, 'Pending', c.reasons.pending);
  add(c.failed, 'Failed', c.reasons.failed);
  add(c.succeeded, 'Succeeded');
  add(c.other, 'Unknown');
  return parts.length ? parts.join(' · ') : 'no pods';
}

export interface Page<T> {
  items: T[];
  /** 0-based, clamped to the pages there are. */
  index: number;
  count: number;
  /** 1-based first and last position shown, 0 when there is nothing. */
  from: number;
  to: number;
  total: number;
}

/** One page of `items`; a page beyond the end (the group shrank) shows the last one. */
export function pageOf<T>(items: readonly T[], index: number, size: number): Page<T> {
  const count = Math.max(1, Math.ceil(items.length / size));
  const i = Math.min(Math.max(0, Math.floor(index)), count - 1);
  const slice = items.slice(i * size, (i + 1) * size);
  return { items: slice, index: i, count, from: slice.length ? i * size + 1 : 0, to: i * size + slice.length, total: items.length };
}

/** Whether a pod matches a search: a substring of its name or its node, case-insensitive. */
export function podMatches(p: TreePod, query: string): boolean {
  if (!query) return true;
  return p.name.toLowerCase().includes(query) || (p.node !== null && p.node.toLowerCase().includes(query));
}
