import type { WorkloadRow } from '../../contract/index.ts';
import { formatGpus, gpuBreakdown } from '../../lib/format/gpus.ts';
import { migProfiles } from './format.ts';

/**
 * allocated / requested / desired with a small bar: solid = allocated, striped = requested but not
 * allocated (waiting), track = desired. Resource names on hover; MIG slices are labelled as such.
 */
export function GpuCell({ gpus }: { gpus: WorkloadRow['gpus'] }) {
  const { allocated, requested, desired, byResource } = gpus;
  // Unknown is shown as unknown, never as 0: a workload no definition describes asks for an unknown
  // amount; while pods cannot be read, what they request and hold is unknown.
  const isUnknown = (f: 'allocated' | 'requested' | 'desired') => gpus.unknown.includes(f);
  const text = (f: 'allocated' | 'requested' | 'desired', n: number) => (isUnknown(f) ? '?' : formatGpus(n));
  const known = (f: 'allocated' | 'requested' | 'desired', n: number) => (isUnknown(f) ? 0 : n);
  const desiredText = text('desired', desired);
  const scale = Math.max(known('allocated', allocated), known('requested', requested), known('desired', desired));
  const mig = migProfiles(byResource.allocated, byResource.requested, byResource.desired);
  const line = (f: 'allocated' | 'requested' | 'desired', amounts: Record<string, number>) => {
    if (isUnknown(f)) return `${f}: unknown (${f === 'desired' ? 'no definition says what this workload asks for' : 'its pods cannot be read'})`;
    const apart = gpus.apart?.[f];
    const breakdown = gpuBreakdown(amounts);
    return `${f}: ${formatGpus(gpus[f])} GPUs${breakdown && breakdown !== `${formatGpus(gpus[f])} × GPU` ? ` = ${breakdown}` : ''}${apart ? `; not counted: ${gpuBreakdown(apart)} (the node does not say how many replicas share a GPU)` : ''}`;
  };
  const title = [
    line('allocated', byResource.allocated),
    line('requested', byResource.requested),
    line('desired', byResource.desired),
    ...(mig.length ? ['A MIG slice counts as its share of a GPU (1g.10gb = 1/7, 3g.40gb = 3/7; on an A30 quarters).'] : []),
  ].join('\n');
  const pct = (n: number) => `${scale > 0 ? (n / scale) * 100 : 0}%`;
  return (
    <div className="flex w-full flex-col justify-center gap-1" title={title}>
      <div className="flex items-baseline gap-1 tabular-nums">
        <span className="font-semibold">{text('allocated', allocated)}</span>
        <span className="text-xs text-slate-500 dark:text-slate-400">
          / {text('requested', requested)} / <span data-testid="gpus-desired">{desiredText}</span>
        </span>
        {mig.length > 0 && (
          <span className="ml-auto rounded bg-lime-100 px-1 text-[10px] font-semibold text-lime-800 dark:bg-lime-950 dark:text-lime-300" title={`MIG slices: ${mig.join(', ')}`}>
            {mig.length === 1 && Object.keys(byResource.allocated).length <= 1 && byResource.allocated[`nvidia.com/mig-${mig[0]}`] ? `${formatGpus(byResource.allocated[`nvidia.com/mig-${mig[0]}`])} × ${mig[0]}` : 'MIG'}
          </span>
        )}
        <span className="sr-only">
          GPUs: {text('allocated', allocated)} allocated, {text('requested', requested)} requested, {desiredText} desired{mig.length ? `, MIG ${mig.join(', ')}` : ''}
        </span>
      </div>
      <div className="relative h-1.5 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700" aria-hidden="true">
        {known('requested', requested) > known('allocated', allocated) && (
          <div
            className="absolute inset-y-0 left-0 bg-[repeating-linear-gradient(45deg,var(--color-amber-500)_0_3px,transparent_3px_6px)]"
            style={{ width: pct(requested) }}
          />
        )}
        <div className="absolute inset-y-0 left-0 rounded-full bg-emerald-500" style={{ width: pct(known('allocated', allocated)) }} />
      </div>
    </div>
  );
}
