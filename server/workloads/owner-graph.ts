/**
 * One cluster's objects and who owns whom, as the garbage collector sees it: objects by uid, owner
 * uid → owned uids (an owner may not have arrived yet), uids by `group/Kind`, and the walk from any
 * object up to the root of its workload. A link counts only when the owner with the reference's uid
 * also has its kind, group and name, in the dependent's namespace (engine owner-rules.ts); any
 * other reference is broken and its owner absent. Knows no definitions: which objects are served
 * is the caller's.
 */
import { isPod, ownerMismatch, ownerRefsOf, refText, type KubeObject, type OwnerReference } from '../engine/index.ts';
import { groupKindOf } from './group-kind.ts';
import { nodeGpuInfo, type NodeGpuInfo } from '../../lib/gpu/device-worth.ts';

/** Where the walk up from an object ends: at a workload root, or waiting for an owner that may still arrive. */
export type RootFound = { uid: string; served: boolean } | { waiting: string };

export interface RootRule {
  /** Does a definition serve this object? (`top`: nothing valid owns it — a pod is served only then, as a bare pod.) */
  isServed(o: KubeObject, top: boolean): boolean;
  /** May an absent owner of this reference still arrive (its kind is being listed)? Then the walk waits. */
  mayArrive(ref: OwnerReference): boolean;
}

/** How an object's ownership reads: its valid owner, or why it has none though it names one. */
export interface OwnerLink {
  owner: KubeObject | null;
  /** The reference followed (the controller's first). */
  ref: OwnerReference | null;
  /** Set when the object names owners but none is valid: absent, invalid, itself. */
  broken: string | null;
  /** An absent owner whose kind is being listed (only when `broken` is about absence). */
  absentRef: OwnerReference | null;
  /** The reference `broken` names as absent (null when `broken` gives another reason): its kind may be unreadable rather than the owner gone. */
  missingRef: OwnerReference | null;
}

export function uidOf(o: KubeObject): string {
  return typeof o.metadata?.uid === 'string' ? o.metadata.uid : '';
}

export class OwnerGraph {
  private readonly objects = new Map<string, KubeObject>();
  /** owner uid → owned uids */
  private readonly children = new Map<string, Set<string>>();
  /** group/Kind → uids */
  private readonly byKind = new Map<string, Set<string>>();
  /** Node name → its GPU labels (for devices' worth: MIG products, time-slicing replicas). */
  private readonly nodes = new Map<string, NodeGpuInfo>();

  /** The GPU labels of a node, when the node is held. */
  nodeGpu(name: string): NodeGpuInfo | null {
    return this.nodes.get(name) ?? null;
  }

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
    if (gk === NODE_GK && typeof obj.metadata?.name === 'string') this.nodes.set(obj.metadata.name, nodeGpuInfo(obj.metadata.labels));
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
    if (groupKindOf(prev) === NODE_GK && typeof prev.metadata?.name === 'string') this.nodes.delete(prev.metadata.name);
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
      const owner = this.objects.get(queue[i]);
      for (const child of this.children.get(queue[i]) ?? []) {
        if (seen.has(child)) continue;
        const o = this.objects.get(child);
        // Only what this object validly owns: a reference with its uid under another name or namespace is not ownership.
        if (!o || (owner && !ownerRefsOf(o).some((r) => r.uid === queue[i] && ownerMismatch(r, owner, o) === null))) continue;
        seen.add(child);
        out.push(o);
        queue.push(child);
      }
    }
    return out;
  }

  /** The valid owner of an object (its controller first), or why the references it carries lead nowhere. */
  ownerLink(obj: KubeObject): OwnerLink {
    const refs = ownerRefsOf(obj);
    if (refs.length === 0) return { owner: null, ref: null, broken: null, absentRef: null, missingRef: null };
    const ordered = [...refs.filter((r) => r.controller === true), ...refs.filter((r) => r.controller !== true)];
    let why: string | null = null;
    let absentRef: OwnerReference | null = null;
    let missingRef: OwnerReference | null = null;
    for (const ref of ordered) {
      const owner = typeof ref.uid === 'string' && ref.uid ? this.objects.get(ref.uid) : undefined;
      if (!owner) {
        if (why === null) {
          why = `its owner ${refText(ref)} is absent`;
          missingRef = ref;
        }
        absentRef ??= ref;
        continue;
      }
      const mismatch = ownerMismatch(ref, owner, obj);
      if (mismatch === null) return { owner, ref, broken: null, absentRef: null, missingRef: null };
      why ??= mismatch;
    }
    return { owner: null, ref: null, broken: why, absentRef, missingRef };
  }

  /**
   * The root an object belongs to, walking valid owners up to the top: the highest object a
   * definition serves, else the top of the chain itself (a workload without a definition). An
   * ownership cycle ends the walk where it closes. The walk waits (no root yet) when the top's
   * absent owner may still arrive. `memo` shares walks between siblings while the links stay as they are.
   */
  rootOf(obj: KubeObject, rule: RootRule, memo?: Map<string, RootFound>): RootFound {
    const chain: KubeObject[] = [];
    const at = new Map<string, number>();
    let above: RootFound | undefined;
    // The top of the chain; in a cycle, the member with the smallest uid, whichever way the walk came in.
    let topIndex = -1;
    for (let cur: KubeObject = obj; ; ) {
      const uid = uidOf(cur);
      above = memo?.get(uid);
      if (above !== undefined) break;
      at.set(uid, chain.length);
      chain.push(cur);
      const next: KubeObject | null = this.ownerLink(cur).owner;
      if (!next) break;
      const seen = at.get(uidOf(next));
      if (seen !== undefined) {
        topIndex = seen;
        for (let k = seen + 1; k < chain.length; k++) if (uidOf(chain[k]) < uidOf(chain[topIndex])) topIndex = k;
        break;
      }
      cur = next;
    }
    const results = new Array<RootFound>(chain.length);
    let decided: RootFound;
    let i: number;
    if (above !== undefined) {
      decided = above;
      i = chain.length - 1;
    } else {
      if (topIndex < 0) topIndex = chain.length - 1;
      const top = chain[topIndex];
      const link = this.ownerLink(top);
      decided = link.absentRef && rule.mayArrive(link.absentRef) ? { waiting: uidOf(top) } : { uid: uidOf(top), served: rule.isServed(top, true) };
      for (let k = topIndex; k < chain.length; k++) results[k] = decided;
      i = topIndex - 1;
    }
    // Down the chain: below an unserved root, the highest served object is the root (a pod only as a bare pod, above).
    for (; i >= 0; i--) {
      const o = chain[i];
      if ('uid' in decided && !decided.served && !isPod(o) && rule.isServed(o, false)) decided = { uid: uidOf(o), served: true };
      results[i] = decided;
    }
    if (memo) for (let k = 0; k < chain.length; k++) memo.set(uidOf(chain[k]), results[k]);
    return results[0] ?? decided;
  }

  /**
   * What the row of a root says about its ownership: the object above it that no definition serves
   * (the root is the served object below it), and why its chain stops short when it does (an absent
   * or invalid owner, a self-reference, a cycle).
   */
  ownershipOf(root: KubeObject): { ownedBy: KubeObject | null; broken: string | null; missingRef: OwnerReference | null } {
    const link = this.ownerLink(root);
    if (!link.owner) return { ownedBy: null, broken: link.broken, missingRef: link.missingRef };
    // A valid owner above the root: a cycle back to the root, or an object without a definition.
    const seen = new Set<string>([uidOf(root)]);
    for (let cur: KubeObject | null = link.owner; cur; cur = this.ownerLink(cur).owner) {
      if (seen.has(uidOf(cur))) return { ownedBy: null, broken: `its owners form a cycle (through ${String(link.owner.kind)} ${String(link.owner.metadata?.name)})`, missingRef: null };
      seen.add(uidOf(cur));
    }
    return { ownedBy: link.owner, broken: null, missingRef: null };
  }
}

const EMPTY: ReadonlySet<string> = new Set();
const NODE_GK = '/Node';
