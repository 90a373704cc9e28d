/**
 * Replica counts: the spec fields around a pod source whose numbers give the live pod counts. Candidates
 * are the count-like fields (`replicas`, `parallelism`, `size`, `…Count`, `numOf…`, `completions`, and
 * `minReplicas` last) on the source's ancestors and one level beside them; the expression is the simplest
 * single field, product, or `× (n − 1)` (a group of n whose first pod is another role's) that gives every
 * instance its observed count, each field defaulting to 1 as Kubernetes defaults counts.
 */
import { getAt, isObj, jqPath, type Step } from './paths.ts';
import type { Family } from './families.ts';

/** Count-like field names, best first; anything else (limits, seconds, ports, indices) is not a count. */
const COUNT_NAMES: RegExp[] = [/^replicas$/i, /^parallelism$/i, /size$/i, /count$/i, /^numOf/i, /^completions$/i, /^min(Replicas|Available)$/i];

function rankOf(name: string): number {
  const i = COUNT_NAMES.findIndex((r) => r.test(name));
  return i < 0 ? -1 : i;
}

export interface CountField {
  /** Relative to the family's entry (`rel`), or absolute from the root (`abs`). */
  scope: 'rel' | 'abs';
  steps: Step[];
  rank: number;
}

export interface ScaleDraft {
  /** The jq text of `replicasPath`, or null when no count field exists (the engine then asks for 1 pod per instance). */
  replicasPath: string | null;
  /** Per source, the count the expression gives. */
  values: number[];
  /** How many sources with live pods it matches, of how many. */
  matched: number;
  observed: number;
  /** The fields it reads, for the guesses. */
  fields: string[];
}

function numberAt(root: unknown, steps: readonly Step[]): number | null {
  const v = getAt(root, steps);
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

/** Count-like fields on each ancestor of `path` and on its other object members, skipping what `exclude` says is a pod description. */
function fieldsAround(root: unknown, path: readonly Step[], from: number, includeSelf: boolean): Step[][] {
  const out: Step[][] = [];
  const top = includeSelf ? path.length : path.length - 1;
  for (let j = top; j >= Math.max(from, 1); j--) {
    const at = path.slice(0, j);
    const obj = getAt(root, at);
    if (!isObj(obj)) continue;
    const next = path[j];
    for (const [k, v] of Object.entries(obj)) {
      if (next && 'key' in next && next.key === k) continue;
      if (typeof v === 'number' && rankOf(k) >= 0) out.push([...at, { key: k }]);
      else if (isObj(v) && !(k === 'metadata' || k === 'template' || k === 'spec')) {
        for (const [k2, v2] of Object.entries(v)) if (typeof v2 === 'number' && rankOf(k2) >= 0) out.push([...at, { key: k }, { key: k2 }]);
      }
    }
  }
  return out;
}

/** The count fields a family's instances can be read from: entry-relative ones (any entry has them) and absolute ones above the entries. */
export function countFields(root: unknown, fam: Family): CountField[] {
  const includeSelf = fam.sources[0].shape === 'fragments' || fam.sources[0].shape === 'scaled';
  const seen = new Set<string>();
  const out: CountField[] = [];
  const add = (f: CountField) => {
    const key = `${f.scope}${jqPath(f.steps)}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(f);
  };
  const entryDepth = fam.axis === 'fixed' ? 0 : fam.prefix.length + 1;
  for (const s of fam.sources) {
    for (const steps of fieldsAround(root, s.path, 1, includeSelf)) {
      const name = steps[steps.length - 1] as { key: string };
      if (fam.axis !== 'fixed' && steps.length >= entryDepth && isUnder(steps, s.path.slice(0, entryDepth))) {
        add({ scope: 'rel', steps: steps.slice(entryDepth), rank: rankOf(name.key) });
      } else if (fam.axis === 'fixed' || steps.length <= fam.prefix.length || !isUnder(steps, fam.prefix)) {
        add({ scope: 'abs', steps, rank: rankOf(name.key) });
      }
    }
  }
  return out;
}

function isUnder(steps: readonly Step[], prefix: readonly Step[]): boolean {
  return prefix.every((s, i) => JSON.stringify(s) === JSON.stringify(steps[i]));
}

type Form = { fields: CountField[]; minusOne: boolean; text: (ref: (f: CountField) => string) => string; cost: number };

function forms(fields: readonly CountField[]): Form[] {
  const out: Form[] = [];
  // A `min…` field is a floor, not a desired count: it is read only when nothing else fits.
  const penalty = (fs: CountField[]) => fs.reduce((x, f) => x + f.rank / 10 + (f.rank === COUNT_NAMES.length - 1 ? 5 : 0), 0);
  for (const a of fields) out.push({ fields: [a], minusOne: false, text: (r) => r(a), cost: 1 + penalty([a]) });
  for (const a of fields) {
    for (const b of fields) {
      if (a === b) continue;
      const ab = [a, b].sort((x, y) => x.rank - y.rank);
      if (a === ab[0]) out.push({ fields: ab, minusOne: false, text: (r) => `${r(ab[0])} * ${r(ab[1])}`, cost: 2 + penalty(ab) });
      out.push({ fields: [a, b], minusOne: true, text: (r) => `${r(a)} * (${r(b)} - 1)`, cost: 3 + penalty([a, b]) });
    }
  }
  for (const b of fields) out.push({ fields: [b], minusOne: true, text: (r) => `${r(b)} - 1`, cost: 2.5 + penalty([b]) });
  return out;
}

/** The value of a form for one source (each field defaulting to 1, as `// 1` does). */
function evaluate(form: Form, root: unknown, fam: Family, i: number): number {
  const entry = fam.axis === 'fixed' ? [] : fam.sources[i].path.slice(0, fam.prefix.length + 1);
  const v = form.fields.map((f) => numberAt(root, f.scope === 'rel' ? [...entry, ...f.steps] : f.steps) ?? 1);
  if (form.minusOne) return form.fields.length === 1 ? v[0] - 1 : v[0] * (v[1] - 1);
  return v.reduce((x, y) => x * y, 1);
}

/**
 * The replicas expression for a family, given the pods observed per source (`null` where nothing can be
 * known: the workload has no pods at all). The form matching most instances wins; ties go to the simpler
 * form and the better-named fields. When none matches, the best-named single field still says what the
 * spec asks for (the caller reports the disagreement).
 */
export function draftScale(root: unknown, fam: Family, observed: ReadonlyArray<number | null>, entryIter: string): ScaleDraft {
  const fields = countFields(root, fam);
  const known = observed.map((o, i) => [o, i] as const).filter((x): x is readonly [number, number] => x[0] !== null);
  let best: { form: Form; matched: number; score: number } | null = null;
  for (const form of forms(fields)) {
    const matched = known.filter(([o, i]) => evaluate(form, root, fam, i) === o).length;
    const score = matched * 100 - form.cost;
    if (!best || score > best.score) best = { form, matched, score };
  }
  if (!best) return { replicasPath: null, values: fam.sources.map(() => 1), matched: known.filter(([o]) => o === 1).length, observed: known.length, fields: [] };
  if (best.matched === 0) {
    const single = forms(fields).filter((f) => f.fields.length === 1 && !f.minusOne).sort((a, b) => a.cost - b.cost)[0];
    best = { form: single, matched: 0, score: 0 };
  }
  const form = best.form;
  const abs = form.fields.filter((f) => f.scope === 'abs');
  const ref = (f: CountField) => (f.scope === 'rel' ? `(${jqPath(f.steps)} // 1)` : fam.axis === 'fixed' ? `(${jqPath(f.steps)} // 1)` : `$c${abs.indexOf(f)}`);
  const body = form.text(ref);
  const text = fam.axis === 'fixed' ? body : `${abs.map((f, i) => `(${jqPath(f.steps)} // 1) as $c${i} | `).join('')}${entryIter} | ${body}`;
  return {
    replicasPath: text,
    values: fam.sources.map((_, i) => evaluate(form, root, fam, i)),
    matched: best.matched,
    observed: known.length,
    fields: form.fields.map((f) => (f.scope === 'rel' ? `${entryIter} | ${jqPath(f.steps)}` : jqPath(f.steps))),
  };
}

/** `minReplicasPath` / `maxReplicasPath`: the nearest field of that name, when the spec has one. */
export function draftBound(root: unknown, fam: Family, which: 'min' | 'max', entryIter: string): string | null {
  const name = which === 'min' ? /^min(Replicas|Available)$/ : /^maxReplicas$/;
  const entryDepth = fam.axis === 'fixed' ? 0 : fam.prefix.length + 1;
  const includeSelf = fam.sources[0].shape === 'fragments' || fam.sources[0].shape === 'scaled';
  for (const s of fam.sources) {
    const all = fieldsAroundNamed(root, s.path, includeSelf, name);
    const hit = all[0];
    if (!hit) continue;
    if (fam.axis !== 'fixed' && hit.length >= entryDepth && isUnder(hit, s.path.slice(0, entryDepth))) return `${entryIter} | ${jqPath(hit.slice(entryDepth))}`;
    if (fam.axis === 'fixed') return jqPath(hit);
  }
  return null;
}

function fieldsAroundNamed(root: unknown, path: readonly Step[], includeSelf: boolean, name: RegExp): Step[][] {
  const out: Step[][] = [];
  const top = includeSelf ? path.length : path.length - 1;
  for (let j = top; j >= 1; j--) {
    const at = path.slice(0, j);
    const obj = getAt(root, at);
    if (!isObj(obj)) continue;
    for (const [k, v] of Object.entries(obj)) if (typeof v === 'number' && name.test(k)) out.push([...at, { key: k }]);
  }
  return out;
}
