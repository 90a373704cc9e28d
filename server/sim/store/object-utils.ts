/** Small pure helpers over plain JSON objects, shared by the store and the API layer. */

import { copyValueIteratively, deepEqualIteratively, deepFreezeAll, encodeJson, isStackOverflow } from './deep-json.ts';
import type { KubeObject } from './object-store.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality of JSON values (key order ignored, as in the encoded comparison the real store does). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Inline try/catch (no closures): this runs for every write.
  try {
    return equalRecursive(a, b);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return deepEqualIteratively(a, b);
  }
}

function equalRecursive(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalRecursive(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let count = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    count++;
    if (!equalRecursive(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) count--;
  return count === 0;
}

/**
 * Freezes a JSON value in place, every level; returns it. Children are frozen before their parent, so
 * a frozen object always has a frozen subtree (the walk skips it), also when a value too deep for the
 * call stack falls back to the iterative walk halfway through.
 */
export function deepFreeze<T>(v: T): T {
  try {
    return freezeRecursive(v);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return deepFreezeAll(v);
  }
}

function freezeRecursive<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const k of Object.keys(v)) freezeRecursive((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/** A mutable deep copy (also of frozen objects). JSON round-trip semantics: undefined members vanish. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(encodeJson(v)) as T);
}

/** A JSON copy that shares frozen subtrees (JSON semantics otherwise: undefined members dropped, Dates as strings). */
export function copyValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  try {
    return copyRecursive(v);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return copyValueIteratively(v);
  }
}

function copyRecursive(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = v[i] === undefined ? null : copyRecursive(v[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = copyRecursive(x);
  }
  return out;
}

/**
 * A copy of a caller's object that the store may keep: fresh top level and metadata, mutable
 * parts copied, frozen parts (taken from stored objects) shared. Sharing is safe because
 * stored objects are deeply frozen, and it makes writes that change one field cheap.
 */
export function ownedCopy(obj: KubeObject): KubeObject {
  const top = copyValue(Object.isFrozen(obj) ? { ...obj } : obj) as KubeObject;
  top.metadata = { ...(top.metadata ?? {}) };
  return top;
}

/** A new version of a stored object: shallow copies of the top level and metadata, everything else shared. */
export function nextVersion(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata } };
}

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

export function versionOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

/** The storage key of a kind: group + kind (the version is not part of it, see MemoryStore). */
export function groupKind(apiVersion: string, kind: string): string {
  return `${groupOf(apiVersion)}/${kind}`;
}

/** RFC 3339 with seconds precision and `Z`, as the API server writes timestamps. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Everything outside metadata (and optionally status), for generation bookkeeping. */
export function specPart(obj: KubeObject, withStatus: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in obj) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind') continue;
    if (k === 'status' && !withStatus) continue;
    out[k] = obj[k];
  }
  return out;
}
