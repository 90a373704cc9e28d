/**
 * Replica counts: the spec fields around a pod source whose numbers give the live pod counts. Candidates
 * are the count-like fields (`replicas`, `parallelism`, `size`, `…Count`, `numOf…`, `completions`, and
 * `minReplicas` last) on the source's ancestors and one level beside them, count-like annotations of a
 * template written as strings (`…/min-scale: "2"`, pitfall P-12), and the count of a group entry that
 * lists the source's entry by name (a scaling group's `replicas` over its `cliqueNames`). The expression
 * is the form that gives the most instances their observed count: the product of every multiplicity on
 * the way to the pods, a single field, a product of two, or `× (n − 1)` (a group of n whose first pod is
 * another role's); each field defaults to 1, as Kubernetes defaults counts.
 */
import { getAt, isObj, jqPath, type Step } from './paths.ts';
import type { Family } from './families.ts';

/** Count-like field names, best first; anything else (limits, seconds, ports, indices) is not a count. */
const COUNT_NAMES: RegExp[] = [/^replicas$/i, /^parallelism$/i, /size$/i, /count$/i, /^numOf/i, /^completions$/i, /^min(Replicas|Available)$|min-?scale$/i];
const MIN_RANK = COUNT_NAMES.length - 1;

function rankOf(name: string): number {
  return COUNT_NAMES.findIndex((r) => r.test(name));
}

export interface CountField {
  /** Where it is read: relative to the family's entry, absolute from the root, or on a group entry naming the entry. */
  scope: 'rel' | 'abs' | 'ref';
  steps: Step[];
  rank: number;
  /** A numeric string (an annotation) rather than a number. */
  text?: boolean;
  /** For `ref`: the group array, the string-list field naming members, and the member's name field. */
  ref?: { groups: Step[]; list: string; name: string };
}

export interface ScaleDraft {
  /** The jq text of `replicasPath`, or null when no count field exists (the engine then asks for 1 pod per instance). */
  replicasPath: string | null;
  /** Per source, the count the expression gives. */
  values: number[];
  /** How many sources with observed pods it matches, of how many. */
  matched: number;
  observed: number;
  /** The fields it reads, for the guesses. */
  fields: string[];
}

function countAt(root: unknown, steps: readonly Step[], text?: boolean): number | null {
  const v = getAt(root, steps);
  if (text) return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

function sameStep(a: Step, b: Step): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isUnder(steps: readonly Step[], prefix: readonly Step[]): boolean {
  return steps.length >= prefix.length && prefix.every((s, i) => sameStep(s, steps[i]));
}

/**
 * Count-like numbers on each ancestor of `path` (the source itself too, for fragments) and one level into
 * their other members — not into members that hold another pod description (a sibling role's count is not
 * this one's).
 */
function fieldsAround(root: unknown, path: readonly Step[], includeSelf: boolean, holdsSource: (steps: Step[]) => boolean): Step[][] {
  const out: Step[][] = [];
  for (let j = includeSelf ? path.length : path.length - 1; j >= 1; j--) {
    const at = path.slice(0, j);
    const obj = getAt(root, at);
    if (!isObj(obj)) continue;
    const next = path[j];
    for (const [k, v] of Object.entries(obj)) {
      if (next && 'key' in next && next.key === k) continue;
      if (typeof v === 'number' && rankOf(k) >= 0) out.push([...at, { key: k }]);
      else if (isObj(v) && !['metadata', 'template', 'spec'].includes(k) && !holdsSource([...at, { key: k }])) {
        for (const [k2, v2] of Object.entries(v)) if (typeof v2 === 'number' && rankOf(k2) >= 0) out.push([...at, { key: k }, { key: k2 }]);
      }
    }
  }
  return out;
}

/** The count fields a family's instances can be read from. */
export function countFields(root: unknown, fam: Family, sourcePaths: ReadonlyArray<readonly Step[]> = []): CountField[] {
  const holdsSource = (steps: Step[]) => sourcePaths.some((p) => isUnder(p, steps));
  const first = fam.sources[0];
  const includeSelf = first.shape === 'fragments' || first.shape === 'scaled';
  const seen = new Set<string>();
  const out: CountField[] = [];
  const add = (f: CountField) => {
    const key = `${f.scope}${jqPath(f.steps)}${f.ref ? JSON.stringify(f.ref) : ''}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(f);
    }
  };
  const entryDepth = fam.axis === 'fixed' ? 0 : fam.prefix.length + 1;
  const place = (steps: Step[], s: (typeof fam.sources)[number], extra: Partial<CountField> = {}) => {
    const name = steps[steps.length - 1] as { key: string };
    const rank = rankOf(name.key);
    if (fam.axis !== 'fixed' && isUnder(steps, s.path.slice(0, entryDepth))) add({ scope: 'rel', steps: steps.slice(entryDepth), rank, ...extra });
    else if (fam.axis === 'fixed' || !isUnder(steps, fam.prefix)) add({ scope: 'abs', steps, rank, ...extra });
  };
  for (const s of fam.sources) {
    for (const steps of fieldsAround(root, s.path, includeSelf, holdsSource)) place(steps, s);
    // A template's own count-like annotations, which are strings (Knative's autoscaling bounds).
    if (s.shape === 'template') {
      const ann = getAt(root, [...s.path, { key: 'metadata' }, { key: 'annotations' }]);
      if (isObj(ann)) {
        for (const [k, v] of Object.entries(ann)) {
          if (typeof v === 'string' && /^\d+$/.test(v) && rankOf(k) >= 0) place([...s.path, { key: 'metadata' }, { key: 'annotations' }, { key: k }], s, { text: true });
        }
      }
    }
  }
  if (fam.axis === 'array') for (const f of referencingCounts(root, fam)) add(f);
  return out;
}

/**
 * Group entries elsewhere in the spec that list this family's entries by name and carry a count: each
 * member's pods are multiplied by its group's count (Grove's podCliqueScalingGroups over cliques).
 */
function referencingCounts(root: unknown, fam: Family): CountField[] {
  const entries = fam.sources.map((s) => getAt(root, s.path.slice(0, fam.prefix.length + 1)));
  const nameKey = ['name', ...Object.keys(isObj(entries[0]) ? entries[0] : {}).filter((k) => /name$/i.test(k) && k !== 'name')].find((k) => entries.every((e) => isObj(e) && typeof e[k] === 'string'));
  if (!nameKey) return [];
  const names = new Set(entries.map((e) => (e as Record<string, unknown>)[nameKey] as string));
  const out: CountField[] = [];
  const walk = (v: unknown, steps: Step[]) => {
    if (Array.isArray(v)) {
      const objs = v.filter(isObj);
      if (objs.length > 0 && objs.length === v.length && !sameArray(steps, fam.prefix)) {
        for (const list of Object.keys(objs[0])) {
          const lists = objs.map((o) => o[list]);
          if (!lists.every((l) => Array.isArray(l) && l.length > 0 && l.every((x) => typeof x === 'string' && names.has(x)))) continue;
          for (const [k, c] of Object.entries(objs[0])) {
            if (typeof c === 'number' && rankOf(k) >= 0 && rankOf(k) <= 4) out.push({ scope: 'ref', steps: [{ key: k }], rank: rankOf(k), ref: { groups: steps, list, name: nameKey } });
          }
        }
      }
      v.forEach((x, i) => walk(x, [...steps, { index: i }]));
    } else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) if (steps.length > 0 || k === 'spec') walk(x, [...steps, { key: k }]);
    }
  };
  walk(root, []);
  return out;
}

function sameArray(a: readonly Step[], b: readonly Step[]): boolean {
  return a.length === b.length && a.every((s, i) => sameStep(s, b[i]));
}

type Form = { fields: CountField[]; minusOne: boolean; cost: number };

/** Fields that multiply pods (replicas, parallelism, size, …Count, numOf…): not `completions`, not a minimum. */
function multiplies(f: CountField): boolean {
  return f.rank >= 0 && f.rank <= 4;
}

function forms(fields: readonly CountField[]): Form[] {
  const out: Form[] = [];
  // A minimum is a floor, not a desired count: it is read only when nothing else fits.
  const penalty = (fs: CountField[]) => fs.reduce((x, f) => x + f.rank / 10 + (f.rank === MIN_RANK ? 5 : 0), 0);
  // Pods are the product of the multiplicities on their way (replicas × parallelism, replicas × numOfHosts):
  // when the live pods cannot tell the product from one of its factors, the product is the better bet.
  const all = fields.filter(multiplies).sort((x, y) => x.rank - y.rank);
  if (all.length >= 2) out.push({ fields: all, minusOne: false, cost: 0.5 });
  for (const a of fields) out.push({ fields: [a], minusOne: false, cost: 1 + penalty([a]) });
  for (const a of fields) {
    for (const b of fields) {
      if (a === b) continue;
      if (a.rank <= b.rank && !(all.length === 2 && all.includes(a) && all.includes(b))) out.push({ fields: [a, b], minusOne: false, cost: 2 + penalty([a, b]) });
      out.push({ fields: [a, b], minusOne: true, cost: 3 + penalty([a, b]) });
    }
  }
  for (const b of fields) out.push({ fields: [b], minusOne: true, cost: 2.5 + penalty([b]) });
  return out;
}

function fieldValue(f: CountField, root: unknown, fam: Family, i: number): number {
  const entryPath = fam.axis === 'fixed' ? [] : fam.sources[i].path.slice(0, fam.prefix.length + 1);
  if (f.scope === 'ref' && f.ref) {
    const entry = getAt(root, entryPath);
    const name = isObj(entry) ? entry[f.ref.name] : undefined;
    const groups = getAt(root, f.ref.groups);
    const group = Array.isArray(groups) ? groups.find((g) => isObj(g) && Array.isArray(g[f.ref!.list]) && (g[f.ref!.list] as unknown[]).includes(name)) : undefined;
    return (isObj(group) ? countAt(group, f.steps) : null) ?? 1;
  }
  return countAt(root, f.scope === 'rel' ? [...entryPath, ...f.steps] : f.steps, f.text) ?? 1;
}

/** The value of a form for one source (each field defaulting to 1, as `// 1` does). */
function evaluate(form: Form, root: unknown, fam: Family, i: number): number {
  const v = form.fields.map((f) => fieldValue(f, root, fam, i));
  if (form.minusOne) return form.fields.length === 1 ? v[0] - 1 : v[0] * (v[1] - 1);
  return v.reduce((x, y) => x * y, 1);
}

/** The jq text reading one field, inside the entry iteration (`rel`, `ref`) or bound before it (`abs` → `$cN`). */
function reader(f: CountField, fam: Family, absIndex: number): string {
  const read = (path: string) => (f.text ? `((${path} // "1") | tonumber)` : `(${path} // 1)`);
  if (f.scope === 'rel') return read(jqPath(f.steps));
  if (f.scope === 'ref' && f.ref) return `([$g${absIndex}[]? | select(any(${jqPath([{ key: f.ref.list }])}[]?; . == $n)) | ${jqPath(f.steps)}] | .[0] // 1)`;
  return fam.axis === 'fixed' ? read(jqPath(f.steps)) : `$c${absIndex}`;
}

/**
 * The replicas expression for a family, given the pods observed per source (`null` where nothing can be
 * known: the workload has no live pods). The form matching most instances wins; ties go to the product of
 * the multiplicities, then to the simpler form and the better-named fields. When none matches, the
 * best-named single field still says what the spec asks for (the caller reports the disagreement).
 */
export function draftScale(root: unknown, fam: Family, observed: ReadonlyArray<number | null>, entryIter: string, sourcePaths: ReadonlyArray<readonly Step[]> = []): ScaleDraft {
  const fields = countFields(root, fam, sourcePaths);
  const known = observed.map((o, i) => [o, i] as const).filter((x): x is readonly [number, number] => x[0] !== null);
  let best: { form: Form; matched: number; score: number } | null = null;
  for (const form of forms(fields)) {
    const matched = known.filter(([o, i]) => evaluate(form, root, fam, i) === o).length;
    const score = matched * 100 - form.cost;
    if (!best || score > best.score) best = { form, matched, score };
  }
  if (!best) return { replicasPath: null, values: fam.sources.map(() => 1), matched: known.filter(([o]) => o === 1).length, observed: known.length, fields: [] };
  if (best.matched === 0 && known.length > 0) {
    const single = forms(fields).filter((f) => f.fields.length === 1 && !f.minusOne).sort((a, b) => a.cost - b.cost)[0];
    best = { form: single, matched: 0, score: 0 };
  }
  const form = best.form;
  // Absolute fields and group arrays are bound before the entries are iterated; group counts need the entry's name.
  const bound = form.fields.filter((f) => f.scope !== 'rel');
  const refs = (f: CountField) => reader(f, fam, bound.indexOf(f));
  const body = form.minusOne
    ? form.fields.length === 1 ? `${refs(form.fields[0])} - 1` : `${refs(form.fields[0])} * (${refs(form.fields[1])} - 1)`
    : form.fields.map(refs).join(' * ');
  let text = body;
  if (fam.axis !== 'fixed') {
    const binds = bound.map((f, i) => (f.scope === 'ref' && f.ref ? `${jqPath(f.ref.groups)} as $g${i} | ` : `(${f.text ? `((${jqPath(f.steps)} // "1") | tonumber)` : `${jqPath(f.steps)} // 1`}) as $c${i} | `)).join('');
    const name = form.fields.find((f) => f.scope === 'ref')?.ref?.name;
    text = `${binds}${entryIter}${name ? ` | ${jqPath([{ key: name }])} as $n` : ''} | ${body}`;
  }
  return {
    replicasPath: text,
    values: fam.sources.map((_, i) => evaluate(form, root, fam, i)),
    matched: best.matched,
    observed: known.length,
    fields: form.fields.map((f) => (f.scope === 'rel' ? `${entryIter} | ${jqPath(f.steps)}` : f.scope === 'ref' && f.ref ? `${jqPath(f.ref.groups)}[] | ${jqPath(f.steps)}` : jqPath(f.steps))),
  };
}

/** `minReplicasPath` / `maxReplicasPath`: the nearest number field of that name, when the spec has one. */
export function draftBound(root: unknown, fam: Family, which: 'min' | 'max', entryIter: string): string | null {
  const name = which === 'min' ? /^min(Replicas|Available)$/ : /^maxReplicas$/;
  const entryDepth = fam.axis === 'fixed' ? 0 : fam.prefix.length + 1;
  const includeSelf = fam.sources[0].shape === 'fragments' || fam.sources[0].shape === 'scaled';
  for (const s of fam.sources) {
    for (let j = includeSelf ? s.path.length : s.path.length - 1; j >= Math.max(1, entryDepth); j--) {
      const obj = getAt(root, s.path.slice(0, j));
      if (!isObj(obj)) continue;
      const k = Object.keys(obj).find((x) => typeof obj[x] === 'number' && name.test(x));
      if (!k) continue;
      const steps = [...s.path.slice(0, j), { key: k }];
      return fam.axis === 'fixed' ? jqPath(steps) : `${entryIter} | ${jqPath(steps.slice(entryDepth))}`;
    }
  }
  return null;
}
