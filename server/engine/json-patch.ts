/** RFC 6902 JSON Patch: building pointers and applying the operations the engine emits. */
import { EngineFailure } from './errors.ts';
import { isRecord } from './k8s.ts';

export type JsonPatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export function pointer(path: ReadonlyArray<string | number>): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function parsePointer(p: string): string[] {
  if (p === '') return [];
  return p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Applies operations to a deep copy; throws EngineFailure naming the failing operation. */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOp[]): T {
  const out = structuredClone(doc) as unknown;
  ops.forEach((op, i) => {
    const keys = parsePointer(op.path);
    if (keys.length === 0) throw new EngineFailure('patch.invalid', `operation ${i}: the whole document cannot be patched`, op.path);
    let parent: unknown = out;
    for (const k of keys.slice(0, -1)) {
      parent = Array.isArray(parent) ? parent[Number(k)] : isRecord(parent) ? parent[k] : undefined;
      if (parent === undefined || parent === null || typeof parent !== 'object') throw new EngineFailure('patch.invalid', `operation ${i} (${op.op} ${op.path}): parent does not exist`, op.path);
    }
    const last = keys[keys.length - 1];
    if (Array.isArray(parent)) {
      const idx = last === '-' ? parent.length : Number(last);
      if (op.op === 'test') { if (!equal(parent[idx], op.value)) throw new EngineFailure('patch.test-failed', `operation ${i}: ${op.path} changed`, op.path); }
      else if (op.op === 'remove') parent.splice(idx, 1);
      else if (op.op === 'replace') parent[idx] = structuredClone(op.value);
      else parent.splice(idx, 0, structuredClone(op.value));
      return;
    }
    const obj = parent as Record<string, unknown>;
    if (op.op === 'test') { if (!equal(obj[last], op.value)) throw new EngineFailure('patch.test-failed', `operation ${i}: ${op.path} changed`, op.path); }
    else if (op.op === 'remove') delete obj[last];
    else obj[last] = structuredClone(op.value);
  });
  return out as T;
}

/** The value at a path, or undefined. */
export function getAt(doc: unknown, path: ReadonlyArray<string | number>): unknown {
  let cur = doc;
  for (const k of path) {
    if (Array.isArray(cur) && typeof k === 'number') cur = cur[k];
    else if (isRecord(cur) && typeof k === 'string') cur = cur[k];
    else return undefined;
  }
  return cur;
}

/**
 * Ops that set `value` at `path` in `doc`, first creating missing intermediate objects
 * (JSON Patch `add` needs the parent to exist). `doc` is the state the ops will apply to.
 */
export function setOps(doc: unknown, path: ReadonlyArray<string | number>, value: unknown): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  for (let i = 1; i < path.length; i++) {
    const v = getAt(doc, path.slice(0, i));
    if (v === undefined || v === null) {
      // Build the rest of the structure in one add.
      let nested: unknown = value;
      for (let j = path.length - 1; j >= i; j--) nested = { [String(path[j])]: nested };
      ops.push({ op: 'add', path: pointer(path.slice(0, i)), value: nested });
      return ops;
    }
  }
  ops.push({ op: 'add', path: pointer(path), value });
  return ops;
}
