/**
 * What the range boxes of the filter bar (GPUs, utilization) make of what is typed. A draft that is
 * not a usable bound is shown as invalid and never applied, and the message says what the range
 * still uses, so that "-3" in the maximum box cannot look like a filter while the old maximum
 * silently keeps filtering. A range whose minimum is above its maximum says so, instead of an
 * unexplained "no match". Pure.
 */

export type BoundDraft = { kind: 'empty' } | { kind: 'value'; value: number } | { kind: 'invalid'; message: string };

export interface BoundRules {
  /** Largest allowed value (100 for percentages); none for GPU counts. */
  max?: number;
}

/** A typed bound: empty (no bound), a number within 0..max, or invalid with a short reason. */
export function readBound(text: string, rules: BoundRules = {}): BoundDraft {
  const t = text.trim();
  if (t === '') return { kind: 'empty' };
  // Number('') and Number(' ') are 0, Number('0x10') is 16: only plain decimals count as typed numbers.
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) || !Number.isFinite(Number(t))) return { kind: 'invalid', message: `"${t}" is not a number` };
  const n = Number(t);
  if (n < 0) return { kind: 'invalid', message: `${t} is below 0` };
  if (rules.max !== undefined && n > rules.max) return { kind: 'invalid', message: `${t} is above ${rules.max}` };
  return { kind: 'value', value: n };
}

/** The message beside an invalid box: what is wrong, and what is applied instead. */
export function invalidBoundText(label: string, message: string, applied: number | null): string {
  return `${label}: ${message}, so it is not applied (${applied === null ? 'no bound is' : `${applied} is still`} in use).`;
}

/** Minimum above maximum: nothing can match, and the user should be told why. */
export function rangeConflict(what: string, min: number | null, max: number | null): string | null {
  if (min === null || max === null || min <= max) return null;
  return `${what}: the minimum ${min} is above the maximum ${max}, so no workload can match.`;
}
