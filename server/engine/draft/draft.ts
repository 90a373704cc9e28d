/**
 * Drafting a definition from one live workload: its root, and everything it owns as the owner index gives
 * it. The draft reads structure only — pod-shaped objects in the spec, the labels on the pods, the counts
 * around the templates, the conditions present — and never a framework's name, so a kind nobody wrote a
 * definition for gets one as good as its objects allow. Every choice the objects do not settle is a guess,
 * named by its field path. Pure.
 */
import type { ComponentDefinition, Definition, GroupVersionKind } from '../definition/types.ts';
import { KARTA_API_VERSION } from '../definition/types.ts';
import { isPod, objectName, podIsFinished, podIsTerminating, type KubeObject } from '../k8s.ts';
import { assignPods } from './assign.ts';
import { addCounts, addKinds, addSelectors, instancesOf, nameFromPath, relTo, specOf, uniqueName, type PlanContext, type Planned } from './components.ts';
import { familiesOf, type Family } from './families.ts';
import { chainSignature, chainToRoot, childOfRoot, gvkOf } from './owner-chain.ts';
import { fieldText, getAt, type Step } from './paths.ts';
import { learnResourceNames, renamedResources } from './resource-names.ts';
import { roleNameOf } from './selectors.ts';
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

/** `group-with-dashes-kind-version`, the catalog's slug (reference §1.1). */
export function definitionSlug(g: { group: string; version: string; kind: string }): string {
  return `${g.group ? g.group.replace(/\./g, '-') : 'core'}-${g.kind.toLowerCase()}-${g.version}`;
}

function isUnderAny(steps: readonly Step[], sources: readonly PodSource[]): boolean {
  return sources.some((s) => relTo(s.path, steps) !== null);
}

/**
 * Drafts a definition for `root` from it and everything it owns (pods included; the root itself, if the
 * list holds it, is skipped). Never throws: objects of a shape no rule expected give a root-only draft
 * whose notes say why.
 */
export function draftDefinition(root: KubeObject, owned: readonly KubeObject[]): DraftResult {
  const rootUid = root.metadata?.uid;
  const others = owned.filter((o) => o !== root && !(rootUid && o.metadata?.uid === rootUid));
  try {
    return draftFrom(root, others);
  } catch (e) {
    return rootOnly(root, `drafting stopped on an object of unexpected shape (${e instanceof Error ? e.message : String(e)}): only the root is drafted`);
  }
}

/** The least a draft can be: the root kind, its labels and an empty status mapping. */
function rootOnly(root: KubeObject, note: string): DraftResult {
  const gvk = gvkOf(root);
  const definition: Definition = {
    apiVersion: KARTA_API_VERSION,
    kind: 'Karta',
    metadata: metadataOf(gvk),
    spec: { structureDefinition: { rootComponent: { name: rootNameOf(gvk.kind), kind: { group: gvk.group, version: gvk.version, kind: gvk.kind }, statusDefinition: { statusMappings: {} } } } },
  };
  return { yaml: renderDraftYaml(definition, [], [note], objectName(root)), definition, guesses: [], notes: [note] };
}

/** The catalog's name for a definition of this kind, and the labels KAI Scheduler selects definitions by. */
function metadataOf(gvk: { group: string; version: string; kind: string }): Definition['metadata'] {
  return { name: definitionSlug(gvk), labels: { 'run.ai/karta-group': gvk.group, 'run.ai/karta-version': gvk.version, 'run.ai/karta-kind': gvk.kind } };
}

function rootNameOf(kind: string): string {
  return kind.toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'root';
}

function draftFrom(root: KubeObject, owned: readonly KubeObject[]): DraftResult {
  const rootObj = root as Record<string, unknown>;
  const gvk = gvkOf(root);
  const notes: string[] = [];
  const rootName = rootNameOf(gvk.kind);
  const workloadName = objectName(root);
  const pods = isPod(root) ? [root] : owned.filter(isPod);
  // What a live workload asks for is its live pods; a finished one shows what it ran in the pods it left.
  const anyLive = pods.some((p) => !podIsFinished(p) && !podIsTerminating(p));

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
    const one = dropped.length === 1;
    const why = pods.length > 0 ? `no live pod comes from ${one ? 'it' : 'them'}` : `without pods nothing says ${one ? 'it makes' : 'they make'} any, beside the pod templates`;
    const what = dropped.length <= 6 ? dropped.map((x) => fieldText(x.path)).join(', ') : `${dropped.length} spec objects`;
    notes.push(`left out ${what}: ${one ? 'it looks like a pod description' : 'they look like pod descriptions'}, but ${why}`);
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

  const context: PlanContext = { root: rootObj, pods, workloadName, specKeys, sourcePaths: sources.map((x) => x.path), anyLive, chain };
  addSelectors(planned, context);
  addKinds(planned, context);
  addCounts(planned, context);

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
    metadata: metadataOf(gvk),
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

