/** GPU amounts for people, the same in the dashboard and the CLI. Pure. */

/** GPU amounts can be fractional (shared GPUs); at most two decimals, no trailing zeros. */
export function formatGpus(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Math.round(n * 100) / 100);
}

/** `2 × 1g.10gb`, `8 × GPU + 2 × 1g.10gb`: raw counts per resource, MIG profiles by name. */
export function gpuBreakdown(byResource: Record<string, number>): string {
  const parts = Object.entries(byResource)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([resource, n]) => {
      const mig = /^nvidia\.com\/mig-(.+)$/.exec(resource);
      const name = mig ? mig[1] : resource === 'nvidia.com/gpu' ? 'GPU' : resource === 'nvidia.com/gpu.shared' ? 'shared GPU' : resource;
      return `${formatGpus(n)} × ${name}`;
    });
  return parts.join(' + ');
}
