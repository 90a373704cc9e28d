/** Kubernetes resource quantities (`4`, `"4"`, `"500m"`, `"1Ki"`, `"2e3"`) as numbers. */

const SUFFIX: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/** Returns the numeric value, or null when the value is not a valid quantity. */
export function parseQuantity(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  // Fast path: GPU counts are plain integers ("4"), read on every pod.
  if (v.length > 0 && v.length < 10 && /^\d+$/.test(v)) return Number(v);
  const m = QUANTITY.exec(v.trim());
  if (!m) return null;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * SUFFIX[m[3] ?? ''];
}
