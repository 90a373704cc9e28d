/**
 * A count of devices (GPUs, MIG slices, shared GPU replicas) as the API server accepts it for an
 * extended resource: a valid quantity, whole and not negative. Anything else the API server would
 * reject; a reader that finds one (an object it did not validate, a definition's template) must say
 * so instead of counting it as 0 or as a fraction.
 */
import { parseQuantity, signOf, type Quantity } from './quantity.ts';

export type DeviceCount = { ok: true; value: number } | { ok: false; message: string };

function wholeValue(q: Quantity): bigint | null {
  if (q.exp >= 0) return q.coef * 10n ** BigInt(q.exp);
  const div = 10n ** BigInt(-q.exp);
  return q.coef % div === 0n ? q.coef / div : null;
}

export function deviceCount(v: unknown): DeviceCount {
  // The common case, read on every pod: a small plain integer.
  if (typeof v === 'string' && v.length > 0 && v.length < 10 && /^\d+$/.test(v)) return { ok: true, value: Number(v) };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { ok: false, message: 'is not a number' };
    if (v < 0) return { ok: false, message: 'must be greater than or equal to 0' };
    if (!Number.isInteger(v)) return { ok: false, message: 'must be an integer (extended resources are whole devices)' };
    return Number.isSafeInteger(v) ? { ok: true, value: v } : { ok: false, message: 'is more devices than can be counted exactly' };
  }
  if (typeof v !== 'string') return { ok: false, message: `is a ${v === null ? 'null' : typeof v}, not a quantity` };
  const q = parseQuantity(v);
  if (typeof q === 'string') return { ok: false, message: q };
  if (signOf(q) < 0) return { ok: false, message: 'must be greater than or equal to 0' };
  const whole = wholeValue(q);
  if (whole === null) return { ok: false, message: 'must be an integer (extended resources are whole devices)' };
  if (whole > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, message: 'is more devices than can be counted exactly' };
  return { ok: true, value: Number(whole) };
}
