/** Knobs of the simulated controllers, with the defaults a demo cluster looks natural with. */

import { logger } from '../../log/index.ts';
import type { SimClock } from '../clock.ts';

/** A duration or a [min, max] range in simulated milliseconds (picked per pod, deterministically). */
export type DurationRange = number | readonly [number, number];

export interface ControllerOptions {
  clock: SimClock;
  /** Seed of every random choice (names, durations, failures). Default 1. */
  seed?: number;
  /** Image pull + container start, per pod. Default [2 s, 8 s]. */
  podStartup?: DurationRange;
  /** Time until a container with a readinessProbe reports ready. Default [5 s, 20 s]. */
  readinessDelay?: DurationRange;
  /** Run time of batch pods (restartPolicy Never/OnFailure) without a duration annotation. Default [5 min, 15 min]. */
  batchDuration?: DurationRange;
  /** Probability that a batch container without an exit-code annotation exits 1. Default 0. */
  batchFailureRate?: number;
  /** Container restart back-off base (doubles per restart, capped at 5 min). Default 10 s. */
  crashBackoffMs?: number;
  /** Dynamo: the operator runs with Grove (DGDs become PodCliqueSets unless they opt out). Default true. */
  dynamoGrove?: boolean;
  /** Knative: idle time before a revision without min-scale scales to zero. Default 90 s; 0 disables. */
  knativeScaleToZeroMs?: number;
  /** Reconcile from queued events on setImmediate (the live server); tests may still call settle(). Default true. */
  autoDrain?: boolean;
  /** Real milliseconds a background drain may take before yielding to the event loop. Default 25. */
  drainBudgetMs?: number;
  /** Loop guard for settle(). Default 20 million. */
  maxReconcilesPerSettle?: number;
  /** Reconcile errors that are not conflicts. Default: a warning in the log (`sim.controllers`), rate-limited. */
  onError?: (error: unknown, where: string) => void;
}

export interface ResolvedOptions {
  clock: SimClock;
  seed: number;
  podStartup: DurationRange;
  readinessDelay: DurationRange;
  batchDuration: DurationRange;
  batchFailureRate: number;
  crashBackoffMs: number;
  dynamoGrove: boolean;
  knativeScaleToZeroMs: number;
  autoDrain: boolean;
  drainBudgetMs: number;
  maxReconcilesPerSettle: number;
  onError: (error: unknown, where: string) => void;
}

export function resolveOptions(o: ControllerOptions): ResolvedOptions {
  let warned = 0;
  return {
    clock: o.clock,
    seed: o.seed ?? 1,
    podStartup: o.podStartup ?? [2000, 8000],
    readinessDelay: o.readinessDelay ?? [5000, 20000],
    batchDuration: o.batchDuration ?? [5 * 60_000, 15 * 60_000],
    batchFailureRate: o.batchFailureRate ?? 0,
    crashBackoffMs: o.crashBackoffMs ?? 10_000,
    dynamoGrove: o.dynamoGrove ?? true,
    knativeScaleToZeroMs: o.knativeScaleToZeroMs ?? 90_000,
    autoDrain: o.autoDrain ?? true,
    drainBudgetMs: o.drainBudgetMs ?? 25,
    maxReconcilesPerSettle: o.maxReconcilesPerSettle ?? 20_000_000,
    onError:
      o.onError ??
      ((e, where) => {
        if (warned++ < 20) logger('sim.controllers').warn({ where, err: e }, 'reconcile failed');
      }),
  };
}

/** Picks a value of a range with `u` in [0, 1). */
export function pick(r: DurationRange, u: number): number {
  return typeof r === 'number' ? r : r[0] + (r[1] - r[0]) * u;
}
