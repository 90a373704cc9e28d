/** A node's device readings in the order of its devices: by index (numerically), then MIG instance. Pure. */
import type { NodeSummary } from '../../contract/index.ts';

export type NodeReading = NonNullable<NodeSummary['gpuReadings']>[number];

const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : Number.NaN);

function cmp(a: string, b: string): number {
  const x = num(a);
  const y = num(b);
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedReadings(readings: readonly NodeReading[]): NodeReading[] {
  return [...readings].sort((a, b) => cmp(a.gpu, b.gpu) || cmp(a.mig?.instance ?? '', b.mig?.instance ?? '') || cmp(a.uuid, b.uuid));
}
