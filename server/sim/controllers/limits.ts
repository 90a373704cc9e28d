/**
 * How much one owner may make the simulated operators create. The API server stores a JobSet with
 * `replicas: 1e15` (its CRD types the field as an int32 integer with `minimum: 0`, and the real server
 * does not range-check int32 formats of custom resources), and a real operator would then try to create
 * that many Jobs. The simulator stops at a fixed number of children per owner instead of running out
 * of memory, and says so as the operators say a failed create: a Warning event on the owner
 * (`JobCreationFailed` for a JobSet, `FailedCreate` for the others), as the event recorder aggregates
 * repeats (one Event whose count goes up).
 */

/** Children of one kind (objects with a controller reference to it) one owner may have. */
export const MAX_CHILDREN_PER_OWNER = 10_000;

/** What `bounded` caps a count at: one more than may exist, so a spec asking for more meets the limit and is reported. */
export const BOUNDED_COUNT = MAX_CHILDREN_PER_OWNER + 1;

/**
 * A count from a spec as a controller loops over it: a whole number from 0 to BOUNDED_COUNT (Infinity
 * and huge values count as BOUNDED_COUNT, NaN and non-numbers as `fallback`). The create beyond the
 * limit is refused by the runtime, which records the event.
 */
export function bounded(n: unknown, fallback = 0): number {
  if (typeof n !== 'number' || Number.isNaN(n)) return Math.min(Math.max(0, fallback), BOUNDED_COUNT);
  if (n <= 0) return 0;
  return Math.min(Math.floor(n), BOUNDED_COUNT);
}

/** A create refused because its owner has reached MAX_CHILDREN_PER_OWNER. */
export class ChildLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChildLimitError';
  }
}

/** The event reason an operator uses when it cannot create a child. */
export function failedCreateReason(ownerKind: string): string {
  return ownerKind === 'JobSet' ? 'JobCreationFailed' : 'FailedCreate';
}
