/**
 * Sources that differ only by an array index, or by the key of a map whose every entry holds one, are one
 * family: one component whose instances are the entries (JobSet's replicatedJobs, Ray's workerGroupSpecs,
 * PyTorch's replica specs). Any other source is a family of its own at a fixed path.
 */
import { getAt, isObj, type Step } from './paths.ts';
import type { PodSource } from './sources.ts';

export interface Family {
  sources: PodSource[];
  /** `fixed`: one source at a fixed path; `array`: the entries of an array; `map`: the values of an object. */
  axis: 'fixed' | 'array' | 'map';
  /** Path to the array or map (the source's whole path for `fixed`). */
  prefix: Step[];
  /** From an entry to its source. */
  suffix: Step[];
  /** Per source (same order), its entry: the array index or the map key. */
  entries: Array<number | string>;
}

function stepKey(s: Step): string {
  return 'index' in s ? '[]' : `.${s.key}`;
}

export function familiesOf(root: Record<string, unknown>, sources: readonly PodSource[]): Family[] {
  const out: Family[] = [];
  const used = new Set<PodSource>();
  for (const s of sources) {
    if (used.has(s)) continue;
    // The innermost array index on the path is the axis (outer ones, if any, stay fixed).
    const at = s.path.map((x) => 'index' in x).lastIndexOf(true);
    if (at >= 0) {
      const generic = (p: Step[]) => p.map((x, i) => (i === at ? '[]' : stepKey(x))).join('');
      const key = generic(s.path);
      const same = sources.filter((o) => !used.has(o) && o.shape === s.shape && o.path.length === s.path.length && generic(o.path) === key && sameOuter(o.path, s.path, at));
      same.forEach((o) => used.add(o));
      out.push({ sources: same, axis: 'array', prefix: s.path.slice(0, at), suffix: s.path.slice(at + 1), entries: same.map((o) => (o.path[at] as { index: number }).index) });
      continue;
    }
    const map = mapFamily(root, s, sources, used);
    if (map) {
      map.sources.forEach((o) => used.add(o));
      out.push(map);
      continue;
    }
    used.add(s);
    out.push({ sources: [s], axis: 'fixed', prefix: s.path, suffix: [], entries: [''] });
  }
  return out;
}

function sameOuter(a: readonly Step[], b: readonly Step[], at: number): boolean {
  return a.slice(0, at).every((x, i) => JSON.stringify(x) === JSON.stringify(b[i]));
}

/**
 * A map is a family when every one of its values holds a source of the same shape at the same place
 * (PyTorch's `pytorchReplicaSpecs.{Master,Worker}.template`). An object whose other members are settings
 * (Milvus's `spec.components`, beside `image` and `disableMetric`) is a struct: its sources stay apart.
 */
function mapFamily(root: Record<string, unknown>, s: PodSource, sources: readonly PodSource[], used: Set<PodSource>): Family | null {
  for (let at = s.path.length - 1; at >= 1; at--) {
    const step = s.path[at];
    if ('index' in step) return null;
    const holder = getAt(root, s.path.slice(0, at));
    if (!isObj(holder)) continue;
    // Sorted as gojq iterates objects, so that `.[]` and `keys[]` list the entries alike.
    const keys = Object.keys(holder).sort();
    if (keys.length < 1) continue;
    const suffix = s.path.slice(at + 1);
    const members = keys.map((k) => sources.find((o) => !used.has(o) && o.shape === s.shape && o.path.length === s.path.length && JSON.stringify(o.path) === JSON.stringify([...s.path.slice(0, at), { key: k }, ...suffix])));
    if (members.every((m) => m !== undefined) && keys.length >= 2) {
      return { sources: members as PodSource[], axis: 'map', prefix: s.path.slice(0, at), suffix, entries: keys };
    }
  }
  return null;
}
