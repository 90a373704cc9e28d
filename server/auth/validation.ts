/**
 * Definition validation (`POST /api/definitions/validate`) is the one request whose cost the
 * client chooses: it parses YAML and compiles expressions from the request body. It runs in a
 * worker pool with a heap, a stack and a time limit, never on the server's thread, and a
 * validation that exceeds a limit is a 4xx naming the limit. The custom server starts the pool and
 * publishes it (validator-registry.ts) for the route handler.
 */
import type { ValidateResult } from '../../contract/index.ts';
import type { Validator } from './validator-registry.ts';
import { WorkerPool, type Outcome, type WorkerLimits } from './worker-pool.ts';
import { problem, type RequestProblem } from './problem.ts';
import { setJobRunner, type JobRunner } from './job-registry.ts';

export const VALIDATION_LIMITS: WorkerLimits = { timeMs: 5_000, maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

export interface ValidatorOptions {
  /** Absolute path of the module whose export validates a definition text (server/workloads/views.ts). */
  module: string;
  exportName?: string;
  limits?: Partial<WorkerLimits>;
  size?: number;
  maxQueue?: number;
}

/** What a failed job tells the client: the limit it hit, as a 422 (a 503 when the server is busy or has no worker). */
export function answerOf<T = ValidateResult>(o: Outcome<T>, limits: WorkerLimits, what = 'validation'): { ok: true; result: T } | { ok: false; problem: RequestProblem } {
  if (o.ok) return { ok: true, result: o.value };
  const What = `${what[0].toUpperCase()}${what.slice(1)}`;
  const seconds = `${limits.timeMs / 1000} s`;
  switch (o.limit) {
    case 'time':
      return { ok: false, problem: problem(422, 'time_limit_exceeded', `${what} ran longer than its time limit (${seconds}) and was stopped`) };
    case 'memory':
      return { ok: false, problem: problem(422, 'memory_limit_exceeded', `${what} needed more memory than its limit (${limits.maxOldGenerationSizeMb} MiB) and was stopped`) };
    case 'stack':
      return { ok: false, problem: problem(422, 'nesting_limit_exceeded', `the definition nests too deeply for ${what} (stack limit exceeded)`) };
    case 'queue':
      return { ok: false, problem: problem(503, 'busy', `too many ${what} jobs are running; try again shortly (${o.message})`) };
    case 'aborted':
      return { ok: false, problem: problem(499, 'aborted', 'the request was aborted') };
    case 'unavailable':
      return { ok: false, problem: problem(503, what === 'validation' ? 'validator_unavailable' : 'unavailable', `${What} is unavailable: ${o.message}`) };
    case 'error':
      if (/alias/i.test(o.message)) return { ok: false, problem: problem(422, 'alias_limit_exceeded', `the YAML expands too many aliases (alias limit exceeded): ${o.message}`) };
      return { ok: false, problem: problem(422, what === 'validation' ? 'validation_failed' : 'job_failed', `${what === 'validation' ? 'the definition could not be validated' : `${What} failed`}: ${o.message}`) };
  }
}

export function startValidator(o: ValidatorOptions): Validator {
  const limits = { ...VALIDATION_LIMITS, ...o.limits };
  const pool = new WorkerPool<string, ValidateResult>({ module: o.module, exportName: o.exportName ?? 'validateDefinitionText', limits, size: o.size ?? 1, maxQueue: o.maxQueue ?? 8 });
  pool.warm();
  return {
    async validate(text, signal) {
      return answerOf(await pool.run(text, signal), limits);
    },
    close: () => pool.close(),
  };
}

/**
 * Another kind of job on definition text a client sends (the studio's trial and draft): a pool of
 * its own with the same limits, published for the route handlers under `name`.
 */
export function startJobRunner<In, Out>(o: { name: string; module: string; exportName: string; what: string; limits?: Partial<WorkerLimits>; size?: number; maxQueue?: number }): JobRunner<In, Out> {
  const limits = { ...VALIDATION_LIMITS, ...o.limits };
  const pool = new WorkerPool<In, Out>({ module: o.module, exportName: o.exportName, limits, size: o.size ?? 1, maxQueue: o.maxQueue ?? 8 });
  const runner: JobRunner<In, Out> = {
    run: async (input, signal) => answerOf(await pool.run(input, signal), limits, o.what),
    close: async () => {
      setJobRunner(o.name, null);
      await pool.close();
    },
  };
  setJobRunner(o.name, runner as JobRunner<unknown, unknown>);
  return runner;
}
