/**
 * A self-signed certificate for the simulator's HTTPS listener, generated in process.
 *
 * Why HTTPS at all: kubectl (client-go) never sends bearer tokens to a plain `http://` server
 * (kubernetes/kubectl#744), so per-token access rules could not be exercised with kubectl over http.
 * Node can make key pairs and signatures but not X.509 certificates, hence the small DER encoder.
 * The certificate is its own CA (basicConstraints CA:TRUE), so clients can verify it through
 * `certificate-authority-data` instead of skipping verification.
 */

import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n >>= 8;
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.from([unused]), b);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const explicit = (n: number, ...c: Buffer[]) => tlv(0xa0 + n, ...c);

function integer(b: Buffer): Buffer {
  // DER is minimal: no leading zero bytes (a random serial starts with one now and then, which OpenSSL
  // refuses as "illegal padding"), except the one a positive number with its top bit set needs.
  let i = 0;
  while (i < b.length - 1 && b[i] === 0 && !(b[i + 1] & 0x80)) i++;
  const v = b.subarray(i);
  return tlv(0x02, v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [parts[0] * 40 + parts[1]];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    let v = p >>> 7;
    while (v > 0) {
      chunk.unshift((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const y = d.getUTCFullYear();
  const body = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  // UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5).
  return y < 2050 ? tlv(0x17, Buffer.from(`${p(y % 100)}${body}`)) : tlv(0x18, Buffer.from(`${y}${body}`));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
}

export interface SelfSignedCert {
  /** PEM certificate (also the CA to trust). */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

/** A P-256 certificate for `localhost`, 127.0.0.1 and ::1 (plus extra names), valid for a year. */
export function selfSignedCert(extraNames: string[] = []): SelfSignedCert {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const name = seq(set(seq(oid('2.5.4.3'), utf8('wmap-sim'))));
  const now = Date.now();
  const validity = seq(time(new Date(now - 3600_000)), time(new Date(now + 365 * 86400_000)));
  const algorithm = seq(oid('1.2.840.10045.4.3.2'));
  const sans: Buffer[] = [tlv(0x82, Buffer.from('localhost')), tlv(0x87, Buffer.from([127, 0, 0, 1])), tlv(0x87, Buffer.from([...Array(15).fill(0), 1]))];
  for (const n of extraNames) {
    const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(n);
    if (v4) sans.push(tlv(0x87, Buffer.from(v4.slice(1).map(Number))));
    else if (!n.includes(':')) sans.push(tlv(0x82, Buffer.from(n)));
  }
  const extensions = explicit(3, seq(
    extension('2.5.29.19', true, seq(bool(true))),
    // digitalSignature + keyCertSign.
    extension('2.5.29.15', true, bits(Buffer.from([0x84]), 2)),
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
    extension('2.5.29.17', false, seq(...sans)),
  ));
  const tbs = seq(explicit(0, integer(Buffer.from([2]))), integer(serial), algorithm, name, validity, name, spki, extensions);
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, bits(signature));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
