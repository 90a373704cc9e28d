/**
 * One kind's objects, as the real API server finds them under one etcd key prefix: by namespace then
 * name, listed in key order (bytes of `namespace/name`), with a label index so that selector lists of a
 * big kind do not read every object.
 */

import type { KubeObject } from './object-store.ts';

/** One kind: objects by namespace then name, a sorted-order cache and a label index. */
export class KindTable {
  readonly byNs = new Map<string, Map<string, KubeObject>>();
  size = 0;
  /** Sorted namespaces and, per namespace, sorted names; invalidated on create/delete only. */
  private sortedNs: string[] | null = null;
  private readonly sortedNames = new Map<string, string[]>();
  /** `key=value` → set of `ns\0name`. */
  readonly labelIndex = new Map<string, Set<string>>();

  get(ns: string, name: string): KubeObject | undefined {
    return this.byNs.get(ns)?.get(name);
  }

  put(ns: string, name: string, obj: KubeObject, prev: KubeObject | undefined): void {
    let m = this.byNs.get(ns);
    if (!m) {
      m = new Map();
      this.byNs.set(ns, m);
      this.sortedNs = null;
    }
    if (!prev) {
      this.size++;
      this.sortedNames.delete(ns);
    }
    m.set(name, obj);
    this.reindexLabels(`${ns}\0${name}`, prev?.metadata.labels, obj.metadata.labels);
  }

  remove(ns: string, name: string): KubeObject | undefined {
    const m = this.byNs.get(ns);
    const prev = m?.get(name);
    if (!m || !prev) return undefined;
    m.delete(name);
    this.size--;
    this.sortedNames.delete(ns);
    if (m.size === 0) {
      this.byNs.delete(ns);
      this.sortedNs = null;
    }
    this.reindexLabels(`${ns}\0${name}`, prev.metadata.labels, undefined);
    return prev;
  }

  private reindexLabels(key: string, before: Record<string, string> | undefined, after: Record<string, string> | undefined): void {
    if (before === after) return;
    if (before) {
      for (const k in before) {
        if (after && after[k] === before[k]) continue;
        const pair = `${k}=${before[k]}`;
        const s = this.labelIndex.get(pair);
        if (s) {
          s.delete(key);
          if (s.size === 0) this.labelIndex.delete(pair);
        }
      }
    }
    if (after) {
      for (const k in after) {
        if (before && before[k] === after[k]) continue;
        const pair = `${k}=${after[k]}`;
        let s = this.labelIndex.get(pair);
        if (!s) this.labelIndex.set(pair, (s = new Set()));
        s.add(key);
      }
    }
  }

  namespaces(): string[] {
    if (!this.sortedNs) this.sortedNs = [...this.byNs.keys()].sort((a, b) => compareBytes(`${a}/`, `${b}/`));
    return this.sortedNs;
  }

  names(ns: string): string[] {
    let names = this.sortedNames.get(ns);
    if (!names) {
      names = [...(this.byNs.get(ns)?.keys() ?? [])].sort(compareBytes);
      this.sortedNames.set(ns, names);
    }
    return names;
  }

  /**
   * One page in key order from `start` (inclusive): O(log n + page) without a filter, so that paging
   * through 100k objects 500 at a time does not re-read everything per page.
   */
  page(namespace: string | undefined, opts: PageOptions): PageResult {
    const match = opts.match;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const labels = opts.labels && Object.keys(opts.labels).length > 0 ? opts.labels : undefined;
    if (labels) {
      // Index path: the (small) matching set, sorted, then the same cursor rules.
      let all = this.list(namespace, labels);
      if (opts.start) {
        const start = opts.start;
        all = all.slice(lowerBound(all.length, (i) => compareBytes(keyOf(all[i]), start) < 0));
      }
      const items: KubeObject[] = [];
      for (const o of all) {
        if (match && !match(o)) continue;
        if (items.length === limit) return { items, nextKey: keyOf(o) };
        items.push(o);
      }
      return { items };
    }
    const nss = namespace === undefined ? this.namespaces() : this.byNs.has(namespace) ? [namespace] : [];
    let nsIdx = 0;
    let nameIdx = 0;
    if (opts.start) {
      const cut = opts.start.indexOf('/');
      const sNs = opts.start.slice(0, cut);
      const sName = opts.start.slice(cut + 1);
      nsIdx = lowerBound(nss.length, (i) => compareBytes(`${nss[i]}/`, `${sNs}/`) < 0);
      if (nss[nsIdx] === sNs) {
        const names = this.names(sNs);
        nameIdx = lowerBound(names.length, (i) => compareBytes(names[i], sName) < 0);
      }
    }
    const items: KubeObject[] = [];
    for (; nsIdx < nss.length; nsIdx++, nameIdx = 0) {
      const ns = nss[nsIdx];
      const names = this.names(ns);
      const m = this.byNs.get(ns)!;
      for (; nameIdx < names.length; nameIdx++) {
        const obj = m.get(names[nameIdx])!;
        if (match && !match(obj)) continue;
        if (items.length === limit) {
          let remaining: number | undefined;
          if (!match) {
            remaining = names.length - nameIdx;
            for (let j = nsIdx + 1; j < nss.length; j++) remaining += this.byNs.get(nss[j])!.size;
          }
          return { items, nextKey: `${ns}/${names[nameIdx]}`, remaining };
        }
        items.push(obj);
      }
    }
    return { items };
  }

  /** Objects in etcd key order (bytes of `namespace/name`), optionally from one namespace. */
  list(namespace: string | undefined, labels: Record<string, string> | undefined): KubeObject[] {
    const out: KubeObject[] = [];
    const wanted = labels && Object.keys(labels).length > 0 ? labels : undefined;
    if (wanted) {
      // The smallest matching index set decides which objects are even looked at.
      let best: Set<string> | undefined;
      for (const k in wanted) {
        const s = this.labelIndex.get(`${k}=${wanted[k]}`);
        if (!s) return out;
        if (!best || s.size < best.size) best = s;
      }
      const keys = [...best!].filter((key) => namespace === undefined || key.slice(0, key.indexOf('\0')) === namespace).map((k) => k.replace('\0', '/')).sort(compareBytes);
      for (const key of keys) {
        const i = key.indexOf('/');
        const obj = this.get(key.slice(0, i), key.slice(i + 1));
        if (obj && labelsMatch(obj.metadata.labels, wanted)) out.push(obj);
      }
      return out;
    }
    const nss = namespace === undefined ? this.namespaces() : this.byNs.has(namespace) ? [namespace] : [];
    for (const ns of nss) {
      const m = this.byNs.get(ns)!;
      for (const name of this.names(ns)) out.push(m.get(name)!);
    }
    return out;
  }
}

export interface PageOptions {
  labels?: Record<string, string>;
  /** Extra predicate (selectors the index cannot answer). */
  match?: (obj: KubeObject) => boolean;
  /** First key (`namespace/name`) of the page. */
  start?: string;
  limit?: number;
}

export interface PageResult {
  items: KubeObject[];
  /** Key of the first object of the next page, when there is one. */
  nextKey?: string;
  /** Objects after this page (only known without a predicate). */
  remaining?: number;
}

/** `namespace/name`: the key objects are ordered by. */
export function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** First index in [0, n) for which `before(i)` is false (before must be monotone). */
function lowerBound(n: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function labelsMatch(labels: Record<string, string> | undefined, wanted: Record<string, string>): boolean {
  for (const k in wanted) if (!labels || labels[k] !== wanted[k]) return false;
  return true;
}

/** Byte-wise order of ASCII keys (UTF-16 order equals byte order for the names Kubernetes allows). */
export function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
