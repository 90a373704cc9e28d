'use client';

import { useMemo } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { UsageHistory } from '../../contract/index.ts';
import { formatPercent } from '../../lib/rows/index.ts';
import { clockTime } from '../live/connection-label.ts';
import { clockMinutes, historyChartData } from './history-series.ts';

// One colour per role, distinct in both themes.
const COLORS = ['#0ea5e9', '#8b5cf6', '#10b981', '#f59e0b', '#ef4444', '#ec4899', '#14b8a6', '#64748b'];

/**
 * Utilization per role over the last hour, one line per role; steps without readings are gaps (never
 * drawn as 0). The idle threshold is a dashed line. A per-role summary (last value, average) follows
 * as text, for readers who cannot see the chart.
 */
export function UsageHistoryChart({ history, idleThresholdPercent }: { history: UsageHistory; idleThresholdPercent: number }) {
  const data = useMemo(() => historyChartData(history), [history]);
  if (data.lines.length === 0) return <p className="text-slate-500 dark:text-slate-400">No GPU pod of this workload has readings in the last hour.</p>;
  return (
    <figure className="flex flex-col gap-2" data-testid="usage-history">
      <div className="text-slate-500 dark:text-slate-400" role="img" aria-label={`Utilization per role over the last hour: ${data.lines.map((l) => `${l.role} now ${formatPercent(l.last)}, average ${formatPercent(l.average)}`).join('; ')}`}>
        <LineChart responsive style={{ width: '100%', height: 220 }} data={data.records} margin={{ top: 8, right: 16, bottom: 0, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.2} />
          <XAxis dataKey="t" type="number" scale="time" domain={[history.start * 1000, history.end * 1000]} tickFormatter={clockMinutes} tick={{ fill: 'currentColor', fontSize: 11 }} stroke="currentColor" minTickGap={24} />
          <YAxis domain={[0, 100]} ticks={[0, 25, 50, 75, 100]} unit="%" width={44} tick={{ fill: 'currentColor', fontSize: 11 }} stroke="currentColor" />
          <Tooltip
            labelFormatter={(t) => clockTime(Number(t))}
            formatter={(v) => (typeof v === 'number' ? formatPercent(v) : 'n/a')}
            contentStyle={{ fontSize: 12, borderRadius: 6 }}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <ReferenceLine y={idleThresholdPercent} stroke="#f59e0b" strokeDasharray="4 4" ifOverflow="extendDomain" />
          {data.lines.map((l, i) => (
            <Line key={l.key} dataKey={l.key} name={l.role} stroke={COLORS[i % COLORS.length]} strokeWidth={2} dot={false} type="linear" connectNulls={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </div>
      <figcaption className="flex flex-wrap gap-x-4 text-xs text-slate-600 dark:text-slate-300" data-testid="usage-history-summary">
        {data.lines.map((l, i) => (
          <span key={l.key} data-role={l.role}>
            <span className="mr-1 inline-block h-2 w-2 rounded-full align-middle" style={{ backgroundColor: COLORS[i % COLORS.length] }} aria-hidden="true" />
            {l.role}: now {formatPercent(l.last)}, hour average {formatPercent(l.average)}
          </span>
        ))}
        <span className="text-slate-500 dark:text-slate-400">dashed: idle threshold {idleThresholdPercent} %; gaps: no readings</span>
      </figcaption>
    </figure>
  );
}
