/**
 * Stack-safe versions of the JSON walks the store and the API layer run on every object. The API
 * server's decoder accepts values nested up to 10,000 levels (the Go JSON scanner's limit), while V8's
 * recursive JSON.stringify and plain recursive walks overflow the stack after a few thousand. The fast
 * recursive form is tried first; a RangeError (stack overflow) falls back to an explicit-stack walk with
 * the same result, so deep objects cost more but never fail halfway through a write or a response.
 */

/** Whether an error is V8's stack overflow (what the recursive walks hit on deep values). */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/** `JSON.stringify(v)`, also for values nested deeper than the call stack allows. */
export function encodeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return encodeIteratively(v);
  }
}

/** The JSON text of one value, as JSON.stringify writes it (undefined members dropped, toJSON honoured). */
function encodeIteratively(root: unknown): string {
  interface Frame {
    keys?: string[];
    arr?: unknown[];
    obj?: Record<string, unknown>;
    i: number;
    wrote: boolean;
  }
  const out: string[] = [];
  const stack: Frame[] = [];
  const prepare = (x: unknown): unknown => {
    const withJson = x as { toJSON?: () => unknown } | null;
    return typeof withJson === 'object' && withJson !== null && typeof withJson.toJSON === 'function' ? withJson.toJSON() : x;
  };
  /** Writes a scalar, or opens a container frame. Returns false for values JSON leaves out. */
  const start = (raw: unknown): boolean => {
    const x = prepare(raw);
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') return false;
    if (x === null || typeof x !== 'object') {
      out.push(JSON.stringify(x));
      return true;
    }
    if (Array.isArray(x)) {
      out.push('[');
      stack.push({ arr: x, i: 0, wrote: false });
    } else {
      out.push('{');
      const obj = x as Record<string, unknown>;
      stack.push({ obj, keys: Object.keys(obj), i: 0, wrote: false });
    }
    return true;
  };
  if (!start(root)) return undefined as unknown as string;
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if (f.arr) {
      if (f.i >= f.arr.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (f.i > 0) out.push(',');
      const item = f.arr[f.i++];
      if (!start(item)) out.push('null');
    } else {
      const keys = f.keys!;
      if (f.i >= keys.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      const k = keys[f.i++];
      const value = prepare(f.obj![k]);
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
      out.push(`${f.wrote ? ',' : ''}${JSON.stringify(k)}:`);
      f.wrote = true;
      start(value);
    }
  }
  return out.join('');
}

/** Freezes a JSON value in place, every level; returns it. */
export function deepFreezeAll<T>(v: T): T {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null || Object.isFrozen(x)) continue;
    Object.freeze(x);
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) stack.push(x[i]);
    } else {
      for (const k in x as Record<string, unknown>) stack.push((x as Record<string, unknown>)[k]);
    }
  }
  return v;
}

/** copyValue without recursion (frozen subtrees shared, undefined members dropped, Dates as strings). */
export function copyValueIteratively(root: unknown): unknown {
  const copyOne = (x: unknown): { value: unknown; todo?: [unknown, unknown] } => {
    if (typeof x !== 'object' || x === null || Object.isFrozen(x)) return { value: x };
    if (x instanceof Date) return { value: x.toISOString() };
    const target: unknown = Array.isArray(x) ? new Array(x.length) : {};
    return { value: target, todo: [x, target] };
  };
  const first = copyOne(root);
  const stack: Array<[unknown, unknown]> = first.todo ? [first.todo] : [];
  while (stack.length > 0) {
    const [src, dst] = stack.pop()!;
    if (Array.isArray(src)) {
      const d = dst as unknown[];
      for (let i = 0; i < src.length; i++) {
        const c = copyOne(src[i] === undefined ? null : src[i]);
        d[i] = c.value;
        if (c.todo) stack.push(c.todo);
      }
    } else {
      const s = src as Record<string, unknown>;
      const d = dst as Record<string, unknown>;
      for (const k in s) {
        if (s[k] === undefined) continue;
        const c = copyOne(s[k]);
        d[k] = c.value;
        if (c.todo) stack.push(c.todo);
      }
    }
  }
  return first.value;
}

/** deepEqual without recursion (key order ignored, undefined members ignored). */
export function deepEqualIteratively(a0: unknown, b0: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a0, b0]];
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (a === b) continue;
    if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) stack.push([a[i], b[i]]);
      continue;
    }
    if (Array.isArray(b)) return false;
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    let count = 0;
    for (const k in ao) {
      if (ao[k] === undefined) continue;
      count++;
      stack.push([ao[k], bo[k]]);
    }
    for (const k in bo) if (bo[k] !== undefined) count--;
    if (count !== 0) return false;
  }
  return true;
}
