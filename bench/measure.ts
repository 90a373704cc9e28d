/** Small helpers the benchmarks share: numeric flags, percentiles and sizes for the printed figures. */

/** `--name N` from the command line, or `dflt`. */
export function numberArg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

/** The p-th percentile (nearest rank) of `xs`; NaN when there is nothing to measure. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
