/**
 * Updates (reference §3.7, §3.8): the JSON Patch that changes the pod templates of a definition's
 * components (labels, annotations, scheduling fields, and a named container's image, env and
 * resources), and the suspend / resume patches. Pure: returns the patch and the object it produces.
 * Every patch starts with a `test` of `metadata.resourceVersion`, so a concurrent change makes the
 * API server reject it (optimistic concurrency) instead of silently overwriting.
 *
 * Deliberate differences from upstream:
 * - only the fields an instance actually changes are written, per instance, so no instance ever
 *   gets `null` written into a field the API server rejects (upstream skips a field only when it is
 *   empty for ALL instances, pitfall P-13);
 * - labels, annotations, env entries and resource quantities are merged key by key (a `null` value
 *   removes a key), not replaced whole; a container is addressed by name, not "the first one";
 * - only the definition paths a change needs are evaluated, so a computed fragment path (Dynamo's
 *   `resourcesPath` builds a value, it points at nothing) does not block unrelated changes;
 * - the patch is raw JSON: no typed round-trip adds `creationTimestamp: null` or drops unknown
 *   fields (P-14).
 */
import type { CompiledComponent, CompiledDefinition, FragmentField } from './definition/compile.ts';
import { EngineFailure, engineError, type EngineError } from './errors.ts';
import type { BoundExpression } from './expression.ts';
import { applyJsonPatch, getAt, pointer, setOps, type JsonPatchOp } from './json-patch.ts';
import { describeObject, isRecord, meta, type KubeObject } from './k8s.ts';
import { instanceIdsOf } from './resolve/extract.ts';
import { compareQuantities, parseQuantity, type Quantity } from '../../lib/quantity/index.ts';

/** Changes of one container, found by name among the template's containers and init containers. */
export interface ContainerChanges {
  image?: string;
  /** Entries of the container's `env` list by name: a value sets it (in place, or appended), `null` removes it. */
  env?: Record<string, string | null>;
  /** Quantities merged key by key; `null` removes one. */
  resources?: { requests?: Record<string, string | null>; limits?: Record<string, string | null> };
}

export interface PodTemplateChanges {
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
  schedulerName?: string;
  priorityClassName?: string;
  /** Container name → its changes. */
  containers?: Record<string, ContainerChanges>;
  nodeAffinity?: Record<string, unknown>;
  podAffinity?: Record<string, unknown>;
  resourceClaims?: unknown[];
}

/** Which pod templates to change: a component's instance, or all its instances. `role` names it in messages. */
export interface TemplateTarget {
  component: string;
  /** Absent: every instance of the component. */
  instance?: string;
  role?: string;
}

export interface PlannedPatch {
  patch: JsonPatchOp[];
  object: KubeObject;
  errors: EngineError[];
  /** Existing label / annotation values the change replaces (what kubectl's `--overwrite` guards). */
  replaced: Array<{ field: 'labels' | 'annotations'; key: string; from: string; to: string }>;
  /**
   * Pod templates that change although they were not asked for, because they are the same template
   * (an LWS leader without a leaderTemplate runs the worker's): the preview must say so.
   */
  alsoChanged: Array<{ component: string; instance: string }>;
}

type Segment = string | number;

/** Where each change lands for one instance, relative to the designated pod template / spec / fragment. */
interface Targets {
  metadata?: Segment[];
  spec?: Segment[];
  /** The template (or pod spec) itself: two instances with the same one share every change. */
  template?: string;
  fragments: Partial<Record<FragmentField, Segment[]>>;
}

const FIELD_FRAGMENT: Partial<Record<keyof PodTemplateChanges, FragmentField>> = {
  labels: 'labelsPath',
  annotations: 'annotationsPath',
  schedulerName: 'schedulerNamePath',
  priorityClassName: 'priorityClassNamePath',
  nodeAffinity: 'nodeAffinityPath',
  podAffinity: 'podAffinityPath',
  resourceClaims: 'resourceClaimsPath',
};

/** The fragment paths a set of changes needs (the others are never evaluated). */
function neededFragments(all: PodTemplateChanges[]): Set<FragmentField> {
  const out = new Set<FragmentField>();
  for (const ch of all) {
    for (const [field, frag] of Object.entries(FIELD_FRAGMENT)) if (ch[field as keyof PodTemplateChanges] !== undefined) out.add(frag);
    const containers = Object.values(ch.containers ?? {});
    if (containers.length === 0) continue;
    out.add('containerPath').add('containersPath');
    if (containers.some((c) => c.image !== undefined)) out.add('imagePath');
    if (containers.some((c) => c.resources !== undefined)) out.add('resourcesPath');
  }
  return out;
}

function pathsPerInstance(expr: BoundExpression | undefined, root: KubeObject, count: number, subject: string, multi: boolean): Array<Segment[] | undefined> {
  const out = new Array<Segment[] | undefined>(count).fill(undefined);
  if (!expr) return out;
  let paths: Segment[][];
  try {
    paths = expr.paths(root, subject);
  } catch (e) {
    // jq's path() fails on an expression that builds its value (Dynamo's resourcesPath): nothing to write to.
    if (!(e instanceof EngineFailure) || e.code !== 'expression.runtime') throw e;
    const field = expr.path.slice(expr.path.lastIndexOf('.') + 1);
    throw new EngineFailure('update.not-writable', `${field} of this definition computes a value rather than pointing at a field, so it cannot be changed through it (${e.message})`, expr.path);
  }
  if (!multi) {
    if (paths.length > 1) throw new EngineFailure('update.cardinality', `${expr.path}: designates ${paths.length} places for a component without instances`, expr.path);
    out[0] = paths[0];
    return out;
  }
  if (paths.length !== count) throw new EngineFailure('update.cardinality', `${expr.path}: array length mismatch: expected ${count} values but got ${paths.length}`, expr.path);
  return paths;
}

function targetsFor(c: CompiledComponent, root: KubeObject, ids: string[], subject: string, needed: Set<FragmentField>): Targets[] {
  const n = ids.length;
  const multi = !!c.instanceIds;
  const tpl = pathsPerInstance(c.podTemplateSpec, root, n, subject, multi);
  const spec = pathsPerInstance(c.podSpec, root, n, subject, multi);
  const md = pathsPerInstance(c.metadata, root, n, subject, multi);
  const frags: Partial<Record<FragmentField, Array<Segment[] | undefined>>> = {};
  for (const [k, e] of Object.entries(c.fragments ?? {}) as Array<[FragmentField, BoundExpression]>) {
    if (needed.has(k)) frags[k] = pathsPerInstance(e, root, n, subject, multi);
  }
  return ids.map((_, i) => {
    const t: Targets = { fragments: {} };
    if (c.podTemplateSpec && tpl[i]) {
      t.metadata = [...tpl[i]!, 'metadata'];
      t.spec = [...tpl[i]!, 'spec'];
      t.template = pointer(tpl[i]!);
    } else if (c.podSpec && spec[i]) {
      t.spec = spec[i];
      t.template = pointer(spec[i]!);
      if (md[i]) t.metadata = md[i];
    }
    for (const [k, paths] of Object.entries(frags) as Array<[FragmentField, Array<Segment[] | undefined>]>) if (paths[i]) t.fragments[k] = paths[i];
    return t;
  });
}

/** Resolves each non-container change of one instance to the path it is written at. */
function placements(t: Targets, ch: PodTemplateChanges, where: string): Array<{ field: string; path: Segment[]; value: unknown; merge?: boolean }> {
  const out: Array<{ field: string; path: Segment[]; value: unknown; merge?: boolean }> = [];
  const need = (field: string, path: Segment[] | undefined, value: unknown, merge = false) => {
    if (value === undefined) return;
    if (!path) throw new EngineFailure('update.no-path', `${where} has no path for ${field}, so it cannot be changed`, '');
    out.push({ field, path, value, merge });
  };
  const f = t.fragments;
  const sub = (base: Segment[] | undefined, ...rest: Segment[]) => (base ? [...base, ...rest] : undefined);
  need('labels', f.labelsPath ?? sub(t.metadata, 'labels'), ch.labels, true);
  need('annotations', f.annotationsPath ?? sub(t.metadata, 'annotations'), ch.annotations, true);
  need('schedulerName', f.schedulerNamePath ?? sub(t.spec, 'schedulerName'), ch.schedulerName);
  need('priorityClassName', f.priorityClassNamePath ?? sub(t.spec, 'priorityClassName'), ch.priorityClassName);
  need('nodeAffinity', f.nodeAffinityPath ?? sub(t.spec, 'affinity', 'nodeAffinity'), ch.nodeAffinity);
  need('podAffinity', f.podAffinityPath ?? sub(t.spec, 'affinity', 'podAffinity'), ch.podAffinity);
  need('resourceClaims', f.resourceClaimsPath ?? sub(t.spec, 'resourceClaims'), ch.resourceClaims);
  return out;
}

interface ContainerSlot {
  name: string;
  path: Segment[];
  /** The fragmented spec's main container (`containerPath`): its image and resources may have paths of their own. */
  main: boolean;
  init: boolean;
}

/**
 * The containers of one instance's template, by name: containers, then init containers (kubectl's
 * `set image` reaches both), or a fragmented spec's main container and container list. A nameless
 * main container (KServe's model spec) is called `main`.
 */
function containersOf(doc: unknown, t: Targets): ContainerSlot[] {
  const out: ContainerSlot[] = [];
  const add = (slot: ContainerSlot) => {
    if (!out.some((c) => c.name === slot.name)) out.push(slot);
  };
  const list = (base: Segment[] | undefined, init = false) => {
    const v = base ? getAt(doc, base) : undefined;
    if (!Array.isArray(v)) return;
    v.forEach((c, i) => {
      if (isRecord(c) && typeof c.name === 'string') add({ name: c.name, path: [...base!, i], main: false, init });
    });
  };
  const f = t.fragments;
  if (f.containerPath) {
    const c = getAt(doc, f.containerPath);
    if (isRecord(c)) add({ name: typeof c.name === 'string' && c.name ? c.name : 'main', path: f.containerPath, main: true, init: false });
  }
  list(f.containersPath);
  if (t.spec) {
    list([...t.spec, 'containers']);
    list([...t.spec, 'initContainers'], true);
  }
  return out;
}

function isEmptyChange(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isRecord(v)) return Object.keys(v).length === 0;
  return false;
}

// Kubernetes' own rules (apimachinery validation): qualified names for keys, label values.
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_RULE = "must be 63 characters or less, consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character";
/** The annotations of one object may hold at most this many bytes of keys and values (TotalAnnotationSizeLimitB). */
const ANNOTATIONS_LIMIT = 256 * 1024;

/** Why `key` is not a qualified name (`[prefix/]name`), or null. */
export function qualifiedNameProblem(key: string): string | null {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? null : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== null && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `the prefix "${prefix}" must be a lowercase DNS subdomain (e.g. example.com) of 253 characters or less`;
  }
  if (prefix !== null && prefix.includes('/')) return 'a key has at most one "/"';
  if (name.length === 0) return 'the name part must not be empty';
  if (name.length > 63 || !NAME_PART.test(name)) return `the name part ${NAME_RULE}`;
  return null;
}

/** Why `value` is not a valid label value, or null. */
export function labelValueProblem(value: string): string | null {
  if (value === '') return null;
  return value.length > 63 || !NAME_PART.test(value) ? `a label value ${NAME_RULE} (or be empty)` : null;
}

function quantityOf(v: string): Quantity | string {
  const q = parseQuantity(v);
  if (typeof q === 'string') return q;
  return q.negative && q.coef !== 0n ? 'must not be negative' : q;
}

/** What is wrong with the changes themselves, whatever the object: names and values Kubernetes would refuse. */
function changeProblems(ch: PodTemplateChanges): EngineError[] {
  const errors: EngineError[] = [];
  const bad = (code: string, message: string) => errors.push(engineError(code, message));
  for (const [k, v] of Object.entries(ch.labels ?? {})) {
    const p = qualifiedNameProblem(k) ?? (v === null ? null : labelValueProblem(v));
    if (p) bad('update.label', `invalid label ${v === null ? `key "${k}"` : `${k}=${v}`}: ${p}`);
  }
  for (const k of Object.keys(ch.annotations ?? {})) {
    const p = qualifiedNameProblem(k);
    if (p) bad('update.annotation', `invalid annotation key "${k}": ${p}`);
  }
  for (const [name, c] of Object.entries(ch.containers ?? {})) {
    if (!name) bad('update.container', 'a container name must not be empty');
    if (c.image !== undefined && (c.image === '' || c.image.trim() !== c.image)) bad('update.image', `invalid image "${c.image}" for container ${name}: it must not be empty or start or end with whitespace`);
    for (const k of Object.keys(c.env ?? {})) {
      if (!k || k.includes('=') || !/^[\x21-\x7e]+$/.test(k)) bad('update.env', `invalid environment variable name "${k}": it must be printable characters without "="`);
    }
    for (const part of ['requests', 'limits'] as const) {
      for (const [k, v] of Object.entries(c.resources?.[part] ?? {})) {
        const p = qualifiedNameProblem(k);
        if (p) bad('update.resource', `invalid resource name "${k}" in ${part}: ${p}`);
        if (v === null) continue;
        const q = quantityOf(v);
        if (typeof q === 'string') bad('update.quantity', `invalid quantity "${v}" for ${part}.${k}: ${q}`);
      }
    }
  }
  return errors;
}

function startPatch(root: KubeObject): JsonPatchOp[] {
  const rv = meta(root).resourceVersion;
  return typeof rv === 'string' && rv ? [{ op: 'test', path: '/metadata/resourceVersion', value: rv }] : [];
}

function failed(root: KubeObject, errors: EngineError[]): PlannedPatch {
  return { patch: [], object: root, errors, replaced: [], alsoChanged: [] };
}

/** The object being patched and the operations so far: each emitted operation is applied at once, so later ones see it. */
class Working {
  doc: unknown;
  readonly ops: JsonPatchOp[] = [];
  constructor(root: KubeObject) {
    this.doc = structuredClone(root);
  }
  emit(ops: JsonPatchOp[]): void {
    this.ops.push(...ops);
    this.doc = applyJsonPatch(this.doc, ops);
  }
  /** Sets or (null) removes each key of the map at `path`; returns the replaced string values. */
  merge(path: Segment[], values: Record<string, unknown>): Array<{ key: string; from: string }> {
    const replaced: Array<{ key: string; from: string }> = [];
    for (const [k, v] of Object.entries(values)) {
      const current = getAt(this.doc, path);
      const had = isRecord(current) && k in current ? current[k] : undefined;
      if (v === null) {
        if (had !== undefined) this.emit([{ op: 'remove', path: pointer([...path, k]) }]);
        continue;
      }
      // Quantities may be numbers in the object (`nvidia.com/gpu: 1`): "1" is the same value.
      if (had !== undefined && had !== null && String(had) === String(v)) continue;
      if (typeof had === 'string') replaced.push({ key: k, from: had });
      this.emit(setOps(this.doc, [...path, k], v));
    }
    return replaced;
  }
}

/** Sets and removes entries of a container's env list by name, keeping the order and every entry not named. */
function editEnv(w: Working, container: Segment[], set: Record<string, string | null>): void {
  const path = [...container, 'env'];
  for (const [name, value] of Object.entries(set)) {
    const list = getAt(w.doc, path);
    const entries = Array.isArray(list) ? list : [];
    const at = entries.flatMap((e, i) => (isRecord(e) && e.name === name ? [i] : []));
    if (value === null) {
      // From the end, so the indexes of the entries still to remove hold.
      for (const i of at.reverse()) w.emit([{ op: 'remove', path: pointer([...path, i]) }]);
      continue;
    }
    if (at.length === 0) {
      w.emit(Array.isArray(list) ? [{ op: 'add', path: pointer([...path, '-']), value: { name, value } }] : setOps(w.doc, path, [{ name, value }]));
      continue;
    }
    // Every entry of that name (Kubernetes lets the last one win): a valueFrom one becomes a plain value, as asked.
    for (const i of at) {
      const e = entries[i] as Record<string, unknown>;
      if (e.value === value && !('valueFrom' in e)) continue;
      w.emit([{ op: 'replace', path: pointer([...path, i]), value: { name, value } }]);
    }
  }
}

/** Requests above limits are refused by the API server; said here with the numbers. */
function checkRequestsWithinLimits(resources: unknown, keys: string[], where: string): EngineError[] {
  const errors: EngineError[] = [];
  const req = isRecord(resources) && isRecord(resources.requests) ? resources.requests : {};
  const lim = isRecord(resources) && isRecord(resources.limits) ? resources.limits : {};
  for (const k of keys) {
    if (req[k] === undefined || lim[k] === undefined) continue;
    const r = quantityOf(String(req[k]));
    const l = quantityOf(String(lim[k]));
    if (typeof r !== 'string' && typeof l !== 'string' && compareQuantities(r, l) > 0) {
      errors.push(engineError('update.quantity', `${where}: requests.${k} (${String(req[k])}) would be more than limits.${k} (${String(lim[k])})`));
    }
  }
  return errors;
}

function editContainer(w: Working, t: Targets, slot: ContainerSlot, ch: ContainerChanges, where: string): EngineError[] {
  const f = t.fragments;
  if (ch.image !== undefined) {
    const path = slot.main && f.imagePath ? f.imagePath : [...slot.path, 'image'];
    if (getAt(w.doc, path) !== ch.image) w.emit(setOps(w.doc, path, ch.image));
  }
  if (ch.env) editEnv(w, slot.path, ch.env);
  if (!ch.resources) return [];
  const base = slot.main && f.resourcesPath ? f.resourcesPath : [...slot.path, 'resources'];
  const keys = new Set<string>();
  for (const part of ['requests', 'limits'] as const) {
    const values = ch.resources[part];
    if (!values) continue;
    w.merge([...base, part], values);
    for (const k of Object.keys(values)) keys.add(k);
  }
  return checkRequestsWithinLimits(getAt(w.doc, base), [...keys], `${where} container ${slot.name}`);
}

const utf8 = new TextEncoder();

function annotationBytes(v: unknown): number {
  if (!isRecord(v)) return 0;
  return Object.entries(v).reduce((n, [k, x]) => n + utf8.encode(k).length + utf8.encode(String(x)).length, 0);
}

interface Edit {
  component: CompiledComponent;
  id: string;
  target: Targets;
  changes: PodTemplateChanges;
  where: string;
}

/** Applies each edit in order; the replaced values and any error that only the object can tell. */
function applyEdits(w: Working, edits: Edit[]): { errors: EngineError[]; replaced: PlannedPatch['replaced'] } {
  const errors: EngineError[] = [];
  const replaced: PlannedPatch['replaced'] = [];
  for (const e of edits) {
    for (const p of placements(e.target, e.changes, e.where)) {
      if (p.merge && isRecord(p.value)) {
        const field = p.field as 'labels' | 'annotations';
        for (const r of w.merge(p.path, p.value)) {
          const to = String(p.value[r.key]);
          if (!replaced.some((x) => x.field === field && x.key === r.key && x.from === r.from)) replaced.push({ field, key: r.key, from: r.from, to });
        }
        if (field === 'annotations' && annotationBytes(getAt(w.doc, p.path)) > ANNOTATIONS_LIMIT) {
          errors.push(engineError('update.annotation', `${e.where}: the annotations would be larger than ${ANNOTATIONS_LIMIT} bytes, more than Kubernetes allows`));
        }
        continue;
      }
      // Per instance: an empty value means "no change here", never a null write.
      if (isEmptyChange(p.value)) continue;
      if (JSON.stringify(getAt(w.doc, p.path)) === JSON.stringify(p.value)) continue;
      w.emit(setOps(w.doc, p.path, p.value));
    }
    const containers = Object.entries(e.changes.containers ?? {});
    if (containers.length === 0) continue;
    const slots = containersOf(w.doc, e.target);
    for (const [name, ch] of containers) {
      const slot = slots.find((s) => s.name === name);
      if (!slot) {
        errors.push(engineError('update.container', `${e.where} has no container "${name}" (containers in its pod template: ${slots.map((s) => s.name).join(', ') || 'none'})`));
        continue;
      }
      errors.push(...editContainer(w, e.target, slot, ch, e.where));
    }
  }
  return { errors, replaced };
}

function whereOf(c: CompiledComponent, id: string, role: string | undefined): string {
  if (role) return `role ${role}`;
  return id ? `component ${c.name} instance ${id}` : `component ${c.name}`;
}

/** Template pointer → the instances that have it, over every pod-bearing component (paths that cannot be read are left out). */
function templateOwners(def: CompiledDefinition, root: KubeObject, subject: string): Map<string, Array<{ component: string; instance: string }>> {
  const out = new Map<string, Array<{ component: string; instance: string }>>();
  for (const c of def.leaves) {
    try {
      const ids = instanceIdsOf(c, root, subject, []);
      targetsFor(c, root, ids, subject, new Set()).forEach((t, i) => {
        if (!t.template) return;
        const list = out.get(t.template) ?? [];
        list.push({ component: c.name, instance: ids[i] });
        out.set(t.template, list);
      });
    } catch (e) {
      if (!(e instanceof EngineFailure)) throw e;
    }
  }
  return out;
}

function sharedTemplates(def: CompiledDefinition, root: KubeObject, subject: string, edits: Edit[]): PlannedPatch['alsoChanged'] {
  const asked = new Set(edits.map((e) => `${e.component.name}\u0000${e.id}`));
  const owners = templateOwners(def, root, subject);
  const out: PlannedPatch['alsoChanged'] = [];
  for (const e of edits) {
    for (const o of (e.target.template && owners.get(e.target.template)) || []) {
      const key = `${o.component}\u0000${o.instance}`;
      if (asked.has(key)) continue;
      asked.add(key);
      out.push(o);
    }
  }
  return out;
}

/**
 * Plans a change of the pod templates of some components' instances, the same changes for each.
 * Errors name what is wrong: an unknown component or instance, a container the template does not
 * have (listing the ones it has), a label, name or quantity Kubernetes would refuse.
 */
export function planPodTemplateUpdate(def: CompiledDefinition, root: KubeObject, targets: TemplateTarget[], changes: PodTemplateChanges): PlannedPatch {
  return planEdits(def, root, targets.map((t) => ({ ...t, changes })));
}

function planEdits(def: CompiledDefinition, root: KubeObject, asked: Array<TemplateTarget & { changes: PodTemplateChanges }>): PlannedPatch {
  const problems = asked.flatMap((a) => changeProblems(a.changes));
  if (problems.length > 0) return failed(root, problems.filter((p, i) => problems.findIndex((q) => q.message === p.message) === i));
  const subject = describeObject(root);
  const errors: EngineError[] = [];
  try {
    const needed = neededFragments(asked.map((a) => a.changes));
    const edits: Edit[] = [];
    for (const a of asked) {
      const c = def.byName.get(a.component);
      if (!c) {
        errors.push(engineError('update.component', `component ${a.component} not found in definition "${def.name}"`));
        continue;
      }
      const ids = instanceIdsOf(c, root, subject, errors);
      if (a.instance !== undefined && !ids.includes(a.instance)) {
        errors.push(engineError('update.instance', `component "${c.name}" has no instance "${a.instance}" (instances: ${ids.join(', ') || 'none'})`));
        continue;
      }
      const targets = targetsFor(c, root, ids, subject, needed);
      ids.forEach((id, i) => {
        if (a.instance === undefined || a.instance === id) edits.push({ component: c, id, target: targets[i], changes: a.changes, where: whereOf(c, id, a.role) });
      });
    }
    const w = new Working(root);
    const applied = applyEdits(w, edits);
    errors.push(...applied.errors);
    if (errors.length > 0) return failed(root, errors);
    const start = startPatch(root);
    const ops = w.ops.length === 0 ? [] : [...start, ...w.ops];
    return { patch: ops, object: ops.length ? (w.doc as KubeObject) : root, errors, replaced: applied.replaced, alsoChanged: ops.length ? sharedTemplates(def, root, subject, edits) : [] };
  } catch (e) {
    if (e instanceof EngineFailure) return failed(root, [...errors, e.toValue()]);
    throw e;
  }
}

/**
 * The containers of each targeted pod template, by name (`init` for init containers), as a change
 * addresses them: what a command offers when no container is named.
 */
export function templateContainers(def: CompiledDefinition, root: KubeObject, target: TemplateTarget): { containers: Array<{ name: string; init: boolean }>; errors: EngineError[] } {
  const errors: EngineError[] = [];
  const c = def.byName.get(target.component);
  if (!c) return { containers: [], errors: [engineError('update.component', `component ${target.component} not found in definition "${def.name}"`)] };
  const subject = describeObject(root);
  try {
    const ids = instanceIdsOf(c, root, subject, errors);
    const out: Array<{ name: string; init: boolean }> = [];
    targetsFor(c, root, ids, subject, new Set(['containerPath', 'containersPath'])).forEach((t, i) => {
      if (target.instance !== undefined && ids[i] !== target.instance) return;
      for (const slot of containersOf(root, t)) if (!out.some((x) => x.name === slot.name)) out.push({ name: slot.name, init: slot.init });
    });
    return { containers: out, errors };
  } catch (e) {
    if (e instanceof EngineFailure) return { containers: [], errors: [...errors, e.toValue()] };
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
  if (!('byInstance' in changes)) return planEdits(def, root, [{ component: componentName, changes }]);
  return planEdits(def, root, Object.entries(changes.byInstance).map(([instance, ch]) => ({ component: componentName, instance, changes: ch })));
}

/** Plans the suspend or resume patch from the root component's suspendDefinition. */
export function planSuspend(def: CompiledDefinition, root: KubeObject, action: 'suspend' | 'resume'): PlannedPatch {
  const s = def.root.suspend ?? def.components.find((c) => c.suspend)?.suspend;
  if (!s) return failed(root, [engineError('update.suspend', `definition "${def.name}" does not have suspendDefinition, so ${def.rootKind.kind} cannot be ${action === 'suspend' ? 'suspended' : 'resumed'}`)]);
  const subject = describeObject(root);
  try {
    const w = new Working(root);
    w.emit(startPatch(root));
    for (const a of action === 'suspend' ? s.suspend : s.resume) {
      const paths = a.path.paths(w.doc, subject);
      if (paths.length === 0) throw new EngineFailure('update.no-path', `${a.path.path}: designates no place in ${subject}`, a.path.path);
      for (const p of paths) w.emit(setOps(w.doc, p, a.value));
    }
    return { patch: w.ops, object: w.doc as KubeObject, errors: [], replaced: [], alsoChanged: [] };
  } catch (e) {
    if (e instanceof EngineFailure) return failed(root, [e.toValue()]);
    throw e;
  }
}
