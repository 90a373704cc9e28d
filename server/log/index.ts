/**
 * Structured logging for every server-side module (the live server, the cluster layer, the
 * simulated cluster, the CLI's long-running commands). One root logger per process, a child per
 * component (`logger('cluster')`), each line carrying the component and whatever the caller binds
 * (`cluster`, `kind`, ...).
 *
 * Format: JSON lines (one object per line, for log collectors) unless stderr is a terminal, where the
 * lines are rendered for people. `WMAP_LOG_FORMAT=json|pretty` and `WMAP_LOG_LEVEL` (trace, debug,
 * info, warn, error, fatal, silent) override. Logs go to stderr so that a command's stdout stays
 * its output.
 */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };
export type LogFormat = 'json' | 'pretty';

const LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

export interface LoggerOptions {
  level?: string;
  format?: LogFormat;
  /** Where lines go; stderr by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

function levelOf(value: string | undefined): LevelWithSilent {
  const v = (value ?? '').trim().toLowerCase();
  return (LEVELS.includes(v) ? v : 'info') as LevelWithSilent;
}

function formatOf(value: string | undefined): LogFormat {
  if (value === 'json' || value === 'pretty') return value;
  return process.stderr.isTTY ? 'pretty' : 'json';
}

/** A root logger; most code wants `logger(component)` instead. */
export function createLogger(o: LoggerOptions = {}): Logger {
  const level = levelOf(o.level ?? process.env.WMAP_LOG_LEVEL);
  const format = o.format ?? formatOf(process.env.WMAP_LOG_FORMAT);
  // pino-pretty as a plain stream, not a transport: transports run in worker threads, which the
  // Next.js server bundle cannot start, and a synchronous stream keeps the order with stderr.
  const destination =
    o.destination ??
    (format === 'pretty'
      ? pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' })
      : pino.destination({ dest: 2, sync: true }));
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

// One per process: Next bundles route handlers apart from the custom server, so the root lives on
// globalThis like the runtime (server/workloads/runtime.ts).
const KEY = Symbol.for('workload-map.logger');
type WithLogger = typeof globalThis & { [KEY]?: Logger };

function root(): Logger {
  const g = globalThis as WithLogger;
  g[KEY] ??= createLogger();
  return g[KEY];
}

/** The logger of one component, e.g. `logger('cluster').child({ cluster: 'prod' })`. */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return root().child({ component, ...bindings });
}

const SET = Symbol.for('workload-map.logger.set');
type WithSetMark = typeof globalThis & { [SET]?: boolean };

/** Replaces the process's root logger (the CLI's `--log-level`, tests). */
export function setRootLogger(l: Logger): void {
  (globalThis as WithLogger)[KEY] = l;
  (globalThis as WithSetMark)[SET] = true;
}

/** Whether the root logger was chosen on purpose (setRootLogger), not made by default on first use. */
export function rootLoggerWasSet(): boolean {
  return (globalThis as WithSetMark)[SET] === true;
}
