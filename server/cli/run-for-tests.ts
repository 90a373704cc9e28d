/** For the CLI's tests: `wmap ARGS` in-process, with what it printed on stdout and stderr. */
import { main } from './main.ts';

export async function runWmap(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
