import { alloc, charge, chargeText } from './budget.ts';
import { fail, typeErrorPreview } from './errors.ts';
import type { JqValue } from './values.ts';
import { encode, toString } from './values.ts';

function csvField(v: JqValue, kind: 'csv' | 'tsv'): string {
  if (typeof v === 'number') return encode(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null) return '';
  if (typeof v === 'string') {
    if (kind === 'csv') return `"${v.replace(/"/g, '""')}"`;
    return v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n');
  }
  return fail(`invalid ${kind} row: ${typeErrorPreview(v)}`);
}

function shQuote(v: JqValue): string {
  if (typeof v === 'string') return `'${v.replace(/'/g, "'\\''")}'`;
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return encode(v);
  return fail(`cannot escape for shell: ${typeErrorPreview(v)}`);
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(s: string): string {
  const bytes = Buffer.from(s, 'utf8');
  charge(bytes.length);
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

function base32d(s: string): string {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  charge(s.length);
  for (const ch of s.replace(/=+$/, '')) {
    const i = BASE32.indexOf(ch);
    if (i < 0) return fail(`${typeErrorPreview(s)} is not valid base32 data`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

const FORMATS: Record<string, (v: JqValue) => string> = {
  text: (v) => toString(v),
  json: (v) => encode(v),
  html: (v) =>
    toString(v).replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&#39;', '"': '&quot;' })[c] ?? c),
  uri: (v) =>
    Array.from(Buffer.from(toString(v), 'utf8'))
      .map((b) => {
        const c = String.fromCharCode(b);
        return /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join(''),
  csv: (v) => (Array.isArray(v) ? v.map((x) => csvField(x, 'csv')).join(',') : fail(`invalid csv row: ${typeErrorPreview(v)}`)),
  tsv: (v) => (Array.isArray(v) ? v.map((x) => csvField(x, 'tsv')).join('\t') : fail(`invalid tsv row: ${typeErrorPreview(v)}`)),
  sh: (v) => (Array.isArray(v) ? v.map(shQuote).join(' ') : shQuote(v)),
  base64: (v) => Buffer.from(toString(v), 'utf8').toString('base64'),
  base64d: (v) => {
    const s = toString(v);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s.replace(/\s/g, ''))) return fail(`${typeErrorPreview(v)} is not valid base64 data`);
    return Buffer.from(s, 'base64').toString('utf8');
  },
  base32: (v) => base32(toString(v)),
  base32d: (v) => base32d(toString(v)),
};

export function hasFormat(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(FORMATS, name);
}

/**
 * `@name` applied to a value. The text formatted is charged for its scan (`toString` charges its own JSON
 * text); the result for its size — base64 output is 4/3 of its input, `@uri` up to 3 times it.
 */
export function formatValue(name: string, v: JqValue): JqValue {
  if (name !== 'text' && name !== 'json') chargeText(typeof v === 'string' ? v.length : 0);
  const out = FORMATS[name](v);
  alloc(out.length);
  return out;
}
