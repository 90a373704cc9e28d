/**
 * The components of a draft, one per pod source family (or per owner chain of pods no source explains):
 * their names, spec paths, instance ids, selectors, kinds and counts. What `draft.ts` places under the root.
 */
import type { ComponentDefinition, GroupVersionKind, SpecDefinition } from '../definition/types.ts';
import { podIsFinished, podIsTerminating, type KubeObject } from '../k8s.ts';
import type { Family } from './families.ts';
import { gvkOf } from './owner-chain.ts';
import { fieldText, getAt, isObj, jqPath, labelPath, type Step } from './paths.ts';
import { draftBound, draftScale } from './scale.ts';
import { instanceLabelFor, instanceLabelFromOwners, typeSelectorFor, type InstanceLabel, type SelectorHints, type TypeSelectorDraft } from './selectors.ts';
import type { DraftGuess } from './draft.ts';

/** One component being drafted, before it is placed (and its field paths known). */
export interface Planned {
  name: string;
  family: Family | null;
  /** Per source of the family (or one entry for owner-chain components), the pods assigned to it. */
  podsBySource: KubeObject[][];
  kind?: GroupVersionKind;
  def: Omit<ComponentDefinition, 'name'>;
  /** Guesses relative to the component (`podSelector.componentTypeSelector`). */
  guesses: DraftGuess[];
  /** The label its instance ids are read from. */
  instanceKey?: string;
}

const GENERIC_WORDS = /^(spec|template|templates|podTemplate|podSpec|metadata|extraPodSpec|config|configs?)$/;

/** A component name from the path to its source: the nearest word that is not `spec`/`template`, trimmed of `…GroupSpecs`-like endings. */
export function nameFromPath(steps: readonly Step[], plural: boolean): string {
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i];
    if (!('key' in s) || GENERIC_WORDS.test(s.key)) continue;
    let w = s.key;
    for (let k = 0; k < 3; k++) w = w.replace(/(Specs?|Templates?|Groups?|Configs?)$/, '') || w;
    if (plural && /[^s]s$/.test(w)) w = w.slice(0, -1);
    const out = w.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
    if (out) return out;
  }
  return 'pods';
}

export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

export function entryIter(f: Family): string {
  return `${jqPath(f.prefix)}[]?`;
}

/** The path of a family's sources as one jq program (one result per instance). */
function sourcePath(f: Family, rel: readonly Step[]): string {
  if (f.axis === 'fixed') return jqPath([...f.prefix, ...rel]);
  return rel.length === 0 ? entryIter(f) : `${entryIter(f)} | ${jqPath(rel)}`;
}

export function relTo(base: readonly Step[], path: readonly Step[]): Step[] | null {
  if (path.length < base.length) return null;
  for (let i = 0; i < base.length; i++) if (JSON.stringify(base[i]) !== JSON.stringify(path[i])) return null;
  return path.slice(base.length);
}

/** What the spec paths of a family say, by its sources' shape. */
export function specOf(f: Family): { spec: SpecDefinition; guesses: DraftGuess[] } {
  const s = f.sources[0];
  const entryLen = f.axis === 'fixed' ? s.path.length : f.prefix.length + 1;
  const within = (p: Step[] | null) => (p ? relTo(s.path.slice(0, entryLen), p) : null);
  const at = (p: Step[]) => (f.axis === 'fixed' ? jqPath(p) : sourcePath(f, within(p) ?? []));
  const guesses: DraftGuess[] = [];
  switch (s.shape) {
    case 'template':
      return { spec: { podTemplateSpecPath: at(s.path) }, guesses };
    case 'podSpec': {
      const spec: SpecDefinition = { podSpecPath: at(s.path) };
      const holder = s.labelsPath ? s.labelsPath.slice(0, -1) : null;
      if (holder) spec.metadataPath = at(holder);
      else if (s.path.length === 1 && 'key' in s.path[0] && s.path[0].key === 'spec') spec.metadataPath = '.metadata';
      return { spec, guesses };
    }
    case 'fragments': {
      const frag: NonNullable<SpecDefinition['fragmentedPodSpecDefinition']> = {};
      if (s.isContainer) frag.containerPath = at(s.path);
      else if (s.resourcesPath) frag.resourcesPath = at(s.resourcesPath);
      if (s.labelsPath) frag.labelsPath = at(s.labelsPath);
      guesses.push({ path: 'specDefinition.fragmentedPodSpecDefinition', why: `the spec has no pod template here, only ${s.isContainer ? 'a container' : 'resources'} at ${fieldText(s.path)}: the operator builds the pods, and what else it puts in them is not known` });
      return { spec: { fragmentedPodSpecDefinition: frag }, guesses };
    }
    case 'scaled': {
      const frag: NonNullable<SpecDefinition['fragmentedPodSpecDefinition']> = {};
      // The default resources sit outside the entries: bound once, repeated for each entry.
      if (s.resourcesPath) frag.resourcesPath = f.axis === 'fixed' ? jqPath(s.resourcesPath) : `${jqPath(s.resourcesPath)} as $r | ${entryIter(f)} | $r`;
      if (s.labelsPath) frag.labelsPath = at(s.labelsPath);
      guesses.push({ path: 'specDefinition.fragmentedPodSpecDefinition', why: `${fieldText(s.path)} has a replica count and no pod description${s.resourcesPath ? `; its pods take the default resources at ${fieldText(s.resourcesPath)}` : ''}` });
      return { spec: { fragmentedPodSpecDefinition: frag }, guesses };
    }
  }
}

/** Instance ids of an array family: an entry's `…name` field, or a label its pods carry, that names each entry and that the pods' label repeats. */
export function instancesOf(root: Record<string, unknown>, f: Family, pods: KubeObject[][], hints: SelectorHints, owners: readonly KubeObject[]): { instanceIdPath: string; idPath: string; why: string; key: string } | null {
  const noPods = pods.every((p) => p.length === 0);
  // With no pods, the objects created for them stand in (their labels, not the pods', are read).
  const labelOf = (ids: string[]): (InstanceLabel & { proxy?: string }) | null => {
    if (!noPods) return instanceLabelFor(ids.map((id, i) => ({ id, pods: pods[i] })), hints);
    const l = instanceLabelFromOwners(ids, owners, hints);
    return l ? { ...l, proxy: l.kinds.join(', ') } : null;
  };
  const proxyNote = (l: { proxy?: string }) => (l.proxy ? `; read from the labels of the ${l.proxy} objects, as there are no pods` : '');
  if (f.axis === 'map') {
    const ids = f.entries.map(String);
    const label = labelOf(ids);
    if (!label) return null;
    const down = label.lower ? ' | ascii_downcase' : '';
    return { instanceIdPath: `(${jqPath(f.prefix)} // {}) | keys[]${down}`, idPath: `${labelPath(label.key)}${down}`, why: `the keys of ${fieldText(f.prefix)} are the values of pod label ${label.key}${label.lower ? ' (in lowercase)' : ''}${proxyNote(label)}`, key: label.key };
  }
  const entryLen = f.prefix.length + 1;
  const candidates: Step[][] = [];
  const first = f.sources[0];
  const entry = getAt(root, first.path.slice(0, entryLen));
  if (isObj(entry)) for (const [k, v] of Object.entries(entry)) if (typeof v === 'string' && /name$/i.test(k)) candidates.push([{ key: k }]);
  if (first.labelsPath) {
    const rel = relTo(first.path.slice(0, entryLen), first.labelsPath);
    if (rel) for (const k of Object.keys(first.labels)) candidates.push([...rel, { key: k }]);
  }
  candidates.sort((a, b) => (a.length === 1 && 'key' in a[0] && a[0].key === 'name' ? -1 : 0) - (b.length === 1 && 'key' in b[0] && b[0].key === 'name' ? -1 : 0));
  for (const c of candidates) {
    const ids = f.sources.map((s) => getAt(root, [...s.path.slice(0, entryLen), ...c]));
    if (!ids.every((x) => typeof x === 'string' && x !== '') || new Set(ids).size !== ids.length) continue;
    const label = labelOf(ids as string[]);
    if (!label) continue;
    const down = label.lower ? ' | ascii_downcase' : '';
    return { instanceIdPath: `${entryIter(f)} | ${jqPath(c)}${down}`, idPath: `${labelPath(label.key)}${down}`, why: `each entry's ${fieldText(c)} is the value of pod label ${label.key} on its pods${proxyNote(label)}`, key: label.key };
  }
  return null;
}

export interface PlanContext {
  root: Record<string, unknown>;
  pods: readonly KubeObject[];
  workloadName: string;
  specKeys: ReadonlySet<string>;
  sourcePaths: ReadonlyArray<readonly Step[]>;
  anyLive: boolean;
  chain: (pod: KubeObject) => KubeObject | null;
}

const isCounted = (p: KubeObject) => !podIsTerminating(p) && !podIsFinished(p);

/** Type selectors: each component's pods against every other pod the workload owns. */
export function addSelectors(planned: Planned[], ctx: PlanContext): void {
  const leaves = planned.length;
  for (const c of planned) {
    const mine = c.podsBySource.flat();
    const own = new Set(mine);
    const others = ctx.pods.filter((p) => !own.has(p));
    const needType = others.length > 0 || leaves > 1;
    if (!needType) continue;
    if (mine.length === 0) {
      if (!c.def.podSelector?.componentInstanceSelector) c.guesses.push({ path: 'podSelector', why: 'none of the live pods is this component\'s: no label to select its pods by was learned' });
      continue;
    }
    const sel: TypeSelectorDraft | null = typeSelectorFor(mine, others, ctx.workloadName, { specKeys: ctx.specKeys, exclude: c.instanceKey });
    if (!sel) {
      if (!c.def.podSelector?.componentInstanceSelector) c.guesses.push({ path: 'podSelector', why: 'no label or annotation tells its pods from the others' });
      continue;
    }
    c.def.podSelector = { componentTypeSelector: { keyPath: sel.keyPath, ...(sel.value !== undefined ? { value: sel.value } : {}) }, ...(c.def.podSelector ?? {}) };
    c.guesses.push({ path: 'podSelector.componentTypeSelector', why: `${sel.why}${sel.specific ? '; the value is particular to this workload, so other objects of this kind will not match' : ''}` });
  }
}

/** Kinds: what the root creates on the way to each component's pods. */
export function addKinds(planned: Planned[], ctx: PlanContext): void {
  for (const c of planned) {
    const kinds = new Map<string, { n: number; o: KubeObject }>();
    for (const p of c.podsBySource.flat()) {
      const child = ctx.chain(p);
      if (!child) continue;
      const k = `${String(child.apiVersion)}/${String(child.kind)}`;
      kinds.set(k, { n: (kinds.get(k)?.n ?? 0) + 1, o: child });
    }
    const top = [...kinds.values()].sort((a, b) => b.n - a.n)[0];
    if (top) c.kind = gvkOf(top.o);
  }
}

/** Counts: the replicas (and bounds) of each component's instances. */
export function addCounts(planned: Planned[], ctx: PlanContext): void {
  for (const c of planned) {
    const f = c.family;
    // A finished workload's pods are what is left of it (the controller may have deleted some): no count to go by.
    const observed = c.podsBySource.map((ps) => (!ctx.anyLive ? null : ps.filter(isCounted).length));
    if (!f) {
      const n = observed[0] ?? 0;
      if (n > 1) {
        c.def.scaleDefinition = { replicasPath: String(n) };
        c.guesses.push({ path: 'scaleDefinition.replicasPath', why: `${n} pods are live and nothing in the spec counts them: the number seen now is written down` });
      }
      continue;
    }
    const iter = entryIter(f);
    const scale = draftScale(ctx.root, f, observed, iter, ctx.sourcePaths);
    const min = draftBound(ctx.root, f, 'min', iter);
    const max = draftBound(ctx.root, f, 'max', iter);
    if (scale.replicasPath || min || max) {
      c.def.scaleDefinition = { ...(scale.replicasPath ? { replicasPath: scale.replicasPath } : {}), ...(min ? { minReplicasPath: min } : {}), ...(max ? { maxReplicasPath: max } : {}) };
    }
    if (scale.replicasPath) {
      const said = `reads ${scale.fields.join(' and ')}`;
      if (scale.observed === 0) c.guesses.push({ path: 'scaleDefinition.replicasPath', why: `${said}; no live pods to confirm the count by` });
      else if (scale.matched < scale.observed) c.guesses.push({ path: 'scaleDefinition.replicasPath', why: `${said}, which gives ${scale.values.join(', ')} pods where ${observed.map((o) => o ?? '?').join(', ')} are live: ${scale.matched} of ${scale.observed} agree` });
      else if (scale.fields.length > 1) c.guesses.push({ path: 'scaleDefinition.replicasPath', why: `${said}: the product of the counts on the way to the pods matches the live pods (${observed.join(', ')})` });
    } else if (observed.some((o) => o !== null && o !== 1)) {
      c.guesses.push({ path: 'scaleDefinition', why: `no count field near the pod description; the engine assumes 1 pod per instance, ${observed.join(', ')} are live` });
    }
  }
}
