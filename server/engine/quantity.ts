/** Kubernetes resource quantities (`4`, `"4"`, `"500m"`, `"1Ki"`, `"2e3"`) as numbers, read exactly as the API server reads them (lib/quantity). */
import { parseQuantity as parseExact } from '../../lib/quantity/index.ts';

/** The numeric value (approximate beyond 2^53), or null when the API server would not accept it as a quantity. */
export function parseQuantity(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const q = parseExact(v);
  if (typeof q === 'string') return null;
  const n = Number(q.coef) * 10 ** q.exp;
  return Number.isFinite(n) ? (q.negative ? -n : n) : null;
}
