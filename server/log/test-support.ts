/** For tests: the process's log lines, captured as parsed JSON records. */
import { Writable } from 'node:stream';
import { createLogger, setRootLogger } from './index.ts';

export interface LogCapture {
  /** Every line written so far, parsed. */
  records(): Array<Record<string, unknown>>;
  /** Puts a default root logger back. */
  restore(): void;
}

/** A JSON sink for `createLogger`, read back as records. */
export function logSink(): { stream: Writable; records(): Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, records: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** Routes the root logger (what `logger(component)` children write to) into a capture. */
export function captureLogs(level = 'info'): LogCapture {
  const sink = logSink();
  setRootLogger(createLogger({ level, format: 'json', destination: sink.stream }));
  return { records: sink.records, restore: () => setRootLogger(createLogger()) };
}
