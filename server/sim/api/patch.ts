/**
 * Patch application (pure): RFC 6902 JSON patch, RFC 7386 merge patch, strategic merge patch for
 * built-in kinds (list merge keys and directives, as far as kubectl apply/edit/label need), and a
 * simplified server-side apply (maps merged, known map-lists merged by key, no field ownership).
 */

import { isStackOverflow } from '../store/deep-json.ts';
import { clone, deepEqual, isPlainObject } from '../store/object-utils.ts';

export class PatchError extends Error {
  /** 422 for failed operations, 400 for malformed patches, 413 for too many operations. */
  readonly status: number;
  constructor(message: string, status = 422) {
    super(message);
    this.status = status;
  }
}

// ------------------------------------------------------------------ RFC 6902

interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new PatchError(`invalid JSON pointer "${p}"`, 400);
  return p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: unknown, tokens: string[], op: string): { parent: unknown; key: string } {
  let cur = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isPlainObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined || cur === null) throw new PatchError(`${op} operation does not apply: doc is missing path: "/${tokens.slice(0, i + 1).join('/')}": missing value`);
  }
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function getAt(doc: unknown, tokens: string[]): unknown {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = /^\d+$/.test(t) ? cur[Number(t)] : undefined;
    else if (isPlainObject(cur)) cur = Object.prototype.hasOwnProperty.call(cur, t) ? cur[t] : undefined;
    else return undefined;
  }
  return cur;
}

export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new PatchError('json patch must be an array of operations', 400);
  // handlers/patch.go maxJSONPatchOperations: a 413 RequestEntityTooLarge, as the patch handler answers.
  if (ops.length > 10000) throw new PatchError(`Request entity too large: The allowed maximum operations in a JSON patch is 10000, got ${ops.length}`, 413);
  let doc = clone(target);
  for (const raw of ops as JsonPatchOp[]) {
    if (!isPlainObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') throw new PatchError('malformed json patch operation', 400);
    const tokens = parsePointer(raw.path);
    const op = raw.op;
    const add = (d: unknown, toks: string[], value: unknown): unknown => {
      if (toks.length === 0) return value;
      const { parent, key } = parentOf(d, toks, op);
      if (Array.isArray(parent)) {
        const idx = key === '-' ? parent.length : Number(key);
        if (!/^\d+$/.test(key) && key !== '-' || idx > parent.length) throw new PatchError(`${op} operation does not apply: index ${key} out of bounds`);
        parent.splice(idx, 0, value);
      } else if (isPlainObject(parent)) parent[key] = value;
      else throw new PatchError(`${op} operation does not apply: doc is missing path: "${raw.path}"`);
      return d;
    };
    const remove = (d: unknown, toks: string[]): unknown => {
      const { parent, key } = parentOf(d, toks, op);
      if (Array.isArray(parent)) {
        const idx = Number(key);
        if (!/^\d+$/.test(key) || idx >= parent.length) throw new PatchError(`${op} operation does not apply: doc is missing path: "${raw.path}": missing value`);
        return parent.splice(idx, 1)[0];
      }
      if (isPlainObject(parent) && Object.prototype.hasOwnProperty.call(parent, key)) {
        const v = parent[key];
        delete parent[key];
        return v;
      }
      throw new PatchError(`${op} operation does not apply: doc is missing path: "${raw.path}": missing value`);
    };
    switch (op) {
      case 'add':
        doc = add(doc, tokens, clone(raw.value));
        break;
      case 'remove':
        remove(doc, tokens);
        break;
      case 'replace':
        if (tokens.length === 0) doc = clone(raw.value);
        else {
          remove(doc, tokens);
          doc = add(doc, tokens, clone(raw.value));
        }
        break;
      case 'move':
      case 'copy': {
        if (typeof raw.from !== 'string') throw new PatchError(`${op} operation needs "from"`, 400);
        const from = parsePointer(raw.from);
        const v = op === 'move' ? remove(doc, from) : clone(getAt(doc, from));
        if (v === undefined) throw new PatchError(`${op} operation does not apply: doc is missing from path: "${raw.from}"`);
        doc = add(doc, tokens, v);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(doc, tokens), raw.value)) throw new PatchError(`testing value ${raw.path} failed: test failed`);
        break;
      default:
        throw new PatchError(`Unexpected kind: ${op}`, 400);
    }
  }
  return doc;
}

// ------------------------------------------------------------------ RFC 7386

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return mergeMaps(target, patch, true);
}

/**
 * RFC 7386 without recursion (patches may nest as deep as the decoder allows): objects merge key by key,
 * anything else replaces, and a null deletes when `nullDeletes` (server-side apply keeps them out
 * instead). Keys starting with `$` are directives of strategic merge patches; `dropDirectives` drops
 * them (the fallback of strategicMerge for patches too deep for its recursion).
 */
function mergeMaps(target: unknown, patch: unknown, nullDeletes: boolean, dropDirectives = false): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const root: Record<string, unknown> = isPlainObject(target) ? clone(target) : {};
  const stack: Array<[Record<string, unknown>, Record<string, unknown>]> = [[root, patch]];
  while (stack.length > 0) {
    const [out, p] = stack.pop()!;
    for (const k of Object.keys(p)) {
      if (dropDirectives && k.startsWith('$')) continue;
      const v = p[k];
      if (v === null) {
        if (nullDeletes) delete out[k];
      } else if (isPlainObject(v)) {
        // `out` is already a private copy, so its children may be merged into in place.
        const child = isPlainObject(out[k]) ? (out[k] as Record<string, unknown>) : {};
        out[k] = child;
        stack.push([child, v]);
      } else out[k] = clone(v);
    }
  }
  return root;
}

// ------------------------------------------------------------------ strategic merge

type ListStrategy = { mergeKey: string } | 'set' | 'replace';

/** Patch strategies of the built-in types (kubernetes/api patchStrategy/patchMergeKey tags) by field name. */
export function listStrategy(path: string[], field: string): ListStrategy {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
    case 'resourceClaims':
      return { mergeKey: 'name' };
    case 'ports':
      return { mergeKey: path.some((p) => p === 'containers' || p === 'initContainers' || p === 'ephemeralContainers') ? 'containerPort' : 'port' };
    case 'volumeMounts':
      return { mergeKey: 'mountPath' };
    case 'volumeDevices':
      return { mergeKey: 'devicePath' };
    case 'hostAliases':
    case 'podIPs':
      return { mergeKey: 'ip' };
    case 'conditions':
      return { mergeKey: 'type' };
    case 'ownerReferences':
      return { mergeKey: 'uid' };
    case 'topologySpreadConstraints':
      return { mergeKey: 'topologyKey' };
    case 'finalizers':
      return path.length === 1 && path[0] === 'metadata' ? 'set' : 'replace';
    default:
      return 'replace';
  }
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => !(isPlainObject(x) && x.$patch === 'delete')).map(stripDirectives);
  if (!isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    if (k.startsWith('$')) continue;
    if (v[k] === null) continue;
    out[k] = stripDirectives(v[k]);
  }
  return out;
}

function mergeList(original: unknown, patch: unknown[], strategy: ListStrategy, path: string[], nullDeletes: boolean): unknown[] {
  if (strategy === 'replace') return patch.map(stripDirectives);
  const orig = Array.isArray(original) ? original : [];
  if (strategy === 'set') {
    const out = [...orig];
    for (const v of patch) if (!out.some((o) => deepEqual(o, v))) out.push(v);
    return out;
  }
  const key = strategy.mergeKey;
  if (patch.some((p) => isPlainObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isPlainObject(p) && p.$patch === 'replace')).map(stripDirectives);
  }
  const out: unknown[] = clone(orig);
  for (const item of patch) {
    if (!isPlainObject(item)) {
      out.push(item);
      continue;
    }
    const idx = out.findIndex((o) => isPlainObject(o) && o[key] !== undefined && deepEqual(o[key], item[key]));
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMerge(out[idx], item, path, nullDeletes);
    else out.push(stripDirectives(item));
  }
  return out;
}

function reorder(list: unknown[], order: unknown[], strategy: ListStrategy): unknown[] {
  const keyOf = (v: unknown): unknown => (typeof strategy === 'object' && isPlainObject(v) ? v[strategy.mergeKey] : v);
  const ordered: unknown[] = [];
  const rest = [...list];
  for (const o of order) {
    const want = keyOf(o);
    const i = rest.findIndex((v) => deepEqual(keyOf(v), want));
    if (i >= 0) ordered.push(rest.splice(i, 1)[0]);
  }
  // Items the patch did not order (added by others, e.g. a server-side sidecar) keep their place at the end.
  return [...ordered, ...rest];
}

/**
 * Strategic merge patch of `original` with `patch`. `nullDeletes` is false for server-side apply, where
 * the applied configuration is merged rather than diffed.
 */
export function strategicMerge(original: unknown, patch: unknown, path: string[] = [], nullDeletes = true): unknown {
  if (path.length > 0) return strategicMergeAt(original, patch, path, nullDeletes);
  try {
    return strategicMergeAt(original, patch, path, nullDeletes);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    // Nested deeper than the recursion can go (the decoder allows 10000 levels): maps merge and lists
    // are replaced, which is what strategic merge does for anything without merge keys.
    return mergeMaps(original, patch, nullDeletes, true);
  }
}

function strategicMergeAt(original: unknown, patch: unknown, path: string[], nullDeletes: boolean): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') return stripDirectives(patch);
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isPlainObject(original) ? clone(original) : {};
  const orders: Array<[string, unknown[]]> = [];
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) {
      if (Array.isArray(v)) orders.push([k.slice('$setElementOrder/'.length), v]);
      continue;
    }
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as unknown[]).filter((x) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    if (v === null) {
      if (nullDeletes) delete out[k];
      continue;
    }
    if (Array.isArray(v)) out[k] = mergeList(out[k], v, listStrategy(path, k), [...path, k], nullDeletes);
    else if (isPlainObject(v)) {
      const merged = strategicMerge(out[k], v, [...path, k], nullDeletes);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else out[k] = v;
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys as string[]);
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  for (const [field, order] of orders) {
    if (Array.isArray(out[field])) out[field] = reorder(out[field] as unknown[], order, listStrategy(path, field));
  }
  return out;
}

/** Server-side apply, simplified: the applied configuration merged into the live object. */
export function applyConfiguration(live: unknown, applied: unknown): unknown {
  return strategicMerge(live, applied, [], false);
}
