import type { ClusterUsage, NodeSummary } from '../../contract/index.ts';
import { formatMemory, formatPercent } from '../../lib/rows/index.ts';
import { gpuReadingLine, SOURCE_LABEL, utilTone, type UtilTone } from '../usage/usage-text.ts';
import { sortedReadings } from './gpu-readings.ts';

const CELL: Record<UtilTone, string> = {
  na: 'border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-900',
  under: 'border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/50',
  ok: 'border-emerald-300 bg-emerald-50 dark:border-emerald-800 dark:bg-emerald-950/50',
  saturated: 'border-violet-300 bg-violet-50 dark:border-violet-800 dark:bg-violet-950/50',
};
const FILL: Record<UtilTone, string> = { na: '', under: 'bg-amber-500', ok: 'bg-emerald-500', saturated: 'bg-violet-500' };

/** Why a node has no readings, for people. */
function noReadingsWhy(node: NodeSummary, usage: ClusterUsage | undefined): string {
  if (!usage) return `utilization is switched off for cluster ${node.cluster}`;
  if (usage.source === 'none') return `cluster ${node.cluster} has no utilization source${usage.detail ? ` (${usage.detail})` : ''}`;
  return `no readings for this node (source: ${SOURCE_LABEL[usage.source]})`;
}

/**
 * One cell per device (or MIG instance) a node's exporter reports: utilization, memory, the MIG
 * profile, the pod holding it and an idle mark. "n/a" for the whole node when it has no readings.
 */
export function NodeGpuGrid({ node, usage, now }: { node: NodeSummary; usage: ClusterUsage | undefined; now: number }) {
  if (node.gpuReadings === null) {
    const why = noReadingsWhy(node, usage);
    return (
      <p className="text-xs text-slate-500 dark:text-slate-400" title={why} data-testid="node-gpus-na">
        GPU utilization n/a: {why}
      </p>
    );
  }
  if (node.gpuReadings.length === 0) return <p className="text-xs text-slate-500 dark:text-slate-400">The exporter reports no GPU on this node.</p>;
  return (
    <ul className="flex flex-wrap gap-1.5" aria-label={`GPUs of ${node.name}`} data-testid="node-gpus">
      {sortedReadings(node.gpuReadings).map((g) => {
        const tone = g.pod ? utilTone(g.utilization) : 'na';
        const name = `GPU ${g.gpu}${g.mig ? ` ${g.mig.profile}` : ''}`;
        const line = `${gpuReadingLine(g, now)}${g.pod ? ` · pod ${g.pod}` : ' · free'}`;
        const idle = g.pod !== null && g.idle === true;
        return (
          <li
            key={`${g.uuid}/${g.mig?.instance ?? ''}`}
            className={`flex w-28 flex-col gap-0.5 rounded border px-1.5 py-1 text-[11px] ${CELL[tone]} ${g.pod ? '' : 'border-dashed'}`}
            title={line}
            aria-label={line}
            data-testid="gpu-cell"
            data-gpu={g.gpu}
            data-idle={idle}
          >
            <span className="flex items-center gap-1">
              <span className="truncate font-mono font-medium">{name}</span>
              {idle && <span className="ml-auto shrink-0 rounded bg-amber-700 px-1 text-[9px] font-semibold text-white">idle</span>}
            </span>
            <span className="flex items-center gap-1 tabular-nums">
              <span className={g.utilization === null ? 'text-slate-500 dark:text-slate-400' : 'font-semibold'}>{formatPercent(g.utilization)}</span>
              <span className="relative h-1 flex-1 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700" aria-hidden="true">
                {g.utilization !== null && <span className={`absolute inset-y-0 left-0 ${FILL[tone] || 'bg-slate-400'}`} style={{ width: `${Math.min(100, g.utilization)}%` }} />}
              </span>
            </span>
            <span className="tabular-nums text-slate-600 dark:text-slate-300">{formatMemory(g.memory)}</span>
            <span className={`truncate ${g.pod ? '' : 'text-slate-600 dark:text-slate-400'}`}>{g.pod ? g.pod.slice(g.pod.indexOf('/') + 1) : 'free'}</span>
          </li>
        );
      })}
    </ul>
  );
}
