/**
 * The CLI's terminal: stdout and stderr as an Io, and the wait for Ctrl-C. Its own small module so
 * that `wmap --version`'s fast path (bin/cli-run.cjs, through dist/cli/version.cjs) writes exactly
 * as every other command does.
 */
import type { Io } from './errors.ts';

export function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => resolve();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/**
 * A reader that stops early (`wmap get workloads -A | head`) closes the pipe: like kubectl, which
 * dies quietly of SIGPIPE, the command ends there without a stack trace (exit 0, the reader has what
 * it wanted). Any other failure to write is reported.
 */
const guarded = new WeakSet<NodeJS.WriteStream>();
function quietOnClosedPipe(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (!guarded.has(stream)) {
    guarded.add(stream);
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      process.stderr.write(`wmap: cannot write the output: ${e.message}\n`);
      process.exit(1);
    });
  }
  return stream;
}

export const terminalIo: Io = {
  out: (s) => quietOnClosedPipe(process.stdout).write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  interrupted: waitForSignal,
};
