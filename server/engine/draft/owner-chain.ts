/**
 * The owner chain of each pod up to the workload's root (by ownerReferences, controller first), and the
 * kind of the object just below the root on it: what the root creates for that pod (JobSet → Job,
 * LeaderWorkerSet → StatefulSet, RayCluster → the Pod itself). Ownership here is only for naming kinds;
 * which objects the root owns was decided by the caller (the owner index, under the GC's rules).
 */
import { meta, type KubeObject } from '../k8s.ts';
import { ownerRefsOf } from '../owner-rules.ts';

export interface ChildKind {
  group: string;
  version: string;
  kind: string;
}

export function gvkOf(o: KubeObject): ChildKind {
  const av = typeof o.apiVersion === 'string' ? o.apiVersion : 'v1';
  const i = av.indexOf('/');
  return { group: i < 0 ? '' : av.slice(0, i), version: i < 0 ? av : av.slice(i + 1), kind: typeof o.kind === 'string' ? o.kind : '' };
}

/** Per pod: the objects on its owner chain, from its owner up to the one right below the root (empty when the root owns it), or null when the chain does not reach the root. */
export function chainToRoot(root: KubeObject, owned: readonly KubeObject[]): (pod: KubeObject) => KubeObject[] | null {
  const byUid = new Map<string, KubeObject>();
  for (const o of [root, ...owned]) {
    const uid = meta(o).uid;
    if (typeof uid === 'string' && uid) byUid.set(uid, o);
  }
  const rootUid = meta(root).uid;
  const byName = (kind: unknown, name: unknown) => [root, ...owned].find((o) => o.kind === kind && meta(o).name === name);
  return (pod) => {
    const out: KubeObject[] = [];
    let cur: KubeObject = pod;
    const seen = new Set<KubeObject>();
    while (!seen.has(cur)) {
      seen.add(cur);
      const refs = ownerRefsOf(cur);
      const ref = refs.find((r) => r.controller) ?? refs[0];
      if (!ref) return null;
      const owner = (typeof ref.uid === 'string' && byUid.get(ref.uid)) || byName(ref.kind, ref.name);
      if (!owner) return null;
      if (owner === root || (rootUid && meta(owner).uid === rootUid)) return out;
      out.push(owner);
      cur = owner;
    }
    return null;
  };
}

/** Per pod: the object right below the root on its owner chain (the pod itself when the root owns it), or null. */
export function childOfRoot(root: KubeObject, owned: readonly KubeObject[]): (pod: KubeObject) => KubeObject | null {
  const chain = chainToRoot(root, owned);
  return (pod) => {
    const c = chain(pod);
    return c === null ? null : (c[c.length - 1] ?? pod);
  };
}

/** The kinds on a pod's way to the root (`StatefulSet<Pod<StatefulSet`): pods made along different ways play different roles. */
export function chainSignature(chain: (pod: KubeObject) => KubeObject[] | null, pod: KubeObject): string {
  return (chain(pod) ?? []).map((o) => String(o.kind)).join('<');
}
