/**
 * Deterministic randomness for the simulation: a seeded PRNG, Kubernetes-style name suffixes and short
 * hashes. Seeded so that a scenario built twice with the same seed yields the same cluster.
 */

import { createHash } from 'node:crypto';

/** The alphabet the API server uses for generateName suffixes and controllers for short hashes. */
export const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** Uniform in [0, 1) (mulberry32). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** `n` characters of the generateName alphabet. */
  suffix(n = 5): string {
    let s = '';
    for (let i = 0; i < n; i++) s += NAME_ALPHABET[Math.floor(this.next() * NAME_ALPHABET.length)];
    return s;
  }

  /** Lower-case hex, e.g. for container IDs. */
  hex(n: number): string {
    let s = '';
    while (s.length < n) s += Math.floor(this.next() * 4294967296).toString(16).padStart(8, '0');
    return s.slice(0, n);
  }
}

/** 32-bit FNV-1a of a string. */
export function fnv32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A pod-template-hash style string: the decimal digits of a 32-bit hash, each mapped into the
 * generateName alphabet (so it never spells words and is 1–10 chars long, like the real ones).
 */
export function shortHash(s: string): string {
  const digits = String(fnv32(s));
  let out = '';
  for (const d of digits) out += NAME_ALPHABET[(d.charCodeAt(0) * 7 + out.length) % NAME_ALPHABET.length];
  return out;
}

/** Stable JSON (sorted keys) for hashing templates independently of key order. */
export function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`).join(',')}}`;
}

const hashCache = new WeakMap<object, string>();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Short hash of a template (pod-template-hash, controller-revision-hash, LWS template hash …). Objects
 * read from the store are frozen and never change, so the hash is cached per object.
 */
export function templateHash(template: unknown, salt = ''): string {
  const cacheable = !salt && typeof template === 'object' && template !== null && Object.isFrozen(template);
  if (cacheable) {
    const hit = hashCache.get(template);
    if (hit) return hit;
  }
  // uids come from the store and differ between runs; the hash must not, so a seeded scenario repeats.
  const h = shortHash(stableJson(template).replace(UUID, 'uid') + salt);
  if (cacheable) hashCache.set(template as object, h);
  return h;
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export function sha1Hex(s: string): string {
  return createHash('sha1').update(s).digest('hex');
}

/** A per-object random stream: the same object gets the same durations whatever the processing order. */
export function rngFor(seed: number, key: string): Rng {
  return new Rng((fnv32(key) ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0);
}
