/**
 * For tests that guard against quadratic behaviour: whether work grows in proportion to its size,
 * judged by a ratio of two timings taken on the same machine, never by an absolute bound in
 * milliseconds (the figures themselves belong in bench/; an absolute bound fails on a slow or busy
 * machine and says nothing about how the work grows).
 */
import assert from 'node:assert/strict';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median time of `runs` calls of `work(size)`, after one call not counted (warm-up). */
function timed(work: (size: number) => void, size: number, runs: number): number {
  work(size);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    work(size);
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

/**
 * Asserts that `work` at `size` takes less than `maxRatio` times as long as at a quarter of it:
 * linear work takes about 4 times as long, quadratic work about 16 times.
 */
export function assertLinearTime(work: (size: number) => void, size: number, what: string, { runs = 3, maxRatio = 9 } = {}): void {
  const quarter = timed(work, Math.max(1, Math.floor(size / 4)), runs);
  const whole = timed(work, size, runs);
  // A quarter too quick to time says nothing either way; the floor keeps the ratio meaningful.
  const ratio = whole / Math.max(quarter, 0.5);
  assert.ok(ratio < maxRatio, `${what}: ${whole.toFixed(1)} ms at ${size}, ${quarter.toFixed(1)} ms at a quarter of it (${ratio.toFixed(1)}×; linear is about 4×, quadratic 16×)`);
}
