/**
 * resource.Quantity as k8s.io/apimachinery/pkg/api/resource parses, compares and prints it (pure): the
 * format regex and its three errors, decimal-SI, binary-SI and exponent suffixes, values kept exact
 * (coefficient × 10^exponent, so `1e1000` and `0.5m` are fine), rounding up to nano units, the
 * canonical String() form, and the `%#v` rendering some validation messages carry.
 */

export const QUANTITY_REGEX = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_REGEX}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  negative: boolean;
  /** |value| = coef × 10^exp. */
  coef: bigint;
  exp: number;
  format: QuantityFormat;
  /** The int64Amount (value, scale) of the fast path, when it applies (for `%#v`). */
  int64?: { value: bigint; scale: number };
  /** The string the parser caches when the input was already canonical. */
  cached: string;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

function digitsOnly(s: string, from: number): number {
  let i = from;
  while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
  return i;
}

/** ParseQuantity: the quantity, or the error text of the real parser. */
export function parseQuantity(str: string): Quantity | string {
  if (str.length === 0) return ERR_FORMAT_WRONG;
  let pos = 0;
  let negative = false;
  if (str[0] === '-' || str[0] === '+') {
    negative = str[0] === '-';
    pos++;
  }
  while (pos < str.length && str[pos] === '0') pos++;
  const numEnd = digitsOnly(str, pos);
  let num = str.slice(pos, numEnd);
  pos = numEnd;
  let denom = '';
  if (str[pos] === '.') {
    const dEnd = digitsOnly(str, pos + 1);
    denom = str.slice(pos + 1, dEnd);
    pos = dEnd;
  }
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  const sEnd = digitsOnly(str, pos);
  if (sEnd !== str.length) return ERR_FORMAT_WRONG;
  const suffix = str.slice(suffixStart);
  if (num === '') num = '0';
  let format: QuantityFormat;
  let exponent: number;
  let base: 10 | 2;
  if (suffix in DECIMAL) {
    format = 'DecimalSI';
    exponent = DECIMAL[suffix];
    base = 10;
  } else if (suffix in BINARY) {
    format = 'BinarySI';
    exponent = BINARY[suffix];
    base = 2;
  } else if ((suffix[0] === 'e' || suffix[0] === 'E') && /^[eE][-+]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > 2 ** 31 - 1) return ERR_SUFFIX;
    exponent = e;
    base = 10;
  } else return ERR_SUFFIX;
  const digits = `${num}${denom}`.replace(/^0+(?=\d)/, '');
  let coef = BigInt(digits === '' ? '0' : digits);
  let exp = -denom.length;
  if (base === 10) exp += exponent;
  else coef *= 2n ** BigInt(exponent);
  // Round non-zero values up to the nano unit, as the parser does.
  if (coef !== 0n && exp < -9) {
    const div = 10n ** BigInt(-9 - exp);
    coef = (coef + div - 1n) / div;
    exp = -9;
  }
  // The int64 fast path of DecimalSI / DecimalExponent and small BinarySI values (for `%#v`).
  let int64: Quantity['int64'];
  let cached = '';
  const precision = 18 - (num.length + denom.length);
  if (base === 10 && precision >= 0 && exponent - denom.length >= -9) {
    const value = BigInt(`${num}${denom}`);
    if (value < 2n ** 63n) {
      const scale = exponent - denom.length;
      int64 = { value: negative ? -value : value, scale };
      const shifted = `${num}${denom}`;
      if (scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0') cached = str;
    }
  } else if (base === 2 && denom.length === 0) {
    const value = BigInt(num) * 2n ** BigInt(exponent);
    if (value < 2n ** 63n) {
      int64 = { value: negative ? -value : value, scale: 0 };
      if (exponent % 10 === 0 && (BigInt(num) & 7n) !== 0n) cached = str;
    }
  }
  if (coef === 0n) negative = false;
  return { negative, coef, exp, format, int64, cached };
}

/** Sign of a quantity: -1, 0, 1. */
export function signOf(q: Quantity): number {
  return q.coef === 0n ? 0 : q.negative ? -1 : 1;
}

function cmpAbs(a: Quantity, b: Quantity): number {
  if (a.coef === 0n || b.coef === 0n) return a.coef === b.coef ? 0 : a.coef === 0n ? -1 : 1;
  const la = a.coef.toString().length + a.exp;
  const lb = b.coef.toString().length + b.exp;
  if (la !== lb) return la < lb ? -1 : 1;
  const e = Math.min(a.exp, b.exp);
  const x = a.coef * 10n ** BigInt(a.exp - e);
  const y = b.coef * 10n ** BigInt(b.exp - e);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Cmp: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const sa = signOf(a);
  const sb = signOf(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  return sa >= 0 ? cmpAbs(a, b) : -cmpAbs(a, b);
}

/** `MilliValue() % 1000 != 0`: whether validation calls the quantity "not an integer" (overflow reads as 0). */
export function isNotWholeForValidation(q: Quantity): boolean {
  // MilliValue rounds up to whole milli-units; beyond int64 it reads as 0.
  let milli: bigint;
  if (q.exp + 3 >= 0) {
    if (q.coef.toString().length + q.exp + 3 > 19) return false;
    milli = q.coef * 10n ** BigInt(q.exp + 3);
  } else {
    const div = 10n ** BigInt(-(q.exp + 3));
    milli = (q.coef + div - 1n) / div;
  }
  if (milli >= 2n ** 63n) return false;
  return milli % 1000n !== 0n;
}

/** String(): the canonical form (`0.5m` → `500u`, `1.5` → `1500m`, `1e1000` → `10e999`). */
export function quantityString(q: Quantity): string {
  if (q.coef === 0n) return '0';
  const sign = q.negative ? '-' : '';
  if (q.format === 'BinarySI') {
    const small = q.exp >= 0 && q.coef.toString().length + q.exp <= 4 && q.coef * 10n ** BigInt(q.exp) < 1024n;
    if (!small && q.exp >= 0) {
      let v = q.coef * 10n ** BigInt(q.exp);
      let k = 0;
      while (k < 6 && v % 1024n === 0n) {
        v /= 1024n;
        k++;
      }
      return `${sign}${v}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][k]}`;
    }
  }
  let coef = q.coef;
  let exp = q.exp;
  while (coef % 10n === 0n) {
    coef /= 10n;
    exp++;
  }
  const r = ((exp % 3) + 3) % 3;
  if (r !== 0) {
    coef *= 10n ** BigInt(r);
    exp -= r;
  }
  if (q.format === 'DecimalExponent') return `${sign}${coef}${exp === 0 ? '' : `e${exp}`}`;
  const suffix = Object.entries(DECIMAL).find(([, e]) => e === exp)?.[0];
  if (suffix !== undefined) return `${sign}${coef}${suffix}`;
  if (exp > 18) return `${sign}${coef * 10n ** BigInt(exp - 18)}E`;
  return `${sign}${coef}e${exp}`;
}

/** `%#v` of a Quantity value, as `field.Invalid(path, quantity, …)` prints it. */
export function quantityGoSyntax(q: Quantity): string {
  const i = q.int64 ?? { value: 0n, scale: 0 };
  const dec = q.int64 ? '(*inf.Dec)(nil)' : `&inf.Dec{…}`;
  return `resource.Quantity{i:resource.int64Amount{value:${i.value}, scale:${i.scale}}, d:resource.infDecAmount{Dec:${dec}}, s:${JSON.stringify(q.cached)}, Format:"${q.format}"}`;
}
