/** Metadata and status helpers shared by the simulated controllers (pure functions). */

import type { Condition, KubeObject, OwnerReference, Pod, StringMap } from './types.ts';

/** The controller reference every operator sets on its children (controller-runtime SetControllerReference). */
export function ctrlRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  const refs = obj.metadata.ownerReferences;
  if (!refs) return undefined;
  for (const r of refs) if (r.controller) return r;
  return undefined;
}

export function groupOfApiVersion(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** `group/Kind`, the identity of a kind independent of its version (as the store keys it). */
export function gkOf(apiVersion: string, kind: string): string {
  return `${groupOfApiVersion(apiVersion)}/${kind}`;
}

export function objGk(obj: KubeObject): string {
  return gkOf(obj.apiVersion, obj.kind);
}

export function nsName(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

export function labelsMatch(labels: StringMap | undefined, selector: StringMap | undefined): boolean {
  if (!selector) return true;
  for (const k in selector) if (!labels || labels[k] !== selector[k]) return false;
  return true;
}

/** The entries of `m` under `keys` (undefined when it has none of them). */
export function pickKeys(m: StringMap | undefined, keys: readonly string[]): StringMap | undefined {
  let out: StringMap | undefined;
  for (const k of keys) if (m?.[k] !== undefined) (out ??= {})[k] = m[k];
  return out;
}

/** Merge of label/annotation maps, later ones winning; undefined when empty (so it is omitted). */
export function mergeMaps(...maps: Array<StringMap | undefined>): StringMap | undefined {
  let out: StringMap | undefined;
  for (const m of maps) {
    if (!m) continue;
    for (const k in m) {
      if (m[k] === undefined) continue;
      (out ??= {})[k] = m[k];
    }
  }
  return out;
}

/**
 * Sets a condition by type and returns a new list. `lastTransitionTime` moves only when the status flips,
 * as every Kubernetes controller does; `lastUpdateTime`/`lastProbeTime` are kept only where given.
 */
export function setCondition(list: readonly Condition[] | undefined, cond: Condition, now: string): Condition[] {
  const out = [...(list ?? [])];
  const i = out.findIndex((c) => c.type === cond.type);
  const prev = i >= 0 ? out[i] : undefined;
  const next: Condition = { ...cond };
  if (prev && prev.status === cond.status) {
    next.lastTransitionTime = prev.lastTransitionTime ?? now;
    if (cond.lastUpdateTime !== undefined) {
      const same = prev.reason === cond.reason && prev.message === cond.message;
      next.lastUpdateTime = same ? prev.lastUpdateTime ?? now : now;
    }
  } else {
    next.lastTransitionTime = now;
    if (cond.lastUpdateTime !== undefined) next.lastUpdateTime = now;
  }
  if (i >= 0) out[i] = next;
  else out.push(next);
  return out;
}

export function removeCondition(list: readonly Condition[] | undefined, type: string): Condition[] {
  return (list ?? []).filter((c) => c.type !== type);
}

export function getCondition(obj: KubeObject | { status?: unknown }, type: string): Condition | undefined {
  const conds = (obj.status as { conditions?: Condition[] } | undefined)?.conditions;
  return conds?.find((c) => c.type === type);
}

export function isConditionTrue(obj: KubeObject | { status?: unknown }, type: string): boolean {
  return getCondition(obj, type)?.status === 'True';
}

// ------------------------------------------------------------------ pods

export function podPhase(pod: Pod): string {
  return pod.status?.phase ?? 'Pending';
}

export function isPodTerminal(pod: Pod): boolean {
  const p = pod.status?.phase;
  return p === 'Succeeded' || p === 'Failed';
}

export function isPodDeleting(pod: Pod): boolean {
  return !!pod.metadata.deletionTimestamp;
}

/** Counted by controllers as "active": not finished and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  return !isPodTerminal(pod) && !isPodDeleting(pod);
}

export function isPodReady(pod: Pod): boolean {
  if (pod.status?.phase !== 'Running') return false;
  const c = pod.status.conditions;
  if (!c) return false;
  for (const x of c) if (x.type === 'Ready') return x.status === 'True';
  return false;
}

export function isPodRunning(pod: Pod): boolean {
  return pod.status?.phase === 'Running';
}

export function isPodScheduled(pod: Pod): boolean {
  return !!pod.spec.nodeName;
}

/** Sum of container restarts (what OnFailure batch controllers count towards their backoff). */
export function podRestarts(pod: Pod): number {
  let n = 0;
  for (const s of pod.status?.containerStatuses ?? []) n += s.restartCount ?? 0;
  return n;
}

/** Creation order, then name: the order in which Kubernetes controllers break ties. */
export function byCreation(a: KubeObject, b: KubeObject): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ra = Number(a.metadata.resourceVersion ?? 0);
  const rb = Number(b.metadata.resourceVersion ?? 0);
  if (ra !== rb) return ra - rb;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}

/** Compressed index ranges as Job status writes them: [0,1,2,5,7,8] → "0-2,5,7,8". */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    if (j - i >= 2) parts.push(`${sorted[i]}-${sorted[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(sorted[k]));
    i = j + 1;
  }
  return parts.join(',');
}

export function parseIndexes(s: string | undefined): Set<number> {
  const out = new Set<number>();
  if (!s) return out;
  for (const part of s.split(',')) {
    const [a, b] = part.split('-').map(Number);
    if (b === undefined) out.add(a);
    else for (let i = a; i <= b; i++) out.add(i);
  }
  return out;
}

/** Duration strings as the sim annotations use them: "90s", "10m", "1h30m", "1500ms", or plain ms. */
export function parseDuration(s: string | undefined): number | undefined {
  if (s === undefined || s === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
  let total = 0;
  let matched = '';
  for (let m = re.exec(s); m; m = re.exec(s)) {
    matched += m[0];
    const n = Number(m[1]);
    total += n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const)[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  }
  return matched === s ? total : undefined;
}

/** Adds milliseconds to an RFC 3339 timestamp. */
export function timePlus(iso: string, ms: number): number {
  return Date.parse(iso) + ms;
}
