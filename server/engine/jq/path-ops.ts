import { alloc, charge, chargeSort, checkDepth, SLOT, tick } from './budget.ts';
import { fail, typeErrorPreview } from './errors.ts';
import { indexValue } from './ops.ts';
import type { JqObject, JqValue } from './values.ts';
import { compare, copyObject, getKey, isObject, objectKeys, setKey } from './values.ts';

/** A path element: object key, array index, or a `{start, end}` slice. */
export type PathKey = string | number | JqObject;
export type Path = PathKey[];

const MAX_ARRAY_INDEX = 0x1fffffff;

export function getPath(v: JqValue, path: readonly JqValue[]): JqValue {
  charge(path.length);
  let cur = v;
  for (const k of path) {
    if (cur === null) return null;
    try {
      cur = indexValue(cur, k);
    } catch {
      return fail(`cannot getpath with ${JSON.stringify(path)} against: ${typeErrorPreview(v)}`);
    }
  }
  return cur;
}

function sliceBounds(len: number, k: JqObject): [number, number] {
  const s0 = getKey(k, 'start');
  const e0 = getKey(k, 'end');
  let s = typeof s0 === 'number' ? Math.floor(s0) : 0;
  let e = typeof e0 === 'number' ? Math.ceil(e0) : len;
  if (s < 0) s = Math.max(0, len + s);
  if (e < 0) e = Math.max(0, len + e);
  s = Math.min(s, len);
  e = Math.min(Math.max(e, s), len);
  return [s, e];
}

/** Copy-on-write `setpath`: creates missing objects/arrays along the way, never mutates `root`. */
export function setPath(root: JqValue, path: readonly JqValue[], value: JqValue, i = 0): JqValue {
  // one level of recursion per path element
  if (i === 0) checkDepth(path.length);
  if (i === path.length) return value;
  const k = path[i];
  if (typeof k === 'string') {
    if (root !== null && !isObject(root)) return fail(`expected an object but got: ${typeErrorPreview(root)}`);
    const o = root === null ? {} : copyObject(root);
    setKey(o, k, setPath(getKey(o, k), path, value, i + 1));
    return o;
  }
  if (typeof k === 'number') {
    if (root !== null && !Array.isArray(root)) return fail(`expected an array but got: ${typeErrorPreview(root)}`);
    let idx = Math.floor(k);
    const len = root === null ? 0 : root.length;
    if (idx < 0) {
      idx += len;
      if (idx < 0) return fail('array index should not be negative');
    }
    if (idx > MAX_ARRAY_INDEX) return fail(`array index too large: ${idx}`);
    // the copy and the padding up to idx are charged before they are built: `.[1e8] = 1` fails at once
    alloc((Math.max(len, idx + 1)) * SLOT);
    const a = root === null ? [] : root.slice();
    while (a.length < idx) a.push(null);
    a[idx] = setPath(idx < a.length ? a[idx] : null, path, value, i + 1);
    return a;
  }
  if (isObject(k)) {
    if (root !== null && !Array.isArray(root)) return fail(`expected an array but got: ${typeErrorPreview(root)}`);
    const a = root === null ? [] : root;
    const [s, e] = sliceBounds(a.length, k);
    alloc((e - s) * SLOT);
    const replacement = setPath(a.slice(s, e), path, value, i + 1);
    if (!Array.isArray(replacement)) return fail(`a slice of an array can only be assigned another array: ${typeErrorPreview(replacement)}`);
    alloc((a.length - (e - s) + replacement.length) * SLOT);
    return [...a.slice(0, s), ...replacement, ...a.slice(e)];
  }
  if (Array.isArray(root)) return fail(`expected a number for indexing an array but got: ${typeErrorPreview(k)}`);
  return fail(`expected a string for object key but got: ${typeErrorPreview(k)}`);
}

function deletePath(root: JqValue, path: readonly JqValue[], i: number): JqValue {
  if (i === 0) checkDepth(path.length);
  if (root === null) return null;
  const k = path[i];
  const last = i === path.length - 1;
  if (typeof k === 'string') {
    if (!isObject(root)) return fail(`expected an object but got: ${typeErrorPreview(root)}`);
    if (getKey(root, k) === null && !Object.prototype.hasOwnProperty.call(root, k)) return root;
    const o = copyObject(root);
    if (last) delete o[k];
    else setKey(o, k, deletePath(getKey(root, k), path, i + 1));
    return o;
  }
  if (typeof k === 'number') {
    if (!Array.isArray(root)) return fail(`expected an array but got: ${typeErrorPreview(root)}`);
    let idx = Math.floor(k);
    if (idx < 0) idx += root.length;
    if (idx < 0 || idx >= root.length) return root;
    alloc(root.length * SLOT);
    const a = root.slice();
    if (last) a.splice(idx, 1);
    else a[idx] = deletePath(a[idx], path, i + 1);
    return a;
  }
  if (isObject(k)) {
    if (!Array.isArray(root)) return fail(`expected an array but got: ${typeErrorPreview(root)}`);
    const [s, e] = sliceBounds(root.length, k);
    alloc(root.length * SLOT);
    if (last) return [...root.slice(0, s), ...root.slice(e)];
    const inner = deletePath(root.slice(s, e), path, i + 1);
    return [...root.slice(0, s), ...(inner as JqValue[]), ...root.slice(e)];
  }
  if (Array.isArray(root)) return fail(`expected a number for indexing an array but got: ${typeErrorPreview(k)}`);
  return fail(`expected a string for object key but got: ${typeErrorPreview(k)}`);
}

/** jq's `delpaths`: deletes the longest/last paths first so earlier deletions do not shift later ones. */
export function delPaths(root: JqValue, paths: readonly JqValue[]): JqValue {
  chargeSort(paths.length);
  alloc(paths.length * SLOT);
  const sorted = paths.slice().sort((a, b) => compare(b, a));
  let cur = root;
  for (const p of sorted) {
    if (!Array.isArray(p)) return fail(`expected an array but got: ${typeErrorPreview(p)}`);
    if (p.length === 0) return null;
    cur = deletePath(cur, p, 0);
  }
  return cur;
}

/** All paths below `v` in pre-order (jq's `paths`), objects in sorted key order; each path is a new array. */
export function allPaths(v: JqValue, prefix: Path, emit: (p: Path, value: JqValue) => void): void {
  checkDepth(prefix.length);
  const bytes = (prefix.length + 1) * SLOT;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      tick();
      alloc(bytes);
      const p = [...prefix, i];
      emit(p, v[i]);
      allPaths(v[i], p, emit);
    }
  } else if (isObject(v)) {
    for (const k of objectKeys(v)) {
      tick();
      alloc(bytes);
      const p = [...prefix, k];
      emit(p, v[k]);
      allPaths(v[k], p, emit);
    }
  }
}
