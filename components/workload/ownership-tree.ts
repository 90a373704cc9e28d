/** The raw ownership list of a workload page as indented lines with GPUs summed below each object. Pure. */
import type { OwnedObject } from '../../contract/index.ts';

export interface OwnershipLine {
  object: OwnedObject;
  depth: number;
  /** GPUs of the unfinished pods at or below this object. */
  gpus: number;
  pods: number;
}

/** Depth-first from the root, children by kind then name; objects whose owner is not listed (or in a cycle) at depth 0. */
export function ownershipLines(objects: readonly OwnedObject[]): OwnershipLine[] {
  const children = new Map<string | null, OwnedObject[]>();
  const listed = new Set(objects.map((o) => o.uid));
  for (const o of objects) {
    const parent = o.owner !== null && listed.has(o.owner) ? o.owner : null;
    const list = children.get(parent);
    if (list) list.push(o);
    else children.set(parent, [o]);
  }
  for (const list of children.values()) list.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  const memo = new Map<string, { gpus: number; pods: number }>();
  const below = (o: OwnedObject, seen: Set<string>): { gpus: number; pods: number } => {
    const known = memo.get(o.uid);
    if (known) return known;
    const own = o.pod && o.pod.phase !== 'Succeeded' && o.pod.phase !== 'Failed' ? { gpus: o.pod.gpus, pods: 1 } : { gpus: 0, pods: o.pod ? 1 : 0 };
    seen.add(o.uid);
    for (const c of children.get(o.uid) ?? []) {
      if (seen.has(c.uid)) continue;
      const b = below(c, seen);
      own.gpus += b.gpus;
      own.pods += b.pods;
    }
    memo.set(o.uid, own);
    return own;
  };
  const out: OwnershipLine[] = [];
  const visit = (o: OwnedObject, depth: number, seen: Set<string>) => {
    if (seen.has(o.uid)) return;
    seen.add(o.uid);
    const b = below(o, new Set());
    out.push({ object: o, depth, gpus: b.gpus, pods: b.pods });
    for (const c of children.get(o.uid) ?? []) visit(c, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const top of children.get(null) ?? []) visit(top, 0, seen);
  // Objects only reachable through a cycle have no top: listed at depth 0, never dropped.
  for (const o of objects) visit(o, 0, seen);
  return out;
}
