/** Small helpers the benchmarks share: numeric flags, percentiles and sizes for the printed figures, the simulator process. */
import { spawn, type ChildProcess } from 'node:child_process';

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

/**
 * `wmap sim` in its own process (as a real cluster is), stopped when this process exits; resolves
 * with the kubeconfig it prints once it serves.
 */
export async function startSimProcess(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ sim: ChildProcess; kubeconfig: string; prometheus: string | null }> {
  const sim = spawn(process.execPath, ['bin/wmap.cjs', 'sim', ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
  process.on('exit', () => sim.kill('SIGTERM'));
  let out = '';
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    sim.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^kubeconfig: (.+)$/m.exec(out);
      if (m) resolve(m[1].trim());
    });
    sim.on('exit', (code) => reject(new Error(`wmap sim exited with ${code}`)));
  });
  return { sim, kubeconfig, prometheus: /^prometheus: (.+)$/m.exec(out)?.[1].trim() ?? null };
}
