/**
 * Deterministic evaluation budgets. A definition is code from a cluster, so every evaluation is charged as it
 * proceeds — never against a clock, so the same program on the same input always gets the same answer:
 * - steps: every generator output, iteration, function call, recursion step, and comparison or scan of
 *   compound values and long strings (proportional to their size);
 * - bytes: the size of the values the evaluation builds, cumulatively (arrays and objects SLOT bytes per
 *   element or member, strings one byte per UTF-16 unit), charged before or while they are built;
 * - depth: fixed bounds that keep the JavaScript stack safe — nested calls (user functions, `recurse(f)`,
 *   `until`/`while`), whose every level takes many frames, and the nesting of values walked recursively (JSON
 *   text, comparison, `..`, `walk`, `paths`, deep `setpath` paths …), one or two frames a level.
 * Evaluation is synchronous and never re-entered, so one module-level record holds the counters and charging
 * is a field increment and a compare. The shared helpers (comparison, JSON text) charge too: callers outside
 * an evaluation lift the budgets first (`liftBudget`, as the module's public helpers do).
 */

/** Raised when a budget (steps, bytes, depth, result count) is exceeded; `try` must not catch it. */
export class JqLimitError {
  constructor(readonly message: string) {}
}

/** Bytes charged for each array element or object member built. */
export const SLOT = 8;

/** Long strings are charged one step per this many UTF-16 units scanned or compared. */
const TEXT_UNIT_SHIFT = 6;

/**
 * Nested calls allowed (user functions, recurse(f), until/while). Measured: a recursive function whose body
 * builds an object, pipes and filters (`{a: (. + 1 | f)} | .a | … | tonumber`) exhausts the default stack at
 * about 470 levels, so 200 leaves a margin; simple bodies reach 1000.
 */
export const MAX_CALL_DEPTH = 200;

/** Nesting of values walked recursively (JSON text, comparison, `..`, walk, paths, setpath paths …). */
export const MAX_DEPTH = 1000;

export const budget = {
  steps: 0,
  maxSteps: Infinity,
  bytes: 0,
  maxBytes: Infinity,
  depth: 0,
};

function stepsExceeded(): never {
  throw new JqLimitError(`jq evaluation exceeded its step budget of ${budget.maxSteps}`);
}

function bytesExceeded(): never {
  throw new JqLimitError(`jq evaluation exceeded its size budget of ${budget.maxBytes} bytes`);
}

/** One step: a generator output, a loop iteration, a call. */
export function tick(): void {
  if (++budget.steps > budget.maxSteps) stepsExceeded();
}

/** `n` steps at once (work proportional to a size known in advance). */
export function charge(n: number): void {
  if ((budget.steps += n) > budget.maxSteps) stepsExceeded();
}

/** Steps for scanning or comparing `units` UTF-16 units of text: free below 64, then one per 64. */
export function chargeText(units: number): void {
  if (units > 64) charge(units >>> TEXT_UNIT_SHIFT);
}

/** Steps for sorting `n` items: n·⌈log2 n⌉ comparisons (compound values charge their own comparisons too). */
export function chargeSort(n: number): void {
  if (n > 1) charge(n * Math.ceil(Math.log2(n)));
}

/** Bytes of a value about to be built. */
export function alloc(bytes: number): void {
  if ((budget.bytes += bytes) > budget.maxBytes) bytesExceeded();
}

/** Enters one level of nested calls; pair with `leave()` in a `finally`. */
export function enter(): void {
  if (++budget.depth > MAX_CALL_DEPTH) {
    budget.depth--;
    throw new JqLimitError(`jq evaluation exceeded its recursion depth budget of ${MAX_CALL_DEPTH}`);
  }
}

export function leave(): void {
  budget.depth--;
}

/** Fails when a value walked recursively nests deeper than MAX_DEPTH (`depth` counts from 0). */
export function checkDepth(depth: number): void {
  if (depth > MAX_DEPTH) throw new JqLimitError(`jq evaluation exceeded its nesting depth budget of ${MAX_DEPTH}`);
}

/** Starts an evaluation with fresh counters. */
export function startBudget(maxSteps: number, maxBytes: number): void {
  budget.steps = 0;
  budget.bytes = 0;
  budget.depth = 0;
  budget.maxSteps = maxSteps;
  budget.maxBytes = maxBytes;
}

/** Peak usage over evaluations since the last reset (for measuring definitions against the budgets). */
export const peakUsage = { steps: 0, bytes: 0 };

/** Ends an evaluation: records its usage (a run that broke a budget records more than the budget). */
export function endBudget(): void {
  if (budget.steps > peakUsage.steps) peakUsage.steps = budget.steps;
  if (budget.bytes > peakUsage.bytes) peakUsage.bytes = budget.bytes;
}

/** No bounds, for the shared helpers used outside an evaluation. */
export function liftBudget(): void {
  startBudget(Infinity, Infinity);
}
