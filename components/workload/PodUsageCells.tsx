import type { UsageSourceKind, WorkloadUsage } from '../../contract/index.ts';
import { formatMemory } from '../../lib/rows/index.ts';
import { UtilBar } from '../usage/UtilBar.tsx';
import { gpuReadingLine, idleForText, naReason } from '../usage/usage-text.ts';

/**
 * A pod's utilization cells in the pods list: percent and bar (its GPUs one per line in the title),
 * memory used/total, an idle badge. A pod holding no allocated GPU shows dashes.
 */
export function PodUsageCells({ entry, source, now }: { entry: WorkloadUsage['pods'][string] | undefined; source: UsageSourceKind; now: number }) {
  if (!entry) {
    return (
      <>
        {[0, 1, 2].map((i) => (
          <div key={i} role="cell" className="text-slate-500 dark:text-slate-400" title="Holds no allocated GPU">
            —
          </div>
        ))}
      </>
    );
  }
  const f = entry.figures;
  const why = naReason({ source, pods: f.pods });
  const perGpu = entry.gpus.map((g) => gpuReadingLine(g, now)).join('\n');
  const since = idleForText(f.idleSince, now);
  return (
    <>
      <div role="cell" className="min-w-0 pr-2" title={perGpu || why} data-testid="pod-util">
        <UtilBar utilization={f.utilization} naTitle={perGpu || why} label="Pod utilization" title={perGpu} />
      </div>
      <div role="cell" className="truncate tabular-nums" title={f.memory ? undefined : why}>
        {f.memory ? formatMemory(f.memory) : <span className="text-slate-500 dark:text-slate-400">n/a</span>}
      </div>
      <div role="cell" className="truncate">
        {f.idle === null ? (
          <span className="text-slate-500 dark:text-slate-400" title="Idle state not known yet">
            n/a
          </span>
        ) : f.idle > 0 ? (
          <span className="rounded bg-amber-100 px-1 font-semibold text-amber-800 dark:bg-amber-950 dark:text-amber-300" title={`Idle ${since}`.trim()} data-testid="pod-idle">
            idle{since ? ` ${since.replace(/^for /, '')}` : ''}
          </span>
        ) : (
          <span className="text-slate-600 dark:text-slate-400">no</span>
        )}
      </div>
    </>
  );
}
