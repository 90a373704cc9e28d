/**
 * Compact JWS tokens signed with ES256 (pure apart from node:crypto): what the API server's service
 * account token issuer produces (it signs with RS256 or ES256 keys; an EC key is quick to generate per
 * simulator). Only what issuing and verifying our own tokens needs.
 */

import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Key id: base64url of the SHA-256 of the DER public key, as kube-apiserver derives it. */
  kid: string;
}

export function newSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey, publicKey, kid: createHash('sha256').update(der).digest('base64url') };
}

function b64(json: unknown): string {
  return Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
}

export function signJwt(key: SigningKey, claims: Record<string, unknown>): string {
  const input = `${b64({ alg: 'ES256', kid: key.kid })}.${b64(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** The claims of a token this key signed, or undefined (not a JWT, or not ours). */
export function verifyJwt(key: SigningKey, token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as { alg?: string };
    if (header.alg !== 'ES256') return undefined;
    const ok = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'));
    if (!ok) return undefined;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
