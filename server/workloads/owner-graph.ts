/**
 * One cluster's objects and who owns whom, as the garbage collector sees it: objects by uid, owner
 * uid → owned uids (an owner may not have arrived yet), uids by `group/Kind`, and the walk from any
 * object up to the root of its workload. Knows no definitions: what counts as a root is the caller's.
 */
import type { KubeObject } from '../engine/index.ts';
import { groupKindOf } from './group-kind.ts';

export function uidOf(o: KubeObject): string {
  return typeof o.metadata?.uid === 'string' ? o.metadata.uid : '';
}

type OwnerRefs = NonNullable<NonNullable<KubeObject['metadata']>['ownerReferences']>;

export class OwnerGraph {
  private readonly objects = new Map<string, KubeObject>();
  /** owner uid → owned uids */
  private readonly children = new Map<string, Set<string>>();
  /** group/Kind → uids */
  private readonly byKind = new Map<string, Set<string>>();

  get size(): number {
    return this.objects.size;
  }

  get(uid: string): KubeObject | undefined {
    return this.objects.get(uid);
  }

  has(uid: string): boolean {
    return this.objects.has(uid);
  }

  /** Adds or replaces an object and its ownership links. */
  put(obj: KubeObject): void {
    const uid = uidOf(obj);
    const prev = this.objects.get(uid);
    if (prev) this.unlinkOwners(uid, prev);
    this.objects.set(uid, obj);
    const gk = groupKindOf(obj);
    let kindSet = this.byKind.get(gk);
    if (!kindSet) this.byKind.set(gk, (kindSet = new Set()));
    kindSet.add(uid);
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (!ref?.uid) continue;
      let s = this.children.get(ref.uid);
      if (!s) this.children.set(ref.uid, (s = new Set()));
      s.add(uid);
    }
  }

  /** Removes an object; what it owns keeps its links (the owner's uid may come back in a relist). */
  delete(uid: string): KubeObject | undefined {
    const prev = this.objects.get(uid);
    if (!prev) return undefined;
    this.unlinkOwners(uid, prev);
    this.objects.delete(uid);
    this.byKind.get(groupKindOf(prev))?.delete(uid);
    return prev;
  }

  private unlinkOwners(uid: string, obj: KubeObject): void {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (!ref?.uid) continue;
      const s = this.children.get(ref.uid);
      s?.delete(uid);
      if (s && s.size === 0) this.children.delete(ref.uid);
    }
  }

  /** The uids an object owns directly (present or not). */
  childrenOf(uid: string): ReadonlySet<string> {
    return this.children.get(uid) ?? EMPTY;
  }

  /** The uids of one kind. */
  uidsOfKind(gk: string): ReadonlySet<string> {
    return this.byKind.get(gk) ?? EMPTY;
  }

  kinds(): IterableIterator<[string, ReadonlySet<string>]> {
    return this.byKind.entries();
  }

  /** Everything an object owns at any depth, present objects only. */
  ownedBy(rootUid: string): KubeObject[] {
    const out: KubeObject[] = [];
    const seen = new Set<string>([rootUid]);
    const queue = [rootUid];
    for (let i = 0; i < queue.length; i++) {
      for (const child of this.children.get(queue[i]) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        const o = this.objects.get(child);
        if (!o) continue;
        out.push(o);
        queue.push(child);
      }
    }
    return out;
  }

  /**
   * The root an object belongs to: walking present owners (the controller first) until `isRoot`
   * holds. `memo` (uid → root) shares the walk between objects with common owners while the links
   * stay as they are. An ownership cycle has no root.
   */
  rootOf(obj: KubeObject, isRoot: (o: KubeObject) => boolean, memo?: Map<string, string | null>): string | null {
    let cur: KubeObject | undefined = obj;
    const walked: string[] = [];
    let root: string | null = null;
    while (cur) {
      const uid = uidOf(cur);
      const known = memo?.get(uid);
      if (known !== undefined) {
        root = known;
        break;
      }
      if (walked.includes(uid)) break;
      walked.push(uid);
      if (isRoot(cur)) {
        root = uid;
        break;
      }
      const refs: OwnerRefs = cur.metadata?.ownerReferences ?? [];
      const ref = refs.find((r) => r?.controller && r.uid && this.objects.has(r.uid)) ?? refs.find((r) => r?.uid && this.objects.has(r.uid));
      cur = ref?.uid ? this.objects.get(ref.uid) : undefined;
    }
    if (memo) for (const uid of walked) memo.set(uid, root);
    return root;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
