/**
 * Resolution: a compiled definition plus the root object and the objects it owns at any depth
 * become a workload tree (DESIGN.md contract). Pure; never throws for bad objects or failing
 * expressions — those become `errors` in the tree.
 */
import type { CompiledDefinition } from '../definition/compile.ts';
import { EngineFailure, describeError, engineError, type EngineError } from '../errors.ts';
import { addPodToFigures, addToTotal, emptyFigures, isDefaultGpuResource, podSpecGpus, type GpuResourceMatcher, type Worth } from '../gpu.ts';
import { deviceWorth, type NodeGpuInfo } from '../../../lib/gpu/device-worth.ts';
import { previewGang } from '../gang.ts';
import {
  apiGroupOf, describeObject, isPod, meta, objectName, objectNamespace, podIsFinished, podIsTerminating, podNode, podPhase, podReady, podRestarts,
  type KubeObject,
} from '../k8s.ts';
import { evaluateStatus } from '../status.ts';
import type { DefinitionRef, GpuFigures, TreeComponent, TreePod, TreeRole, WorkloadTree } from '../tree.ts';
import { extractComponent, type ExtractedComponent } from './extract.ts';
import { PodMatcher, type PodPlacement } from './match-pods.ts';
import { ownedClosure } from './ownership.ts';
import { podController, podWhy } from '../pod-why.ts';

export interface ResolveOptions {
  cluster?: string;
  /** Which extended resources count as GPUs (default: nvidia.com/gpu, MIG, shared, AMD, Intel). */
  isGpuResource?: GpuResourceMatcher;
  /** Set when `objects` is already exactly what the root owns (the live index knows it). */
  ownedOnly?: boolean;
  /** The GPU labels of a node by name (the live index knows its nodes), for devices' worth. */
  nodeGpus?: (nodeName: string) => NodeGpuInfo | null;
}

/** How many devices one unit of each resource is on a pod's node (or, for templates, anywhere). */
export function worthOn(nodeName: string | null, options: ResolveOptions): Worth {
  const node = nodeName && options.nodeGpus ? options.nodeGpus(nodeName) : null;
  return (resource) => deviceWorth(resource, node);
}

/** A pod of the tree; a GPU quantity the API server would reject is an error naming the pod and container, and not counted. */
export function treePod(pod: KubeObject, placement: PodPlacement | null, isGpu: GpuResourceMatcher, errors?: EngineError[]): TreePod {
  const phase = podPhase(pod);
  const node = podNode(pod);
  const report = errors ? (m: string) => errors.push(engineError('object.quantity', `${describeObject(pod)}: ${m}`, `pod ${objectNamespace(pod)}/${objectName(pod)}`)) : undefined;
  return {
    name: objectName(pod),
    namespace: objectNamespace(pod),
    uid: typeof meta(pod).uid === 'string' ? meta(pod).uid! : '',
    component: placement?.component?.name ?? null,
    instance: placement?.instance ?? null,
    replica: placement?.replica ?? null,
    phase,
    ready: podReady(pod),
    node,
    gpus: podSpecGpus(pod.spec, isGpu, report),
    allocated: node !== null && !podIsFinished(pod),
    restarts: podRestarts(pod),
    owner: podController(pod),
    why: podWhy(pod),
  };
}

/**
 * The engine's boundary: whatever a definition or an object does, the caller gets a tree. Failures
 * the engine anticipates are errors in the tree already; anything else (a bug, a stack exhausted by
 * a pathological object) becomes an `engine.internal` error in an otherwise empty tree.
 */
export function resolveWorkload(def: CompiledDefinition, root: KubeObject, objects: readonly KubeObject[], options: ResolveOptions = {}): WorkloadTree {
  try {
    return resolveTree(def, root, objects, options);
  } catch (e) {
    // The root itself may be what throws: then the tree names no object.
    let tree: WorkloadTree;
    let subject: string;
    try {
      tree = emptyTree(def, root, options);
      subject = describeObject(root);
    } catch {
      tree = emptyTree(def, {}, options);
      subject = 'an unreadable object';
    }
    tree.errors.push(engineError('engine.internal', `resolving ${subject} with definition "${def.name}" failed: ${describeError(e)}`));
    return tree;
  }
}

/** The identity of a workload's root object, as the tree names it. */
export function workloadRef(root: KubeObject, cluster = ''): WorkloadTree['workload'] {
  const m = meta(root);
  return {
    apiVersion: typeof root.apiVersion === 'string' ? root.apiVersion : '',
    kind: typeof root.kind === 'string' ? root.kind : '',
    namespace: objectNamespace(root),
    name: objectName(root),
    uid: typeof m.uid === 'string' ? m.uid : '',
    cluster,
  };
}

/** The tree of a workload that was not (or could not be) resolved: identity, no structure; errors are the caller's. */
export function emptyTree(def: CompiledDefinition, root: KubeObject, options: ResolveOptions = {}): WorkloadTree {
  return bareTree(root, { name: def.name, source: def.source }, options);
}

/** A tree with the root's identity and the given definition reference, and nothing else yet. */
export function bareTree(root: KubeObject, definition: DefinitionRef, options: ResolveOptions = {}): WorkloadTree {
  return {
    workload: workloadRef(root, options.cluster),
    definition,
    status: { matched: ['Undefined'], phase: null, conditions: [] },
    components: [],
    roles: [],
    pods: [],
    unmatchedPods: [],
    gpus: emptyFigures(),
    unmatchedGpus: emptyFigures(),
    gang: [],
    errors: [],
    warnings: [],
  };
}

function resolveTree(def: CompiledDefinition, root: KubeObject, objects: readonly KubeObject[], options: ResolveOptions): WorkloadTree {
  const isGpu = options.isGpuResource ?? isDefaultGpuResource;
  const tree = emptyTree(def, root, options);
  const errors: EngineError[] = tree.errors;
  const subject = describeObject(root);

  if (root.kind !== def.rootKind.kind || apiGroupOf(root.apiVersion) !== def.rootKind.group) {
    errors.push(engineError('object.kind-mismatch', `${subject} (${String(root.apiVersion)}) is not a ${def.rootKind.apiVersion} ${def.rootKind.kind}, which definition "${def.name}" describes`, 'apiVersion'));
  }

  tree.status = evaluateStatus(def.root.status, root, subject, errors);

  // Components and their instances.
  const extracted = new Map<string, ExtractedComponent>();
  const instanceIds = new Map<string, string[]>();
  for (const c of def.components) {
    try {
      const e = extractComponent(c, root, subject, errors);
      extracted.set(c.name, e);
      instanceIds.set(c.name, e.instances.map((i) => i.id));
    } catch (err) {
      if (!(err instanceof EngineFailure)) throw err;
      errors.push(err.toValue());
      instanceIds.set(c.name, []);
    }
  }

  // Pods: the root itself for a bare Pod, else the pods it owns at any depth.
  const owned = options.ownedOnly ? objects : ownedClosure(root, objects);
  const pods = isPod(root) && def.rootKind.kind === 'Pod' ? [root] : owned.filter(isPod);
  const matcher = new PodMatcher(def, instanceIds);
  const live = new Map<string, { live: number; ready: number }>();
  // GPU figures per component and per (component, instance), filled by the pods they claim.
  const componentGpus = new Map<string, GpuFigures>();
  const instanceGpus = new Map<string, GpuFigures>();
  const figuresOf = (m: Map<string, GpuFigures>, key: string): GpuFigures => {
    let f = m.get(key);
    if (!f) m.set(key, (f = emptyFigures()));
    return f;
  };
  for (const pod of pods) {
    const placement = matcher.place(pod);
    if (placement.problem) errors.push(placement.problem.toValue());
    const tp = treePod(pod, placement, isGpu, errors);
    // A terminating pod is no longer asked for, but holds its GPUs until it is gone.
    const requested = !podIsFinished(pod) && !podIsTerminating(pod);
    // Requested and allocated count every owned pod, claimed or not: the GPUs are held either way.
    const levels: GpuFigures[] = [tree.gpus];
    if (!placement.component) {
      tree.unmatchedPods.push(tp);
      levels.push(tree.unmatchedGpus);
    } else {
      tree.pods.push(tp);
      levels.push(figuresOf(componentGpus, tp.component!));
      if (tp.instance !== null) {
        const key = `${tp.component}\u0000${tp.instance}`;
        levels.push(figuresOf(instanceGpus, key));
        const l = live.get(key) ?? { live: 0, ready: 0 };
        if (requested) l.live++;
        if (tp.ready) l.ready++;
        live.set(key, l);
      }
    }
    addPodToFigures(levels, tp.gpus, requested, tp.allocated, worthOn(tp.node, options));
  }

  // Tree components, roles and desired GPUs.
  // Templates run on no node yet: a MIG profile's device is told by its memory size.
  const templateWorth = worthOn(null, options);
  const roleNames = new Map<string, number>();
  const claimed = new Set<string>();
  for (const c of def.components) {
    const e = extracted.get(c.name);
    const cg = figuresOf(componentGpus, c.name);
    const tc: TreeComponent = { name: c.name, kind: c.kind, parent: c.parent, hasPodDefinition: c.isLeaf, ...(c.replicaSelector ? { keysReplicas: true } : {}), instances: [], gpus: cg };
    for (const inst of e?.instances ?? []) {
      const gpusPerPod = inst.podSpec
        ? podSpecGpus(inst.podSpec, isGpu, (m) => errors.push(engineError('object.quantity', `${subject}: the pod template of component ${c.name}${inst.id ? ` instance ${inst.id}` : ''}: ${m}`, `component ${c.name}`)))
        : {};
      const key = `${c.name}\u0000${inst.id}`;
      const l = live.get(key) ?? { live: 0, ready: 0 };
      // Duplicate instance ids (reported as errors) match the same pods: each gets its own copy.
      const ig = claimed.has(key) ? structuredClone(figuresOf(instanceGpus, key)) : figuresOf(instanceGpus, key);
      claimed.add(key);
      tc.instances.push({
        id: inst.id,
        replicas: inst.replicas,
        minReplicas: inst.minReplicas,
        maxReplicas: inst.maxReplicas,
        gpusPerPod,
        ...(inst.podMetadata ? { podMetadata: inst.podMetadata } : {}),
        ...(inst.raw !== undefined && inst.raw !== null ? { podTemplate: inst.raw } : {}),
        livePods: l.live,
        gpus: ig,
      });
      if (!c.isLeaf) continue;
      // Leaf replicas are the total pods of the instance, as in every upstream catalog entry; a count
      // the API server would refuse asks for nothing we can count (the error says so).
      const desiredPods = inst.replicasInvalid ? 0 : (inst.replicas ?? 1);
      for (const f of [tree.gpus, cg, ig]) addToTotal(f.desired, gpusPerPod, desiredPods, templateWorth);
      const base = inst.id || c.name;
      roleNames.set(base, (roleNames.get(base) ?? 0) + 1);
      tree.roles.push({ name: base, component: c.name, instance: inst.id, desiredPods, livePods: l.live, readyPods: l.ready, gpusPerPod });
    }
    tree.components.push(tc);
  }
  // Two components with an instance of the same name: qualify those role names.
  for (const r of tree.roles as TreeRole[]) if ((roleNames.get(r.name) ?? 0) > 1) r.name = `${r.component}/${r.name}`;

  if (def.gang) {
    try {
      tree.gang = previewGang(def, root, tree, pods, matcher, extracted, errors);
    } catch (err) {
      if (!(err instanceof EngineFailure)) throw err;
      errors.push(err.toValue());
    }
  }
  return tree;
}
