/**
 * A workload's utilization over the last hour, per role, from the cluster's Prometheus: one range
 * query for the workload's GPU pods (asked when the page is open, never per refresh), averaged per
 * role and step weighted by devices' worth as the current figures are.
 */
import type { UsageHistory } from '../../contract/index.ts';
import type { PodRef, PodSeries } from '../usage/index.ts';
import type { GpuHolder } from './usage-join.ts';

export interface HistorySource {
  history: boolean;
  reasonWithout: string;
  range(pods: readonly PodRef[], start: number, end: number, stepSeconds: number): Promise<Map<string, PodSeries> | null>;
}

/** Points per chart: an hour at 30-second steps. */
const MAX_POINTS = 240;

export async function usageHistory(holders: readonly GpuHolder[], src: HistorySource, now: number, rangeSeconds = 3600, minStepSeconds = 30): Promise<UsageHistory> {
  const end = Math.floor(now / 1000);
  const step = Math.max(minStepSeconds, Math.ceil(rangeSeconds / MAX_POINTS));
  // Aligned to the step, so that two pages opened a few seconds apart show the same points.
  const start = Math.floor((end - rangeSeconds) / step) * step;
  const empty: UsageHistory = { available: false, reason: src.reasonWithout, start, end, stepSeconds: step, series: [] };
  if (!src.history) return empty;
  if (holders.length === 0) return { ...empty, available: true, reason: null };
  const pods = holders.map((h) => {
    const i = h.key.indexOf('/');
    return { namespace: h.key.slice(0, i), pod: h.key.slice(i + 1) };
  });
  const series = await src.range(pods, start, end, step);
  if (!series) return empty;
  const byRole = new Map<string, Map<number, { sum: number; weight: number }>>();
  for (const h of holders) {
    const podSeries = series.get(h.key);
    if (!podSeries || podSeries.size === 0) continue;
    const weight = h.worth / podSeries.size;
    const role = h.role ?? 'pods';
    let points = byRole.get(role);
    if (!points) byRole.set(role, (points = new Map()));
    for (const values of podSeries.values()) {
      for (const [t, v] of values) {
        const p = points.get(t) ?? { sum: 0, weight: 0 };
        p.sum += v * weight;
        p.weight += weight;
        points.set(t, p);
      }
    }
  }
  const order = [...new Set(holders.map((h) => h.role ?? 'pods'))];
  return {
    available: true,
    reason: null,
    start,
    end,
    stepSeconds: step,
    series: order.map((role) => {
      const points = byRole.get(role);
      const out: Array<[number, number | null]> = [];
      // Every step is present: a gap (no readings then) is null, drawn as a gap, never as 0.
      for (let t = start; t <= end; t += step) {
        const p = points?.get(t);
        out.push([t, p && p.weight > 0 ? Math.round((p.sum / p.weight) * 10) / 10 : null]);
      }
      return { role, points: out };
    }),
  };
}
