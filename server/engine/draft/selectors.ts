/**
 * Pod selectors that reproduce a partition of the live pods: which label tells a role's pods from every
 * other pod the workload owns, and which label carries the instance id. Labels whose values are
 * per-object (hashes, uids, the workload's own name) would select this workload's pods only, so they
 * are the last resort.
 */
import { labelPath } from './paths.ts';
import type { KubeObject } from '../k8s.ts';

export interface TypeSelectorDraft {
  keyPath: string;
  value?: string;
  /** Why this label, for the guesses. */
  why: string;
  /** True when nothing but this workload's own values told the pods apart. */
  specific: boolean;
}

function labels(p: KubeObject): Record<string, string> {
  const l = p.metadata?.labels;
  return l && typeof l === 'object' ? l : {};
}

function annotations(p: KubeObject): Record<string, string> {
  const a = p.metadata?.annotations;
  return a && typeof a === 'object' ? a : {};
}

// Hex digests, uuids, and the 8–10 character mixes of letters and digits controllers name revisions with.
const HASHY = /^[0-9a-f]{8,}$|^[0-9a-f-]{32,}$|^(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,10}$/;

/** A value only this object would have: a hash, a uid, or text carrying the workload's own name. */
export function objectSpecific(value: string, rootName: string): boolean {
  return HASHY.test(value) || (rootName.length >= 3 && value.includes(rootName));
}

/** Keys that say what a pod is by design (`…/role`, `…/replica-type`, `…/node-type`) rank first among equals. */
function roleLike(key: string): number {
  if (/role|type/i.test(key)) return 0;
  if (/component|kind|tier/i.test(key)) return 1;
  if (/group/i.test(key)) return 2;
  return 3;
}

export interface SelectorHints {
  /** Label keys the spec itself puts on pods: they hold for this object, not for the kind, so they rank last. */
  specKeys?: ReadonlySet<string>;
  /** A key not to select the component by (its instance label: one instance's value is no type). */
  exclude?: string;
}

/**
 * A type selector for `mine` against `others` (every other pod the workload owns): a label with one
 * value on all of mine and never that value on others; a label only mine carry; a label whose one value
 * on all others mine never has (LWS workers: `worker-index` is not "0"); an annotation only mine carry.
 */
export function typeSelectorFor(mine: readonly KubeObject[], others: readonly KubeObject[], rootName: string, hints: SelectorHints = {}): TypeSelectorDraft | null {
  if (mine.length === 0) return null;
  const fromSpec = (k: string) => (hints.specKeys?.has(k) ? 5 : 0);
  const keys = [...new Set(mine.flatMap((p) => Object.keys(labels(p))))].filter((k) => k !== hints.exclude).sort((a, b) => roleLike(a) - roleLike(b) || a.localeCompare(b));
  const candidates: Array<TypeSelectorDraft & { rank: number }> = [];
  for (const k of keys) {
    const values = new Set<string | undefined>(mine.map((p) => labels(p)[k]));
    const otherValues: Array<string | undefined> = others.map((p) => labels(p)[k]);
    const v = [...values][0];
    if (values.size === 1 && v !== undefined) {
      if (otherValues.includes(v)) continue;
      const specific = objectSpecific(v, rootName);
      // A key others carry with another value names a role; one others lack merely exists on mine.
      const rank = (specific ? 20 : 0) + (otherValues.some((x) => x !== undefined) ? 0 : 2) + roleLike(k) + fromSpec(k);
      candidates.push({ keyPath: labelPath(k), value: v, why: `label ${k} is "${v}" on all ${mine.length} of its pods${others.length > 0 ? ` and on none of the other ${others.length}` : ''}`, specific, rank });
    }
    if (mine.every((p) => labels(p)[k] !== undefined) && otherValues.every((x) => x === undefined) && others.length > 0) {
      candidates.push({ keyPath: labelPath(k), why: `only its pods carry label ${k}`, specific: false, rank: 3 + roleLike(k) + fromSpec(k) });
    }
    const otherSet = new Set(otherValues);
    if (others.length > 0 && otherSet.size === 1 && !otherSet.has(undefined) && mine.every((p) => labels(p)[k] !== undefined && !otherSet.has(labels(p)[k]))) {
      const theirs = [...otherSet][0] as string;
      candidates.push({ keyPath: `${labelPath(k)} | select(. != ${JSON.stringify(theirs)})`, why: `label ${k} is "${theirs}" on every other pod and something else on its own`, specific: false, rank: 4 + roleLike(k) + fromSpec(k) });
    }
  }
  if (others.length > 0) {
    for (const k of [...new Set(mine.flatMap((p) => Object.keys(annotations(p))))].sort()) {
      if (mine.every((p) => annotations(p)[k] !== undefined) && others.every((p) => annotations(p)[k] === undefined)) {
        candidates.push({ keyPath: `.metadata.annotations[${JSON.stringify(k)}]`, why: `only its pods carry annotation ${k}`, specific: false, rank: 8 });
      }
    }
  }
  candidates.sort((a, b) => a.rank - b.rank);
  const best = candidates[0];
  if (!best) return null;
  const { rank: _rank, ...out } = best;
  return out;
}

export interface InstanceLabel {
  key: string;
  /** The pod's value equals the id only once both are lowercased. */
  lower: boolean;
}

/** A label whose value is, on every pod, the id of the instance it was assigned to. */
export function instanceLabelFor(byInstance: ReadonlyArray<{ id: string; pods: readonly KubeObject[] }>, hints: SelectorHints = {}): InstanceLabel | null {
  const withPods = byInstance.filter((i) => i.pods.length > 0);
  if (withPods.length === 0) return null;
  const fromSpec = (k: string) => (hints.specKeys?.has(k) ? 1 : 0);
  const keys = [...new Set(withPods.flatMap((i) => i.pods.flatMap((p) => Object.keys(labels(p)))))].sort((a, b) => fromSpec(a) - fromSpec(b) || roleLike(a) - roleLike(b) || a.localeCompare(b));
  for (const lower of [false, true]) {
    for (const k of keys) {
      const norm = (s: string | undefined) => (s === undefined ? undefined : lower ? s.toLowerCase() : s);
      if (withPods.every((i) => i.pods.every((p) => norm(labels(p)[k]) === norm(i.id)))) return { key: k, lower };
    }
  }
  return null;
}

/**
 * With no pods to read, the objects the root created for them often carry the same labels (a suspended
 * JobSet's Jobs carry `replicatedjob-name`): a label whose values on them are entry ids, at least two of
 * them (or the only one), is taken as the pods' instance label too.
 */
export function instanceLabelFromOwners(ids: readonly string[], owners: readonly KubeObject[], hints: SelectorHints = {}): (InstanceLabel & { kinds: string[] }) | null {
  const fromSpec = (k: string) => (hints.specKeys?.has(k) ? 1 : 0);
  const keys = [...new Set(owners.flatMap((o) => Object.keys(labels(o))))].sort((a, b) => fromSpec(a) - fromSpec(b) || roleLike(a) - roleLike(b) || a.localeCompare(b));
  for (const lower of [false, true]) {
    const norm = (s: string) => (lower ? s.toLowerCase() : s);
    const known = new Set(ids.map(norm));
    for (const k of keys) {
      const carriers = owners.filter((o) => labels(o)[k] !== undefined);
      const values = new Set(carriers.map((o) => norm(labels(o)[k])));
      if (carriers.length === 0 || ![...values].every((v) => known.has(v)) || values.size < Math.min(2, ids.length)) continue;
      return { key: k, lower, kinds: [...new Set(carriers.map((o) => String(o.kind)))] };
    }
  }
  return null;
}

/** A name for a role from its pods: the value of a `…role`/`…type` label they all share, when it is a word. */
export function roleNameOf(pods: readonly KubeObject[]): string | null {
  if (pods.length === 0) return null;
  for (const k of Object.keys(labels(pods[0])).filter((x) => roleLike(x) === 0).sort()) {
    const v = labels(pods[0])[k];
    if (/^[a-z][a-z0-9-]{0,40}$/.test(v) && pods.every((p) => labels(p)[k] === v)) return v;
  }
  return null;
}
