/**
 * JSON values to CEL values and back, as Kubernetes treats integer fields: whole numbers are CEL
 * ints (BigInt), so `self.spec.replicas + 1` works. Shared by the engine's status expressions and
 * the dashboard's row filter. Pure.
 */

/** Converts JSON values into CEL values: whole numbers become ints. */
export function toCelValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCelValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toCelValue(x);
    return out;
  }
  return v;
}

/** Converts CEL results back to JSON-safe values (ints → numbers). */
export function fromCelValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(fromCelValue);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), fromCelValue(x)]));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = fromCelValue(x);
    return out;
  }
  return v;
}
