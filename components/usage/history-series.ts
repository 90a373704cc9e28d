/**
 * `GET …/usage/history` in the shape a line chart draws: one record per step with a value per role
 * (null where there were no readings: drawn as a gap, never as 0). Pure.
 */
import type { UsageHistory } from '../../contract/index.ts';

export interface HistoryLine {
  /** The record key of this role's values (`r0`, `r1`…): role names may be anything, even `t`. */
  key: string;
  role: string;
  /** The last value with data, and the average over the points with data; null when it has none. */
  last: number | null;
  average: number | null;
}

export interface HistoryChartData {
  /** `t` in epoch milliseconds. */
  records: Array<Record<string, number | null> & { t: number }>;
  lines: HistoryLine[];
}

export function historyChartData(h: UsageHistory): HistoryChartData {
  const lines: HistoryLine[] = h.series.map((s, i) => {
    const values = s.points.map(([, v]) => v).filter((v): v is number => v !== null);
    return {
      key: `r${i}`,
      role: s.role,
      last: values.length ? values[values.length - 1] : null,
      average: values.length ? Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10 : null,
    };
  });
  const byTime = new Map<number, Record<string, number | null> & { t: number }>();
  h.series.forEach((s, i) => {
    for (const [t, v] of s.points) {
      let rec = byTime.get(t);
      if (!rec) byTime.set(t, (rec = { t: t * 1000 }));
      rec[`r${i}`] = v;
    }
  });
  const records = [...byTime.values()].sort((a, b) => a.t - b.t);
  // A step a role has no point for is a gap too.
  for (const rec of records) for (const l of lines) if (!(l.key in rec)) rec[l.key] = null;
  return { records, lines };
}

/** `HH:MM` in local time, for the time axis. */
export function clockMinutes(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}
