/** GPU resource names and amounts as the table and the workload page show them. */
import type { GpuAmounts } from '../../contract/index.ts';
import { formatGpus } from '../../lib/format/gpus.ts';

export interface GpuResourceInfo {
  resource: string;
  amount: number;
  /** Short name for people: `GPU`, `MIG 1g.5gb`, `shared GPU`, `AMD GPU`. */
  label: string;
  mig: boolean;
}

export function describeResource(resource: string): { label: string; mig: boolean } {
  const mig = /^nvidia\.com\/mig-(.+)$/.exec(resource);
  if (mig) return { label: `MIG ${mig[1]}`, mig: true };
  if (resource === 'nvidia.com/gpu') return { label: 'GPU', mig: false };
  if (resource === 'nvidia.com/gpu.shared') return { label: 'shared GPU', mig: false };
  if (resource === 'amd.com/gpu') return { label: 'AMD GPU', mig: false };
  const intel = /^gpu\.intel\.com\/(.+)$/.exec(resource);
  if (intel) return { label: `Intel GPU (${intel[1]})`, mig: false };
  return { label: resource, mig: false };
}

export function gpuResources(amounts: GpuAmounts | undefined): GpuResourceInfo[] {
  if (!amounts) return [];
  return Object.entries(amounts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([resource, amount]) => ({ resource, amount, ...describeResource(resource) }));
}

/** `4 nvidia.com/gpu, 2 nvidia.com/mig-1g.5gb` — the resource names, for hovers. */
export function amountsText(amounts: GpuAmounts | undefined): string {
  const list = gpuResources(amounts);
  return list.length ? list.map((r) => `${formatGpus(r.amount)} ${r.resource}`).join(', ') : 'none';
}

/** The MIG profiles among some amounts (`["1g.5gb"]`), empty when there are none. */
export function migProfiles(...all: Array<GpuAmounts | undefined>): string[] {
  const out = new Set<string>();
  for (const a of all) for (const r of gpuResources(a)) if (r.mig) out.add(r.label.slice(4));
  return [...out].sort();
}

export function sumAmounts(a: GpuAmounts | undefined): number {
  let t = 0;
  if (a) for (const v of Object.values(a)) t += v;
  return t;
}
