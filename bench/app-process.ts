/**
 * What the browser benchmarks share for running the app: command-line flags, a free loopback port,
 * child processes (the server, the simulated cluster) stopped when the benchmark exits, and polling
 * until something is up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export const ROOT = new URL('..', import.meta.url).pathname;

const argv = process.argv.slice(2);
/** `--name value`, or the default. */
export const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
/** `--url` given: measure an app that is already running. */
export const GIVEN_URL = argv.includes('--url') ? arg('url', '') : null;

const children: ChildProcess[] = [];
/** Stops every child still running (also on exit and on SIGINT / SIGTERM). */
export function cleanup(): void {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(1));

export function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => ok(p));
    });
  });
}

/** `node ARGS` in the repository, its errors echoed, stopped by cleanup(). */
export function run(args: string[], env: Record<string, string> = {}): ChildProcess {
  const c = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  c.stdout?.resume();
  c.stderr?.on('data', (d: Buffer) => {
    const s = d.toString();
    if (/error/i.test(s)) process.stderr.write(`  [server] ${s}`);
  });
  children.push(c);
  return c;
}

/** Polls `fn` every `everyMs` until it gives a value (a throw is "not up yet"), at most `ms`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | null>, ms: number, everyMs = 500): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v !== null) return v;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
