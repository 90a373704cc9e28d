/** JSON output helpers: a per-object encoding cache and chunked writing of large lists. */

import type { ServerResponse } from 'node:http';
import { encodeJson } from '../store/deep-json.ts';
import type { KubeObject } from '../store/object-store.ts';

/**
 * Stored objects are frozen, so their encoding never changes: encode each version once, whether it
 * goes to one list, many lists or a hundred watchers. Entries vanish with the object version.
 */
const encoded = new WeakMap<object, string>();

export function encodeObject(obj: KubeObject): string {
  if (!Object.isFrozen(obj)) return encodeJson(obj);
  let s = encoded.get(obj);
  if (s === undefined) {
    s = encodeJson(obj);
    encoded.set(obj, s);
  }
  return s;
}

const CHUNK = 1 << 20;

/** Writes `prefix + items.join(',') + suffix` in ~1 MB chunks, waiting for the socket to drain. */
export async function writeJoined(res: ServerResponse, prefix: string, count: number, item: (i: number) => string, suffix: string): Promise<void> {
  let buf = prefix;
  for (let i = 0; i < count; i++) {
    if (i > 0) buf += ',';
    buf += item(i);
    if (buf.length >= CHUNK) {
      const ok = res.write(buf);
      buf = '';
      if (!ok) {
        if (res.destroyed) return;
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
        if (res.destroyed) return;
      }
    }
  }
  res.end(buf + suffix);
}
