/**
 * Drafting a definition from one live workload: its root, and everything it owns as the owner index gives
 * it. The draft reads structure only — pod-shaped objects in the spec, the labels on the pods, the counts
 * around the templates, the conditions present — and never a framework's name, so a kind nobody wrote a
 * definition for gets one as good as its objects allow. Every choice the objects do not settle is a guess,
 * named by its field path. Pure.
 */
import type { ComponentDefinition, Definition, GroupVersionKind, SpecDefinition } from '../definition/types.ts';
import { KARTA_API_VERSION } from '../definition/types.ts';
import { isPod, objectName, podIsFinished, podIsTerminating, type KubeObject } from '../k8s.ts';
import { assignPods } from './assign.ts';
import { familiesOf, type Family } from './families.ts';
import { chainSignature, chainToRoot, childOfRoot, gvkOf } from './owner-chain.ts';
import { fieldText, getAt, isObj, jqPath, labelPath, type Step } from './paths.ts';
import { learnResourceNames, renamedResources } from './resource-names.ts';
import { draftBound, draftScale } from './scale.ts';
import { instanceLabelFor, instanceLabelFromOwners, roleNameOf, typeSelectorFor, type InstanceLabel, type SelectorHints, type TypeSelectorDraft } from './selectors.ts';
import { findSources, isWeak, type PodSource } from './sources.ts';
import { draftStatus, findSuspend } from './status.ts';
import { renderDraftYaml } from './yaml-out.ts';

export interface DraftGuess {
  /** Field path in the drafted definition (`spec.structureDefinition.childComponents[0].scaleDefinition.replicasPath`). */
  path: string;
  why: string;
}

export interface DraftResult {
  /** The definition as YAML, each guess a comment above the field it is about. */
  yaml: string;
  definition: Definition;
  guesses: DraftGuess[];
  /** What the draft could not settle or left out, for people. */
  notes: string[];
}

/** One component being drafted, before it is placed (and its field paths known). */
interface Planned {
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
function nameFromPath(steps: readonly Step[], plural: boolean): string {
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

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/** `group-with-dashes-kind-version`, the catalog's slug (reference §1.1). */
export function definitionSlug(g: { group: string; version: string; kind: string }): string {
  return `${g.group ? g.group.replace(/\./g, '-') : 'core'}-${g.kind.toLowerCase()}-${g.version}`;
}

function entryIter(f: Family): string {
  return `${jqPath(f.prefix)}[]?`;
}

/** The path of a family's sources as one jq program (one result per instance). */
function sourcePath(f: Family, rel: readonly Step[]): string {
  if (f.axis === 'fixed') return jqPath([...f.prefix, ...rel]);
  return rel.length === 0 ? entryIter(f) : `${entryIter(f)} | ${jqPath(rel)}`;
}

function relTo(base: readonly Step[], path: readonly Step[]): Step[] | null {
  if (path.length < base.length) return null;
  for (let i = 0; i < base.length; i++) if (JSON.stringify(base[i]) !== JSON.stringify(path[i])) return null;
  return path.slice(base.length);
}

/** What the spec paths of a family say, by its sources' shape. */
function specOf(f: Family): { spec: SpecDefinition; guesses: DraftGuess[] } {
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
      if (s.resourcesPath) frag.resourcesPath = jqPath(s.resourcesPath);
      if (s.labelsPath) frag.labelsPath = at(s.labelsPath);
      guesses.push({ path: 'specDefinition.fragmentedPodSpecDefinition', why: `${fieldText(s.path)} has a replica count and no pod description${s.resourcesPath ? `; its pods take the default resources at ${fieldText(s.resourcesPath)}` : ''}` });
      return { spec: { fragmentedPodSpecDefinition: frag }, guesses };
    }
  }
}

/** Instance ids of an array family: an entry's `…name` field, or a label its pods carry, that names each entry and that the pods' label repeats. */
function instancesOf(root: Record<string, unknown>, f: Family, pods: KubeObject[][], hints: SelectorHints, owners: readonly KubeObject[]): { instanceIdPath: string; idPath: string; why: string; key: string } | null {
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
  const entry = getEntry(root, first.path.slice(0, entryLen));
  if (isObj(entry)) for (const [k, v] of Object.entries(entry)) if (typeof v === 'string' && /name$/i.test(k)) candidates.push([{ key: k }]);
  if (first.labelsPath) {
    const rel = relTo(first.path.slice(0, entryLen), first.labelsPath);
    if (rel) for (const k of Object.keys(first.labels)) candidates.push([...rel, { key: k }]);
  }
  candidates.sort((a, b) => (a.length === 1 && 'key' in a[0] && a[0].key === 'name' ? -1 : 0) - (b.length === 1 && 'key' in b[0] && b[0].key === 'name' ? -1 : 0));
  for (const c of candidates) {
    const ids = f.sources.map((s) => getEntry(root, [...s.path.slice(0, entryLen), ...c]));
    if (!ids.every((x) => typeof x === 'string' && x !== '') || new Set(ids).size !== ids.length) continue;
    const label = labelOf(ids as string[]);
    if (!label) continue;
    const down = label.lower ? ' | ascii_downcase' : '';
    return { instanceIdPath: `${entryIter(f)} | ${jqPath(c)}${down}`, idPath: `${labelPath(label.key)}${down}`, why: `each entry's ${fieldText(c)} is the value of pod label ${label.key} on its pods${proxyNote(label)}`, key: label.key };
  }
  return null;
}

function getEntry(root: unknown, steps: readonly Step[]): unknown {
  let cur: unknown = root;
  for (const s of steps) {
    if ('index' in s) cur = Array.isArray(cur) ? cur[s.index] : undefined;
    else cur = isObj(cur) ? cur[s.key] : undefined;
  }
  return cur;
}

function isUnderAny(steps: readonly Step[], sources: readonly PodSource[]): boolean {
  return sources.some((s) => relTo(s.path, steps) !== null);
}

export function draftDefinition(root: KubeObject, owned: readonly KubeObject[]): DraftResult {
  const rootObj = root as Record<string, unknown>;
  const gvk = gvkOf(root);
  const notes: string[] = [];
  const rootName = gvk.kind.toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'root';
  const workloadName = objectName(root);
  const pods = isPod(root) ? [root] : owned.filter(isPod);
  // What a live workload asks for is its live pods; a finished one shows what it ran in the pods it left.
  const anyLive = pods.some((p) => !podIsFinished(p) && !podIsTerminating(p));
  const counted = (p: KubeObject) => !podIsTerminating(p) && !podIsFinished(p);

  // Sources, then which pods are whose. A weak family (fragments, scaled entries) none of whose sources
  // got a pod is dropped: it only looked like a pod description. Its members stay together otherwise, so
  // that an entry whose pods are gone (a failed service) is still an instance.
  let sources = findSources(rootObj);
  let assignment = assignPods(sources, pods);
  const withPods = new Set(assignment.source.filter((i) => i >= 0).map((i) => sources[i]));
  // With no pods at all, nothing confirms a weak family: beside real templates it is left out too.
  const strongExists = sources.some((x) => !isWeak(x));
  const dropped = familiesOf(rootObj, sources)
    .filter((f) => isWeak(f.sources[0]) && !f.sources.some((x) => withPods.has(x)) && (pods.length > 0 || strongExists))
    .flatMap((f) => f.sources);
  if (dropped.length > 0) {
    sources = sources.filter((x) => !dropped.includes(x));
    assignment = assignPods(sources, pods);
    const why = pods.length > 0 ? 'no live pod is theirs' : 'without pods nothing says they make any, beside the pod templates';
    if (dropped.length <= 6) notes.push(`left out ${dropped.map((x) => fieldText(x.path)).join(', ')}: they look like pod descriptions, but ${why}`);
    else notes.push(`left out ${dropped.length} spec objects that look like pod descriptions: ${why}`);
  }
  const podsOf = (x: PodSource) => pods.filter((_, i) => assignment.source[i] >= 0 && sources[assignment.source[i]] === x);
  // Labels the spec itself puts on pods hold for this object only; labels the operator sets hold for the kind.
  const specKeys = new Set(sources.flatMap((x) => Object.keys(x.labels)));

  const planned: Planned[] = [];
  const chainOf = chainToRoot(root, owned);
  const taken = new Set<string>([rootName]);
  const queue = familiesOf(rootObj, sources);
  while (queue.length > 0) {
    const f = queue.shift()!;
    const podsBySource = f.sources.map(podsOf);
    const guesses: DraftGuess[] = [];
    const def: Planned['def'] = {};
    let instanceKey: string | undefined;
    if (f.axis !== 'fixed') {
      const inst = instancesOf(rootObj, f, podsBySource, { specKeys }, owned.filter((o) => !isPod(o)));
      if (!inst) {
        // No label names the entries: each becomes a component of its own at its fixed path.
        const why = podsBySource.some((p) => p.length > 0) ? 'no pod label carries a name of the entries' : 'there are no pods to learn a label from';
        queue.unshift(...f.sources.map((x): Family => ({ sources: [x], axis: 'fixed', prefix: x.path, suffix: [], entries: [''] })));
        notes.push(`the entries of ${fieldText(f.prefix)} are drafted as separate components at fixed paths: ${why}`);
        continue;
      }
      def.instanceIdPath = inst.instanceIdPath;
      def.podSelector = { componentInstanceSelector: { idPath: inst.idPath } };
      instanceKey = inst.key;
      guesses.push({ path: 'instanceIdPath', why: inst.why });
    }
    const { spec, guesses: specGuesses } = specOf(f);
    def.specDefinition = spec;
    guesses.push(...specGuesses);
    const frag = spec.fragmentedPodSpecDefinition;
    if (frag?.resourcesPath && f.sources[0].resourcesPath) {
      const names = learnResourceNames(f.sources.map((x) => (x.resourcesPath ? getAt(rootObj, x.resourcesPath) : undefined)), podsBySource);
      if (names.size > 0) {
        frag.resourcesPath = renamedResources(frag.resourcesPath, names);
        guesses.push({ path: 'specDefinition.fragmentedPodSpecDefinition.resourcesPath', why: `the spec says ${[...names].map(([a, b]) => `${a} where the pods ask for ${b}`).join(', ')} with the same amounts: the operator translates the name` });
      }
    }
    const name = uniqueName(nameFromPath(f.axis === 'fixed' ? f.sources[0].path : f.prefix, f.axis === 'array'), taken);
    // One pod description whose pods are made along different ways (a leader pod owning its workers'
    // StatefulSet) serves as many roles: a component per way, shallowest first.
    const ways = new Map<string, KubeObject[]>();
    if (f.axis === 'fixed') for (const p of podsBySource[0]) ways.set(chainSignature(chainOf, p), [...(ways.get(chainSignature(chainOf, p)) ?? []), p]);
    if (ways.size > 1) {
      const sorted = [...ways].sort((a, b) => a[0].split('<').length - b[0].split('<').length);
      taken.delete(name);
      sorted.forEach(([way, group], i) => {
        const byLabel = roleNameOf(group);
        const own = uniqueName(byLabel && !taken.has(byLabel) ? byLabel : i === 0 ? name : `${name}-${i + 1}`, taken);
        planned.push({ name: own, family: f, podsBySource: [group], def: structuredClone(def), guesses: [...guesses, { path: 'specDefinition', why: `the same pod description as ${i === 0 ? `${sorted.length - 1} other component(s)` : name}: its pods come along another way (${way || 'directly'}), so they are another role` }], instanceKey });
      });
      continue;
    }
    planned.push({ name, family: f, podsBySource, def, guesses, instanceKey });
  }

  // Pods no spec object accounts for, grouped by what the root created for them (a submitter Job …).
  const chain = childOfRoot(root, owned);
  const loose = pods.filter((_, i) => assignment.source[i] < 0 && !isPod(root));
  const byChild = new Map<string, KubeObject[]>();
  for (const p of loose) {
    const child = chain(p);
    const key = child ? (child === p ? 'Pod' : String(child.kind)) : '';
    if (!key) continue;
    byChild.set(key, [...(byChild.get(key) ?? []), p]);
  }
  for (const [kind, group] of byChild) {
    planned.push({
      name: uniqueName(kind.toLowerCase(), taken),
      family: null,
      podsBySource: [group],
      def: { specDefinition: { fragmentedPodSpecDefinition: {} } },
      guesses: [{ path: 'specDefinition.fragmentedPodSpecDefinition', why: `${group.length} pod${group.length === 1 ? '' : 's'} under a ${kind} the root creates, made from nothing in its spec: their GPUs are not desired by any template` }],
    });
  }
  const unplaced = loose.filter((p) => !chain(p));
  if (unplaced.length > 0) notes.push(`${unplaced.length} pod(s) could not be traced to the root by their owner references: ${unplaced.slice(0, 5).map(objectName).join(', ')}`);

  // Selectors: each component's pods against every other pod the workload owns.
  const leaves = planned.length;
  for (const c of planned) {
    const mine = c.podsBySource.flat();
    const others = pods.filter((p) => !mine.includes(p));
    const needType = others.length > 0 || leaves > 1;
    if (!needType) continue;
    if (mine.length === 0) {
      if (!c.def.podSelector?.componentInstanceSelector) c.guesses.push({ path: 'podSelector', why: 'none of the live pods is this component\'s: no label to select its pods by was learned' });
      continue;
    }
    const sel: TypeSelectorDraft | null = typeSelectorFor(mine, others, workloadName, { specKeys, exclude: c.instanceKey });
    if (!sel) {
      if (!c.def.podSelector?.componentInstanceSelector) c.guesses.push({ path: 'podSelector', why: 'no label or annotation tells its pods from the others' });
      continue;
    }
    c.def.podSelector = { componentTypeSelector: { keyPath: sel.keyPath, ...(sel.value !== undefined ? { value: sel.value } : {}) }, ...(c.def.podSelector ?? {}) };
    c.guesses.push({ path: 'podSelector.componentTypeSelector', why: `${sel.why}${sel.specific ? '; the value is particular to this workload, so other objects of this kind will not match' : ''}` });
  }

  // Kinds: what the root creates on the way to the component's pods.
  for (const c of planned) {
    const kinds = new Map<string, { n: number; o: KubeObject }>();
    for (const p of c.podsBySource.flat()) {
      const child = chain(p);
      if (!child) continue;
      const k = `${String(child.apiVersion)}/${String(child.kind)}`;
      kinds.set(k, { n: (kinds.get(k)?.n ?? 0) + 1, o: child });
    }
    const top = [...kinds.values()].sort((a, b) => b.n - a.n)[0];
    if (top) c.kind = gvkOf(top.o);
  }

  // Counts.
  for (const c of planned) {
    const f = c.family;
    // A finished workload's pods are what is left of it (the controller may have deleted some): no count to go by.
    const observed = c.podsBySource.map((ps) => (!anyLive ? null : ps.filter(counted).length));
    if (!f) {
      const n = observed[0] ?? 0;
      if (n > 1) {
        c.def.scaleDefinition = { replicasPath: String(n) };
        c.guesses.push({ path: 'scaleDefinition.replicasPath', why: `${n} pods are live and nothing in the spec counts them: the number seen now is written down` });
      }
      continue;
    }
    const iter = entryIter(f);
    const scale = draftScale(rootObj, f, observed, iter, sources.map((x) => x.path));
    const min = draftBound(rootObj, f, 'min', iter);
    const max = draftBound(rootObj, f, 'max', iter);
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

  // The root: alone with a pod description at the top of its own spec, it carries it (Deployment, Job, Pod).
  const status = draftStatus(rootObj, findSuspend(rootObj.spec, (steps) => isUnderAny(steps, sources)), 'spec.structureDefinition.rootComponent');
  notes.push(...status.notes);
  const rootComponent: ComponentDefinition = { name: rootName, kind: { group: gvk.group, version: gvk.version, kind: gvk.kind } };
  const guesses: DraftGuess[] = [];
  let children = planned;
  const only = planned.length === 1 ? planned[0] : null;
  if (only && only.family?.axis === 'fixed' && only.family.sources[0].path.length <= 2) {
    Object.assign(rootComponent, only.def);
    for (const g of only.guesses) guesses.push({ path: `spec.structureDefinition.rootComponent.${g.path}`, why: g.why });
    children = [];
  }
  rootComponent.statusDefinition = status.statusDefinition;
  if (status.suspendDefinition) rootComponent.suspendDefinition = status.suspendDefinition;
  guesses.push(...status.guesses);

  const childComponents: ComponentDefinition[] = children.map((c, i) => {
    for (const g of c.guesses) guesses.push({ path: `spec.structureDefinition.childComponents[${i}].${g.path}`, why: g.why });
    return { name: c.name, ...(c.kind ? { kind: c.kind } : {}), ownerRef: rootName, ...c.def };
  });

  // Every other kind the root creates, for RBAC and top-owner walks (a list keyed by kind alone: P-26).
  const used = new Set([...childComponents.map((c) => c.kind?.kind), 'Pod']);
  const additional = new Map<string, GroupVersionKind>();
  for (const o of owned) {
    if (isPod(o) || typeof o.kind !== 'string') continue;
    const k = gvkOf(o);
    if (used.has(k.kind)) continue;
    const prev = additional.get(k.kind);
    if (prev && prev.group !== k.group) notes.push(`kinds ${k.kind} of groups ${prev.group || 'core'} and ${k.group || 'core'} are both owned; additionalChildKinds is keyed by kind and lists one`);
    if (!prev) additional.set(k.kind, { group: k.group, version: k.version, kind: k.kind });
  }

  const definition: Definition = {
    apiVersion: KARTA_API_VERSION,
    kind: 'Karta',
    metadata: { name: definitionSlug(gvk), labels: { 'run.ai/karta-group': gvk.group, 'run.ai/karta-version': gvk.version, 'run.ai/karta-kind': gvk.kind } },
    spec: {
      structureDefinition: {
        rootComponent,
        ...(childComponents.length > 0 ? { childComponents } : {}),
        ...(additional.size > 0 ? { additionalChildKinds: [...additional.values()] } : {}),
      },
    },
  };
  const unassigned = pods.filter((_, i) => assignment.source[i] < 0).length - [...byChild.values()].flat().length;
  if (unassigned > 0) notes.push(`${unassigned} pod(s) could not be told apart between pod descriptions; they stay unclaimed until a selector is written`);
  notes.push('no gang-scheduling instructions are drafted: which pods must start together is a choice, not an observation');
  if (sources.length === 0 && pods.length === 0) notes.push('the spec holds no pod description and the workload has no pods: only the root and its status are drafted');
  return { yaml: renderDraftYaml(definition, guesses, notes, workloadName), definition, guesses, notes };
}

