/** GPU amounts for people, the same in the dashboard and the CLI. Pure. */

/** GPU amounts can be fractional (shared GPUs); at most two decimals, no trailing zeros. */
export function formatGpus(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Math.round(n * 100) / 100);
}
