/**
 * Go's renderings of values in API error messages (pure): `%v` of the int64 and float64 a JSON number
 * decodes to, `%q` of strings, `%#v` and `%+v` of decoded JSON maps. The API server prints the values it
 * decoded, so a number's literal decides whether it shows as an int64 (`1000000000000000`) or a float64
 * (`1e+15`).
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Whether a JSON number literal decodes to an int64 in Go (`strconv.ParseInt(s, 10, 64)` succeeds). */
export function isInt64Literal(literal: string): boolean {
  if (!/^-?\d+$/.test(literal)) return false;
  const v = BigInt(literal);
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** The literal a number was written as: the recorded one, or the canonical JavaScript text. */
export function literalOf(n: number, literal?: string): string {
  return literal ?? String(n);
}

/** `%v` of a float64: strconv's 'g' with the shortest digits, so the exponent form below 1e-4 and from 1e6 (`1e+15`). */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, expText] = f.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mant}e${sign}${abs < 10 ? `0${abs}` : abs}`;
  }
  // Fixed notation with the same shortest digits.
  const digits = mant.replace('-', '').replace('.', '');
  const neg = f < 0 ? '-' : '';
  if (exp >= 0) {
    const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    return `${neg}${int}${frac ? `.${frac}` : ''}`;
  }
  return `${neg}0.${'0'.repeat(-exp - 1)}${digits}`;
}

/** `%v` of the value Go decodes a JSON number into: int64 for integer literals, float64 otherwise. */
export function goNumber(n: number, literal?: string): string {
  const lit = literalOf(n, literal);
  if (isInt64Literal(lit)) return BigInt(lit).toString();
  return goFloat(Number(lit));
}

export type JsonKind = 'null' | 'string' | 'bool' | 'int' | 'float' | 'array' | 'object';

/** What a decoded JSON value is to Go: a number is an int64 when its literal is an integer, else a float64. */
export function jsonKindOf(v: unknown, literal?: string): JsonKind {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isInt64Literal(literalOf(v, literal)) ? 'int' : 'float';
  return Array.isArray(v) ? 'array' : 'object';
}

const GO_TYPE: Record<JsonKind, string> = { null: '<nil>', string: 'string', bool: 'bool', int: 'int64', float: 'float64', array: '[]interface {}', object: 'map[string]interface {}' };

/** Go's `%T` of a decoded JSON value. */
export function goType(v: unknown, literal?: string): string {
  return GO_TYPE[jsonKindOf(v, literal)];
}

/** strconv.Quote: Go's `%q` of a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || c === 0xfeff) out += c > 0xffff ? `\\U${c.toString(16).padStart(8, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `%v` of a decoded JSON value (maps with sorted keys, `map[k:v]`, slices `[a b]`). */
export function goV(v: unknown, literal?: string): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return goNumber(v, literal);
  if (Array.isArray(v)) return `[${v.map((x) => goV(x)).join(' ')}]`;
  const o = v as Record<string, unknown>;
  return `map[${Object.keys(o).sort().map((k) => `${k}:${goV(o[k])}`).join(' ')}]`;
}

/** `%#v` of a decoded JSON value, as `field.Duplicate` and friends print maps and slices. */
export function goSharpV(v: unknown, literal?: string): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return goNumber(v, literal);
  const inner = (x: unknown): string => (x === null || x === undefined ? 'interface {}(nil)' : typeof x === 'object' ? goSharpV(x) : typeof x === 'number' ? `${goType(x)}(${goNumber(x)})` : typeof x === 'string' ? goQuote(x) : String(x));
  if (Array.isArray(v)) return `[]interface {}{${v.map(inner).join(', ')}}`;
  const o = v as Record<string, unknown>;
  return `map[string]interface {}{${Object.keys(o).sort().map((k) => `${goQuote(k)}:${inner(o[k])}`).join(', ')}}`;
}

/** `%#v` of a map[string]string. */
export function goStringMap(m: Record<string, string>): string {
  return `map[string]string{${Object.keys(m).sort().map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`;
}
