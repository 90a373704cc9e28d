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

/** pino's levels and their numbers: a line is written when its level's number is at least the logger's. */
const LEVEL_VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

export interface LoggerOptions {
  level?: string;
  format?: LogFormat;
  /** Where lines go; stderr by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
}

function levelOf(value: string | undefined): LevelWithSilent {
  const v = (value ?? '').trim().toLowerCase();
  return (Object.hasOwn(LEVEL_VALUES, v) ? v : 'info') as LevelWithSilent;
}

function formatOf(value: string | undefined): LogFormat {
  if (value === 'json' || value === 'pretty') return value;
  return process.stderr.isTTY ? 'pretty' : 'json';
}

/** The level a root logger made with these options has. */
function rootLevel(o: LoggerOptions = {}): LevelWithSilent {
  return levelOf(o.level ?? process.env.WMAP_LOG_LEVEL);
}

/** A root logger; most code wants `logger(component)` instead. */
export function createLogger(o: LoggerOptions = {}): Logger {
  const level = rootLevel(o);
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
const DEFAULTS = Symbol.for('workload-map.logger.defaults');
type WithLogger = typeof globalThis & { [KEY]?: Logger; [DEFAULTS]?: LoggerOptions };

function root(): Logger {
  const g = globalThis as WithLogger;
  g[KEY] ??= createLogger(g[DEFAULTS]);
  return g[KEY];
}

const noop = (): void => undefined;

/**
 * A logger that makes its pino logger only when it has to: on a line at a level the root logger
 * will write, or on any other use (its level, a flush, …). Until then lines below the level cost
 * nothing, and a one-shot command that writes none never loads pino (the compiled CLI loads it on
 * first use, scripts/build-cli.mjs). Once a root logger exists, `logger()` gives real ones.
 */
function deferredLogger(make: () => Logger): Logger {
  let real: Logger | undefined;
  const materialize = (): Logger => (real ??= make());
  const handler: ProxyHandler<object> = {
    get(_target, key) {
      if (!real && (globalThis as WithLogger)[KEY] === undefined) {
        if (key === 'child') return (bindings: Record<string, unknown>, options?: object) => deferredLogger(() => materialize().child(bindings, options));
        const value = typeof key === 'string' ? LEVEL_VALUES[key] : undefined;
        if (value !== undefined && key !== 'silent' && value < LEVEL_VALUES[rootLevel((globalThis as WithLogger)[DEFAULTS])]) return noop;
      }
      const l = materialize();
      const v: unknown = Reflect.get(l, key, l);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(l) : v;
    },
    has: (_target, key) => Reflect.has(materialize(), key),
    set: (_target, key, value) => Reflect.set(materialize(), key, value),
  };
  return new Proxy({}, handler) as Logger;
}

/** The logger of one component, e.g. `logger('cluster').child({ cluster: 'prod' })`. */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  const made = (globalThis as WithLogger)[KEY];
  if (made) return made.child({ component, ...bindings });
  return deferredLogger(() => root().child({ component, ...bindings }));
}

/**
 * The options the root logger is made with when it is first needed (a one-shot command's quieter
 * level), replacing a root made by default before; one set on purpose (setRootLogger) is kept.
 */
export function setRootDefaults(o: LoggerOptions): void {
  const g = globalThis as WithLogger;
  g[DEFAULTS] = o;
  if (!rootLoggerWasSet()) g[KEY] = undefined;
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
