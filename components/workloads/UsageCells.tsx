/**
 * The table's utilization cells: a bar and percent, GPU memory used/total, idle GPUs and for how
 * long. A row without allocated GPUs shows a dash; a figure without readings a greyed "n/a" whose
 * title says why (never 0).
 */
import type { ClusterUsage, RowUsage, WorkloadRow } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';
import { formatMemory, formatPercent } from '../../lib/rows/index.ts';
import { UtilBar } from '../usage/UtilBar.tsx';
import { idleForText, naReason, SOURCE_LABEL } from '../usage/usage-text.ts';

const NO_GPUS = 'Holds no allocated GPUs';

function NoGpus() {
  return (
    <div role="gridcell" className="text-right text-slate-500 dark:text-slate-400" title={NO_GPUS} aria-label={NO_GPUS}>
      —
    </div>
  );
}

function NotAvailable({ why }: { why: string }) {
  return (
    <div role="gridcell" className="text-right text-slate-500 dark:text-slate-400" title={why} data-testid="util-na">
      n/a
    </div>
  );
}

function measuredText(u: RowUsage): string {
  const of = u.measured < u.allocated ? `${formatGpus(u.measured)} of ${formatGpus(u.allocated)} allocated GPUs (the others have no readings)` : `${formatGpus(u.allocated)} allocated GPUs`;
  return `${of}; source ${SOURCE_LABEL[u.source]}${u.at ? `, read at ${new Date(u.at).toLocaleTimeString()}` : ''}`;
}

export function UtilCell({ row, cluster }: { row: WorkloadRow; cluster?: ClusterUsage }) {
  const u = row.usage;
  if (!u) return <NoGpus />;
  const why = naReason(u, cluster);
  return (
    <div role="gridcell" className="min-w-0 text-right" data-testid="cell-util">
      <UtilBar utilization={u.utilization} naTitle={why} label="Utilization" title={u.utilization === null ? undefined : `${formatPercent(u.utilization)} average utilization over ${measuredText(u)}`} />
    </div>
  );
}

export function MemoryCell({ row, cluster }: { row: WorkloadRow; cluster?: ClusterUsage }) {
  const u = row.usage;
  if (!u) return <NoGpus />;
  if (!u.memory) return <NotAvailable why={naReason(u, cluster)} />;
  const pct = u.memory.totalBytes > 0 ? ` (${formatPercent((u.memory.usedBytes / u.memory.totalBytes) * 100)})` : '';
  return (
    <div role="gridcell" className="truncate text-right tabular-nums text-slate-700 dark:text-slate-200" title={`GPU memory used / total over the GPUs with readings${pct}`} data-testid="cell-memory">
      {formatMemory(u.memory)}
    </div>
  );
}

export function IdleCell({ row, cluster, now }: { row: WorkloadRow; cluster?: ClusterUsage; now: number }) {
  const u = row.usage;
  if (!u) return <NoGpus />;
  if (u.idle === null) {
    const why = u.pods.withMetrics === 0 || u.source === 'none' ? naReason(u, cluster) : 'Not known yet: a GPU is idle once it stays below the idle threshold for the whole idle window';
    return <NotAvailable why={why} />;
  }
  if (u.idle === 0) {
    return (
      <div role="gridcell" className="text-right tabular-nums text-slate-500 dark:text-slate-400" title="No idle GPU" data-testid="cell-idle">
        0
      </div>
    );
  }
  const since = idleForText(u.idleSince, now);
  const text = `${formatGpus(u.idle)} idle GPU${u.idle === 1 ? '' : 's'}${since ? ` ${since}` : ''}`;
  return (
    // Named by its content (the count, "idle GPUs" for screen readers, the time), so the name holds what is seen.
    <div role="gridcell" className="flex items-center justify-end gap-1 tabular-nums" title={`${text}${u.idleSince ? ` (since ${new Date(u.idleSince).toLocaleTimeString()})` : ''}`} data-testid="cell-idle">
      <span className="rounded bg-amber-100 px-1 font-semibold text-amber-800 dark:bg-amber-950 dark:text-amber-300">{formatGpus(u.idle)}</span>
      <span className="sr-only"> idle GPU{u.idle === 1 ? '' : 's'} </span>
      {since && <span className="truncate text-xs text-amber-700 dark:text-amber-400">{since}</span>}
    </div>
  );
}
