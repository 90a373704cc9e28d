/**
 * The trial of a definition against live objects: the workload tree the definition gives, next to
 * kubectl's raw view of the same objects (what the root owns, by ownerReferences, and every pod with the
 * GPUs its own spec asks for), with every difference called out — pods no role claims, roles with no
 * pods, replica counts that disagree with the live pods, GPU totals that differ — and the definition's
 * own errors at their field paths and lines. The raw view is computed by this file and the conservation
 * check's code, never by the engine, so a definition (or an engine bug) cannot hide from it. Pure over the
 * objects: `wmap verify`, `wmap verify --definition` and the dashboard's studio share it.
 */
import {
  compileDefinition, gpuResourceMatcher, isPod, loadDefinitionsFromText, ownerRefsOf, resolveWorkload,
  type CompiledDefinition, type EngineError, type KubeObject, type WorkloadTree,
} from '../engine/index.ts';
import { rangeOfPath } from '../../lib/yaml/path-position.ts';
import { gpuNames, podSpecDevices } from './conservation.ts';

export interface Discrepancy {
  workload: string;
  message: string;
}

/** One difference between the definition's view and the raw one; `code` is stable, `message` for people. */
export interface TrialDifference {
  /**
   * `definition` (the definition's own error), `resolve` (an error resolving these objects),
   * `unclaimed-pod`, `no-instance`, `empty-role`, `replicas`, `gpus`, `finished-holding-gpus`,
   * `unreadable-quantity`.
   */
  code: string;
  message: string;
  pod?: string;
  role?: string;
  /** For `gpus`: the resource, and which figure (`requested`, `desired`, `allocated`). */
  resource?: string;
  figure?: 'requested' | 'desired' | 'allocated';
  /** For `definition`: the field path, and its line in the text when the definition was given as text. */
  path?: string;
  line?: number;
}

export interface RawObject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  /** `Kind/name` of its owner among these objects (the root's is null). */
  owner: string | null;
}

export interface RawPod {
  name: string;
  namespace: string;
  uid: string;
  phase: string;
  node: string | null;
  /** `Kind/name` of its controller (or first owner). */
  owner: string | null;
  /** Not finished and not being deleted: asks for its GPUs. */
  live: boolean;
  /** Bound to a node and not finished: holds its GPUs. */
  allocated: boolean;
  /** GPU requests from its own spec, by resource (Kubernetes' rules for init containers and overhead). */
  gpus: Record<string, number>;
}

/** kubectl's view of a workload: its ownership tree (a flat list, each object naming its owner) and its pods. */
export interface RawView {
  owned: RawObject[];
  pods: RawPod[];
  /** Summed over the pods: requested by the live ones, allocated by the bound, unfinished ones; by resource. */
  gpus: { requested: Record<string, number>; allocated: Record<string, number> };
  /** Quantities this view cannot read (`ns/pod: container c nvidia.com/gpu "1.5"`). */
  unreadable: string[];
}

/** A definition error with where it is: the field path, and the line when the definition was text. */
export type DefinitionProblem = EngineError & { line?: number };

export interface TrialOptions {
  /** The GPU resource names and prefixes counted (the same list the rows are built with). */
  gpuResources?: readonly string[];
  cluster?: string;
  /** Name of the definition text, for messages (`trial.yaml`). */
  origin?: string;
}

export interface TrialResult {
  /** The definition tried: its name and whether it could be used at all. */
  definition: { name: string; source: string; valid: boolean };
  /** The tree with that definition; null when the definition could not be compiled. */
  tree: WorkloadTree | null;
  raw: RawView;
  differences: TrialDifference[];
  /** The definition's own errors (also among `differences`, as `definition`). */
  definitionErrors: DefinitionProblem[];
}

const FINISHED = new Set(['Succeeded', 'Failed']);

function phaseOf(pod: KubeObject): string {
  const p = (pod.status as { phase?: unknown } | undefined)?.phase;
  return typeof p === 'string' && p ? p : 'Pending';
}

function isLive(pod: KubeObject): boolean {
  return !FINISHED.has(phaseOf(pod)) && !pod.metadata?.deletionTimestamp;
}

function nodeOf(pod: KubeObject): string | null {
  const n = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
  return typeof n === 'string' && n ? n : null;
}

function sum(into: Record<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [k, v] of from) into[k] = (into[k] ?? 0) + v;
}

/** Who owns what, by uid among the given objects (the controller reference first), as kubectl's tree shows it. */
export function rawView(root: KubeObject, owned: readonly KubeObject[], gpuResources?: readonly string[]): RawView {
  const all = [root, ...owned.filter((o) => o !== root)];
  const byUid = new Map<string, KubeObject>();
  for (const o of all) if (typeof o.metadata?.uid === 'string' && o.metadata.uid) byUid.set(o.metadata.uid, o);
  const ownerOf = (o: KubeObject): string | null => {
    const refs = ownerRefsOf(o);
    const ref = refs.find((r) => r.controller) ?? refs[0];
    if (!ref) return null;
    const owner = typeof ref.uid === 'string' ? byUid.get(ref.uid) : undefined;
    return owner ? `${String(owner.kind)}/${String(owner.metadata?.name ?? '')}` : `${String(ref.kind)}/${String(ref.name)}`;
  };
  const isGpuName = gpuResources ? gpuNames(gpuResources) : undefined;
  const unreadable: string[] = [];
  const view: RawView = { owned: [], pods: [], gpus: { requested: {}, allocated: {} }, unreadable };
  for (const o of all) {
    view.owned.push({
      apiVersion: String(o.apiVersion ?? ''), kind: String(o.kind ?? ''), namespace: String(o.metadata?.namespace ?? ''), name: String(o.metadata?.name ?? ''),
      uid: String(o.metadata?.uid ?? ''), owner: o === root ? null : ownerOf(o),
    });
  }
  // A bare Pod workload is its own only pod.
  const pods = isPod(root) ? [root] : owned.filter(isPod);
  for (const p of pods) {
    const amounts = podSpecDevices(p, unreadable, isGpuName);
    const live = isLive(p);
    const allocated = nodeOf(p) !== null && !FINISHED.has(phaseOf(p));
    if (live) sum(view.gpus.requested, amounts);
    if (allocated) sum(view.gpus.allocated, amounts);
    view.pods.push({
      name: String(p.metadata?.name ?? ''), namespace: String(p.metadata?.namespace ?? ''), uid: String(p.metadata?.uid ?? ''),
      phase: phaseOf(p), node: nodeOf(p), owner: ownerOf(p), live, allocated, gpus: Object.fromEntries(amounts),
    });
  }
  return view;
}

function workloadText(tree: WorkloadTree): string {
  return `${tree.workload.kind} ${tree.workload.namespace ? `${tree.workload.namespace}/` : ''}${tree.workload.name}`;
}

/**
 * The comparison `wmap verify` makes, with a stable code per difference: owned pods no component claims,
 * replica counts that disagree with live pods, and GPUs counted from the raw pod specs by the conservation
 * check's own code (not the engine's) against the definition's templates × replicas and against what the
 * engine counted. A finished workload (Completed, Failed, Suspended) must hold no GPUs.
 */
function compareTree(tree: WorkloadTree, pods: readonly KubeObject[], gpuResources?: readonly string[]): TrialDifference[] {
  const out: TrialDifference[] = [];
  const defined = tree.definition.source !== 'none';
  for (const p of tree.unmatchedPods) if (defined) out.push({ code: 'unclaimed-pod', pod: p.name, message: `pod ${p.name} is owned by the workload but no component claims it` });
  for (const p of tree.pods) if (p.instance === null) out.push({ code: 'no-instance', pod: p.name, message: `pod ${p.name} matches component ${p.component} but none of its instances` });
  const finished = tree.status.matched.find((s) => s === 'Completed' || s === 'Failed' || s === 'Suspended');
  if (!finished) {
    for (const r of tree.roles) {
      if (r.livePods === r.desiredPods) continue;
      out.push({ code: r.livePods === 0 ? 'empty-role' : 'replicas', role: r.name, message: `role ${r.name}: the definition asks for ${r.desiredPods} pods, ${r.livePods} are live` });
    }
  }
  // Independent of the engine: every owned live pod's own request, from its raw spec.
  const bySpec: Record<string, number> = {};
  const unreadable: string[] = [];
  const isGpuName = gpuResources ? gpuNames(gpuResources) : undefined;
  for (const p of pods.filter(isLive)) {
    const amounts = podSpecDevices(p, unreadable, isGpuName);
    sum(bySpec, amounts);
    if (finished && amounts.size > 0) out.push({ code: 'finished-holding-gpus', pod: String(p.metadata?.name ?? ''), message: `the workload is ${finished}, but pod ${p.metadata?.name} still asks for ${[...amounts].map(([k, v]) => `${v} ${k}`).join(', ')}` });
  }
  for (const u of unreadable) out.push({ code: 'unreadable-quantity', message: `pod ${u}: not a whole number of devices` });
  const counted = tree.gpus.requested.byResource;
  for (const k of new Set([...Object.keys(bySpec), ...Object.keys(counted)])) {
    if ((bySpec[k] ?? 0) !== (counted[k] ?? 0)) out.push({ code: 'gpus', resource: k, figure: 'requested', message: `${k}: the engine counts ${counted[k] ?? 0} requested, the pod specs ask for ${bySpec[k] ?? 0}` });
  }
  const desired = tree.gpus.desired.byResource;
  if (!finished && defined) {
    for (const k of new Set([...Object.keys(bySpec), ...Object.keys(desired)])) {
      if ((bySpec[k] ?? 0) !== (desired[k] ?? 0)) out.push({ code: 'gpus', resource: k, figure: 'desired', message: `${k}: the definition's templates × replicas give ${desired[k] ?? 0}, the owned pods request ${bySpec[k] ?? 0}` });
    }
  }
  for (const e of tree.errors) out.push({ code: 'resolve', path: e.path, message: e.message });
  return out;
}

/** `wmap verify`'s check of one resolved workload: the differences as lines naming the workload. */
export function verifyTree(tree: WorkloadTree, pods: readonly KubeObject[], gpuResources?: readonly string[]): Discrepancy[] {
  const w = workloadText(tree);
  return compareTree(tree, pods, gpuResources).map((d) => ({ workload: w, message: d.message }));
}

/** The definition to try: its text (the first definition in it), or an already compiled one. */
function prepare(definition: string | CompiledDefinition, origin: string): { compiled: CompiledDefinition | null; name: string; source: string; errors: DefinitionProblem[] } {
  if (typeof definition !== 'string') return { compiled: definition, name: definition.name, source: definition.source, errors: [] };
  const { definitions, errors } = loadDefinitionsFromText(definition, origin, 'file');
  const problems: DefinitionProblem[] = errors.map((e) => ({ ...e }));
  const first = definitions[0];
  if (!first) {
    if (problems.length === 0) problems.push({ code: 'definition.missing', message: `${origin} holds no definition`, path: origin });
    return { compiled: null, name: origin, source: 'file', errors: problems };
  }
  if (definitions.length > 1) problems.push({ code: 'definition.several', message: `${origin} holds ${definitions.length} definitions; the first, "${first.name}", is tried`, path: origin });
  const single = definitions.length === 1 && errors.length === 0;
  for (const e of first.errors) problems.push({ ...e, ...(single ? withLine(definition, e.path) : {}) });
  const { compiled, errors: compileErrors } = first.errors.length === 0 ? compileDefinition(first) : { compiled: null, errors: [] };
  for (const e of compileErrors) problems.push({ ...e, ...(single ? withLine(definition, e.path) : {}) });
  return { compiled, name: first.name, source: 'file', errors: problems };
}

/** The line of the field the error names (of its nearest parent when the field is missing), as the studio's editor marks it. */
function withLine(text: string, path: string): { line?: number } {
  const range = path ? rangeOfPath(text, path) : null;
  return range ? { line: range.line } : {};
}

/**
 * Tries a definition on one workload: its root and everything it owns (as the owner index gives it).
 * Whatever the definition is, the answer is a result (its errors are differences), never an exception.
 */
export function trialDefinition(definition: string | CompiledDefinition, root: KubeObject, owned: readonly KubeObject[], options: TrialOptions = {}): TrialResult {
  const origin = options.origin ?? 'definition';
  const prepared = prepare(definition, origin);
  const raw = rawView(root, owned, options.gpuResources);
  const differences: TrialDifference[] = prepared.errors.map((e) => ({ code: 'definition', message: e.message, path: e.path, ...(e.line !== undefined ? { line: e.line } : {}) }));
  let tree: WorkloadTree | null = null;
  if (prepared.compiled) {
    const isGpuResource = options.gpuResources ? gpuResourceMatcher(options.gpuResources) : undefined;
    tree = resolveWorkload(prepared.compiled, root, [root, ...owned.filter((o) => o !== root)], { cluster: options.cluster, isGpuResource });
    const pods = isPod(root) ? [root] : owned.filter(isPod);
    differences.push(...compareTree(tree, pods, options.gpuResources));
    // What the engine counts as allocated against the bound, unfinished pods' own requests.
    const allocated = tree.gpus.allocated.byResource;
    for (const k of new Set([...Object.keys(raw.gpus.allocated), ...Object.keys(allocated)])) {
      if ((raw.gpus.allocated[k] ?? 0) !== (allocated[k] ?? 0)) differences.push({ code: 'gpus', resource: k, figure: 'allocated', message: `${k}: the engine counts ${allocated[k] ?? 0} allocated, the bound pods' specs ask for ${raw.gpus.allocated[k] ?? 0}` });
    }
  }
  return { definition: { name: prepared.name, source: prepared.source, valid: prepared.compiled !== null }, tree, raw, differences, definitionErrors: prepared.errors };
}
