/**
 * Updates (reference §3.7, §3.8): the JSON Patch that sets pod-template fragments, labels and
 * annotations on the instances of a component, and the suspend / resume patches. Pure: returns
 * the patch and the object it produces. Every patch starts with a `test` of
 * `metadata.resourceVersion`, so a concurrent change makes the API server reject it (optimistic
 * concurrency) instead of silently overwriting.
 *
 * Deliberate differences from upstream:
 * - only the fields an instance actually changes are written, per instance, so no instance ever
 *   gets `null` written into a field the API server rejects (upstream skips a field only when it is
 *   empty for ALL instances, pitfall P-13);
 * - labels and annotations are merged key by key (a `null` value removes a key), not replaced whole;
 * - the patch is raw JSON: no typed round-trip adds `creationTimestamp: null` or drops unknown
 *   fields (P-14).
 */
import type { CompiledComponent, CompiledDefinition } from './definition/compile.ts';
import { EngineFailure, engineError, type EngineError } from './errors.ts';
import type { BoundExpression } from './expression.ts';
import { applyJsonPatch, getAt, pointer, setOps, type JsonPatchOp } from './json-patch.ts';
import { describeObject, isRecord, meta, type KubeObject } from './k8s.ts';
import { instanceIdsOf } from './resolve/extract.ts';

export interface PodTemplateChanges {
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
  schedulerName?: string;
  priorityClassName?: string;
  /** Image of the first (main) container. */
  image?: string;
  /** Resources of the first (main) container. */
  resources?: Record<string, unknown>;
  nodeAffinity?: Record<string, unknown>;
  podAffinity?: Record<string, unknown>;
  resourceClaims?: unknown[];
}

export interface PlannedPatch {
  patch: JsonPatchOp[];
  object: KubeObject;
  errors: EngineError[];
}

type Segment = string | number;

/** Where each change lands for one instance, relative to the designated pod template / spec / fragment. */
interface Targets {
  metadata?: Segment[];
  spec?: Segment[];
  fragments: Partial<Record<string, Segment[]>>;
}

function pathsPerInstance(expr: BoundExpression | undefined, root: KubeObject, count: number, subject: string, multi: boolean): Array<Segment[] | undefined> {
  const out = new Array<Segment[] | undefined>(count).fill(undefined);
  if (!expr) return out;
  const paths = expr.paths(root, subject);
  if (!multi) {
    if (paths.length > 1) throw new EngineFailure('update.cardinality', `${expr.path}: designates ${paths.length} places for a component without instances`, expr.path);
    out[0] = paths[0];
    return out;
  }
  if (paths.length !== count) throw new EngineFailure('update.cardinality', `${expr.path}: array length mismatch: expected ${count} values but got ${paths.length}`, expr.path);
  return paths;
}

function targetsFor(c: CompiledComponent, root: KubeObject, ids: string[], subject: string): Targets[] {
  const n = ids.length;
  const multi = !!c.instanceIds;
  const tpl = pathsPerInstance(c.podTemplateSpec, root, n, subject, multi);
  const spec = pathsPerInstance(c.podSpec, root, n, subject, multi);
  const md = pathsPerInstance(c.metadata, root, n, subject, multi);
  const frags: Record<string, Array<Segment[] | undefined>> = {};
  for (const [k, e] of Object.entries(c.fragments ?? {})) frags[k] = pathsPerInstance(e, root, n, subject, multi);
  return ids.map((_, i) => {
    const t: Targets = { fragments: {} };
    if (c.podTemplateSpec && tpl[i]) {
      t.metadata = [...tpl[i]!, 'metadata'];
      t.spec = [...tpl[i]!, 'spec'];
    } else if (c.podSpec && spec[i]) {
      t.spec = spec[i];
      if (md[i]) t.metadata = md[i];
    }
    for (const [k, paths] of Object.entries(frags)) if (paths[i]) t.fragments[k] = paths[i];
    return t;
  });
}

/** Resolves each change of one instance to the path it is written at. */
function placements(t: Targets, ch: PodTemplateChanges, component: string): Array<{ field: string; path: Segment[]; value: unknown; merge?: boolean }> {
  const out: Array<{ field: string; path: Segment[]; value: unknown; merge?: boolean }> = [];
  const need = (field: string, path: Segment[] | undefined, value: unknown, merge = false) => {
    if (value === undefined) return;
    if (!path) throw new EngineFailure('update.no-path', `component "${component}" has no path for ${field}, so it cannot be changed`, '');
    out.push({ field, path, value, merge });
  };
  const f = t.fragments;
  const sub = (base: Segment[] | undefined, ...rest: Segment[]) => (base ? [...base, ...rest] : undefined);
  need('labels', f.labelsPath ?? sub(t.metadata, 'labels'), ch.labels, true);
  need('annotations', f.annotationsPath ?? sub(t.metadata, 'annotations'), ch.annotations, true);
  need('schedulerName', f.schedulerNamePath ?? sub(t.spec, 'schedulerName'), ch.schedulerName);
  need('priorityClassName', f.priorityClassNamePath ?? sub(t.spec, 'priorityClassName'), ch.priorityClassName);
  need('image', f.imagePath ?? sub(f.containerPath, 'image') ?? sub(f.containersPath, 0, 'image') ?? sub(t.spec, 'containers', 0, 'image'), ch.image);
  need('resources', f.resourcesPath ?? sub(f.containerPath, 'resources') ?? sub(f.containersPath, 0, 'resources') ?? sub(t.spec, 'containers', 0, 'resources'), ch.resources);
  need('nodeAffinity', f.nodeAffinityPath ?? sub(t.spec, 'affinity', 'nodeAffinity'), ch.nodeAffinity);
  need('podAffinity', f.podAffinityPath ?? sub(t.spec, 'affinity', 'podAffinity'), ch.podAffinity);
  need('resourceClaims', f.resourceClaimsPath ?? sub(t.spec, 'resourceClaims'), ch.resourceClaims);
  return out;
}

function isEmptyChange(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isRecord(v)) return Object.keys(v).length === 0;
  return false;
}

function startPatch(root: KubeObject): JsonPatchOp[] {
  const rv = meta(root).resourceVersion;
  return typeof rv === 'string' && rv ? [{ op: 'test', path: '/metadata/resourceVersion', value: rv }] : [];
}

function finish(root: KubeObject, ops: JsonPatchOp[], errors: EngineError[]): PlannedPatch {
  try {
    return { patch: ops, object: applyJsonPatch(root, ops), errors };
  } catch (e) {
    if (e instanceof EngineFailure) return { patch: [], object: root, errors: [...errors, e.toValue()] };
    throw e;
  }
}

/**
 * Plans a change of the pod templates of one component. `changes` is either one set of changes for
 * every instance, or a map instance id → changes (instances without an entry are left alone).
 */
export function planComponentUpdate(
  def: CompiledDefinition,
  root: KubeObject,
  componentName: string,
  changes: PodTemplateChanges | { byInstance: Record<string, PodTemplateChanges> },
): PlannedPatch {
  const errors: EngineError[] = [];
  const c = def.byName.get(componentName);
  if (!c) return { patch: [], object: root, errors: [engineError('update.component', `component ${componentName} not found in definition "${def.name}"`)] };
  const subject = describeObject(root);
  try {
    const ids = instanceIdsOf(c, root, subject, errors);
    const targets = targetsFor(c, root, ids, subject);
    const byInstance = 'byInstance' in changes ? changes.byInstance : null;
    for (const id of Object.keys(byInstance ?? {})) {
      if (!ids.includes(id)) errors.push(engineError('update.instance', `component "${componentName}" has no instance "${id}" (instances: ${ids.join(', ') || 'none'})`));
    }
    const ops = startPatch(root);
    let working: unknown = structuredClone(root);
    ids.forEach((id, i) => {
      const ch = byInstance ? byInstance[id] : (changes as PodTemplateChanges);
      if (!ch) return;
      for (const p of placements(targets[i], ch, componentName)) {
        if (p.merge && isRecord(p.value)) {
          const current = getAt(working, p.path);
          for (const [k, v] of Object.entries(p.value)) {
            if (v === null) {
              if (isRecord(current) && k in current) {
                const op: JsonPatchOp = { op: 'remove', path: pointer([...p.path, k]) };
                ops.push(op);
                working = applyJsonPatch(working, [op]);
              }
              continue;
            }
            if (isRecord(current) && current[k] === v) continue;
            const add = setOps(working, [...p.path, k], v);
            ops.push(...add);
            working = applyJsonPatch(working, add);
          }
          continue;
        }
        // Per instance: an empty value means "no change here", never a null write.
        if (isEmptyChange(p.value)) continue;
        if (JSON.stringify(getAt(working, p.path)) === JSON.stringify(p.value)) continue;
        const add = setOps(working, p.path, p.value);
        ops.push(...add);
        working = applyJsonPatch(working, add);
      }
    });
    return finish(root, ops.length === startPatch(root).length ? [] : ops, errors);
  } catch (e) {
    if (e instanceof EngineFailure) return { patch: [], object: root, errors: [...errors, e.toValue()] };
    throw e;
  }
}

/** Plans the suspend or resume patch from the root component's suspendDefinition. */
export function planSuspend(def: CompiledDefinition, root: KubeObject, action: 'suspend' | 'resume'): PlannedPatch {
  const s = def.root.suspend ?? def.components.find((c) => c.suspend)?.suspend;
  if (!s) return { patch: [], object: root, errors: [engineError('update.suspend', `definition "${def.name}" does not have suspendDefinition, so ${def.rootKind.kind} cannot be ${action === 'suspend' ? 'suspended' : 'resumed'}`)] };
  const subject = describeObject(root);
  try {
    const ops = startPatch(root);
    let working: unknown = structuredClone(root);
    for (const a of action === 'suspend' ? s.suspend : s.resume) {
      const paths = a.path.paths(working, subject);
      if (paths.length === 0) throw new EngineFailure('update.no-path', `${a.path.path}: designates no place in ${subject}`, a.path.path);
      for (const p of paths) {
        const add = setOps(working, p, a.value);
        ops.push(...add);
        working = applyJsonPatch(working, add);
      }
    }
    return finish(root, ops, []);
  } catch (e) {
    if (e instanceof EngineFailure) return { patch: [], object: root, errors: [e.toValue()] };
    throw e;
  }
}
