/**
 * Definition validation (`POST /api/definitions/validate`) is the one request whose cost the
 * client chooses: it parses YAML and compiles expressions from the request body. It runs in a
 * worker pool with a heap, a stack and a time limit, never on the server's thread, and a
 * validation that exceeds a limit is a 4xx naming the limit. The custom server starts the pool and
 * publishes it (validator-registry.ts) for the route handler.
 */
import type { ValidateResult } from '../../contract/index.ts';
import type { ValidationAnswer, Validator } from './validator-registry.ts';
import { WorkerPool, type Outcome, type WorkerLimits } from './worker-pool.ts';
import { problem } from './problem.ts';

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
export function answerOf(o: Outcome<ValidateResult>, limits: WorkerLimits): ValidationAnswer {
  if (o.ok) return { ok: true, result: o.value };
  const seconds = `${limits.timeMs / 1000} s`;
  switch (o.limit) {
    case 'time':
      return { ok: false, problem: problem(422, 'time_limit_exceeded', `validation ran longer than its time limit (${seconds}) and was stopped`) };
    case 'memory':
      return { ok: false, problem: problem(422, 'memory_limit_exceeded', `validation needed more memory than its limit (${limits.maxOldGenerationSizeMb} MiB) and was stopped`) };
    case 'stack':
      return { ok: false, problem: problem(422, 'nesting_limit_exceeded', 'the definition nests too deeply to validate (stack limit exceeded)') };
    case 'queue':
      return { ok: false, problem: problem(503, 'busy', `too many validations are running; try again shortly (${o.message})`) };
    case 'aborted':
      return { ok: false, problem: problem(499, 'aborted', 'the request was aborted') };
    case 'unavailable':
      return { ok: false, problem: problem(503, 'validator_unavailable', `validation is unavailable: ${o.message}`) };
    case 'error':
      if (/alias/i.test(o.message)) return { ok: false, problem: problem(422, 'alias_limit_exceeded', `the YAML expands too many aliases (alias limit exceeded): ${o.message}`) };
      return { ok: false, problem: problem(422, 'validation_failed', `the definition could not be validated: ${o.message}`) };
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
