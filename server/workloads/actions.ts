/**
 * The write path for acting on a workload. An action (an `ActionSpec`: suspend / resume through
 * `suspendDefinition`, labels, annotations, a container's image, env or resources on the pod
 * templates of a role, or a delete of the root) is planned from the workload's definition and shown
 * as a diff of the root object; a server-side dry run checks it; then it is sent with a
 * `resourceVersion` precondition (a JSON patch `test`, or a delete's `preconditions`), so a workload
 * that changed since it was looked at is not overwritten: the conflict says so. Every attempt,
 * accepted or refused, is written to the audit log. Sent with the caller's writer: in local mode, the
 * kubeconfig's own identity (the user's).
 */
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import { z } from 'zod';
import {
  planPodTemplateUpdate,
  planSuspend,
  templateContainers,
  type CompiledDefinition,
  type EngineError,
  type JsonPatchOp,
  type KubeObject,
  type PlannedPatch,
  type PodTemplateChanges,
  type TemplateTarget,
  type TreeRole,
  type WorkloadTree,
} from '../engine/index.ts';
import { groupKindOf } from './group-kind.ts';
import type { Resolved } from './resolver.ts';
import type { WorkloadIndex } from './workload-index.ts';
import { recordAudit } from './audit-trail.ts';

/** Key → value; `null` removes the key. */
type Edits = Record<string, string | null>;

/** One action on a workload, as the dashboard's API receives it (validated with `actionSpecSchema`). */
export type ActionSpec =
  | { action: 'suspend' | 'resume' }
  | { action: 'labels' | 'annotations'; role?: string /* absent = every role with a pod template */; set: Edits /* null removes */ }
  | { action: 'image'; role: string; container: string; image: string }
  | { action: 'env'; role: string; container: string; set: Edits }
  | { action: 'resources'; role: string; container: string; requests?: Edits; limits?: Edits }
  | { action: 'delete'; propagation: Propagation };

export type ActionName = ActionSpec['action'];
export type Propagation = 'Foreground' | 'Background' | 'Orphan';

const edits = z.record(z.string(), z.string().nullable());
const named = z.string().min(1);

/** `ActionSpec` as a zod schema (unknown fields are refused, so a typo is an error rather than ignored). */
export const actionSpecSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.enum(['suspend', 'resume']) }),
  z.strictObject({ action: z.enum(['labels', 'annotations']), role: named.optional(), set: edits }),
  z.strictObject({ action: z.literal('image'), role: named, container: named, image: z.string() }),
  z.strictObject({ action: z.literal('env'), role: named, container: named, set: edits }),
  z.strictObject({ action: z.literal('resources'), role: named, container: named, requests: edits.optional(), limits: edits.optional() }),
  z.strictObject({ action: z.literal('delete'), propagation: z.enum(['Foreground', 'Background', 'Orphan']) }),
]) satisfies z.ZodType<ActionSpec>;

/** kubectl's `--dry-run`: `client` plans and shows only, `server` also asks the API server, `none` writes. */
export type DryRun = 'client' | 'server' | 'none';

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** What a delete sends, and what goes with the root. */
export interface DeletePlan {
  propagationPolicy: Propagation;
  /** The precondition: the delete is refused when the object has moved on. */
  resourceVersion: string;
  /** What the root owns, by kind, pods last: removed with it, or left behind (orphaned) with `Orphan`. */
  dependents: Array<{ kind: string; count: number }>;
}

export interface ActionPlan {
  cluster: string;
  target: ObjectRef;
  action: ActionName;
  /** What was asked: one spec, or several of one action (`set image` of two containers) sent as one patch. */
  specs: ActionSpec[];
  /** One line for people, the same words in the dashboard and the CLI. */
  summary: string;
  /** JSON patch, starting with the resourceVersion `test` (the precondition); empty for a delete. */
  patch: JsonPatchOp[];
  /** Set for a delete, which is no patch. */
  delete?: DeletePlan;
  /** True when the patch changes nothing (already suspended, the same image). */
  noChange: boolean;
  before: KubeObject;
  /** The root as the change leaves it; null for a delete. */
  after: KubeObject | null;
  /** Unified diff of the root object, as YAML (a delete removes every line). */
  diff: string;
  errors: EngineError[];
  /** Label or annotation values the change replaces (kubectl refuses those without `--overwrite`). */
  replaced: PlannedPatch['replaced'];
}

/** What sends the change: ClusterConnection (or one identity's ClusterClient). */
export interface ObjectWriter {
  patchJson(ref: ObjectRef, ops: unknown[], dryRun: boolean): Promise<KubeObject>;
  deleteObject(ref: ObjectRef, opts: { propagationPolicy: Propagation; resourceVersion?: string; dryRun: boolean }): Promise<unknown>;
}

export interface ActionOutcome {
  result: 'planned' | 'dry-run' | 'applied' | 'unchanged' | 'conflict' | 'refused' | 'invalid';
  message: string;
  /** The diff of what the API server made of it (server dry run or write), when it answered. */
  diff: string;
  /** The plan's summary. */
  summary: string;
}

/** The object as people compare it: no managed fields or last-applied copy, no server bookkeeping. */
function shown(o: KubeObject): KubeObject {
  const { managedFields: _m, resourceVersion: _rv, generation: _g, ...metadata } = (o.metadata ?? {}) as Record<string, unknown>;
  const annotations = metadata.annotations as Record<string, string> | undefined;
  if (annotations && 'kubectl.kubernetes.io/last-applied-configuration' in annotations) {
    const { 'kubectl.kubernetes.io/last-applied-configuration': _l, ...rest } = annotations;
    metadata.annotations = rest;
  }
  return { ...o, metadata: metadata as KubeObject['metadata'] };
}

/** The diff of the root object; `after` null: the object is deleted. */
export function objectDiff(ref: ObjectRef, before: KubeObject, after: KubeObject | null): string {
  const name = `${ref.kind.toLowerCase()}/${ref.name}`;
  const text = (o: KubeObject) => stringify(shown(o), { lineWidth: 0 });
  return createTwoFilesPatch(`${name} (live)`, `${name} (${after ? 'after' : 'deleted'})`, text(before), after ? text(after) : '', undefined, undefined, { context: 3 });
}

/** kubectl's name of an object in its output: `jobset.jobset.x-k8s.io/llama`, `pod/x`. */
export function kubectlName(ref: ObjectRef): string {
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
}

/** The definition that serves a resolved root (the one its tree names). */
function definitionOf(index: WorkloadIndex, cluster: string, r: Resolved): CompiledDefinition | undefined {
  const { name, source } = r.tree.definition;
  if (source === 'none') return undefined;
  return index.definitions.candidatesFor(cluster, groupKindOf(r.object), r.object.apiVersion).find((d) => d.name === name && d.source === source);
}

interface RoleTargets {
  targets: TemplateTarget[];
  /** The tree's roles the targets cover (for the summary's pod count). */
  roles: TreeRole[];
}

/**
 * Which pod templates a role names: a role as `wmap tree` names it (one instance: JobSet `worker`),
 * or a pod-bearing component (all its instances); absent, every pod-bearing component.
 */
function roleTargets(tree: WorkloadTree, def: CompiledDefinition, role: string | undefined): RoleTargets | { error: string } {
  if (role === undefined) return { targets: def.leaves.map((c) => ({ component: c.name })), roles: tree.roles };
  const exact = tree.roles.find((r) => r.name === role);
  if (exact) return { targets: [{ component: exact.component, instance: exact.instance, role: exact.name }], roles: [exact] };
  const component = def.leaves.find((c) => c.name === role);
  if (component) return { targets: [{ component: component.name, role }], roles: tree.roles.filter((r) => r.component === role) };
  // A qualified role name (`leader/head`) also answers to its instance alone, when that is unique.
  const byInstance = tree.roles.filter((r) => r.instance === role);
  if (byInstance.length === 1) return { targets: [{ component: byInstance[0].component, instance: role, role: byInstance[0].name }], roles: byInstance };
  const names = tree.roles.map((r) => r.name);
  const components = def.leaves.map((c) => c.name).filter((c) => !names.includes(c));
  const also = components.length ? `; or a component, for all its instances: ${components.join(', ')}` : '';
  const what = byInstance.length > 1 ? `role "${role}" is ambiguous in` : `no role "${role}" in`;
  return { error: `${what} ${tree.workload.kind} ${tree.workload.name} (roles: ${names.join(', ') || 'none'}${also})` };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function editsText(set: Edits, what: string): string {
  const parts = Object.entries(set).map(([k, v]) => (v === null ? `remove ${what} ${k}` : `${k}=${v}`));
  return parts.join(', ');
}

type TemplateSpec = Exclude<ActionSpec, { action: 'suspend' | 'resume' | 'delete' }>;

/** The changes a pod-template spec asks for, where, and how to say them (after "set image of role worker"). */
function templateChange(spec: TemplateSpec): { role: string | undefined; changes: PodTemplateChanges; words: string; empty: boolean } {
  switch (spec.action) {
    case 'labels':
    case 'annotations':
      return { role: spec.role, changes: { [spec.action]: spec.set }, words: `: ${editsText(spec.set, spec.action === 'labels' ? 'label' : 'annotation')}`, empty: Object.keys(spec.set).length === 0 };
    case 'image':
      return { role: spec.role, changes: { containers: { [spec.container]: { image: spec.image } } }, words: ` container ${spec.container} to ${spec.image}`, empty: false };
    case 'env':
      return { role: spec.role, changes: { containers: { [spec.container]: { env: spec.set } } }, words: ` container ${spec.container}: ${editsText(spec.set, 'variable')}`, empty: Object.keys(spec.set).length === 0 };
    case 'resources': {
      const parts = (['requests', 'limits'] as const).filter((p) => spec[p] && Object.keys(spec[p]!).length > 0).map((p) => `${p} ${editsText(spec[p]!, p === 'requests' ? 'request' : 'limit')}`);
      return { role: spec.role, changes: { containers: { [spec.container]: { resources: { requests: spec.requests, limits: spec.limits } } } }, words: ` container ${spec.container}: ${parts.join('; ')}`, empty: parts.length === 0 };
    }
  }
}

const isResourceVersionTest = (o: JsonPatchOp) => o.op === 'test' && o.path === '/metadata/resourceVersion';

/** The pod templates the targets are, one per instance (component, instance id). */
function templateKeys(tree: WorkloadTree, targets: TemplateTarget[]): string[] {
  return targets.flatMap((t) => (t.instance !== undefined ? [t.instance] : (tree.components.find((c) => c.name === t.component)?.instances ?? []).map((i) => i.id)).map((id) => `${t.component}\u0000${id}`));
}

/**
 * Pod-template specs planned one on the result of the other and sent as one patch with one
 * precondition; the summary counts the pod templates and the pods they are for, and names any role
 * that shares a template with the one asked for.
 */
function planTemplates(def: CompiledDefinition, r: Resolved, specs: TemplateSpec[]): { planned: PlannedPatch; summary: string } | { error: string } {
  let object = r.object;
  const ops: JsonPatchOp[] = [];
  const errors: EngineError[] = [];
  const replaced: PlannedPatch['replaced'] = [];
  const also = new Set<string>();
  const roles = new Map<string, TreeRole>();
  const details: string[] = [];
  const templates = new Set<string>();
  const whose: string[] = [];
  for (const spec of specs) {
    const t = templateChange(spec);
    if (t.empty) return { error: `nothing to change: the ${spec.action} action was given no ${spec.action === 'resources' ? 'requests or limits' : 'keys'}` };
    const where = roleTargets(r.tree, def, t.role);
    if ('error' in where) return where;
    const p = planPodTemplateUpdate(def, object, where.targets, t.changes);
    errors.push(...p.errors);
    ops.push(...p.patch.filter((o) => !isResourceVersionTest(o)));
    replaced.push(...p.replaced);
    object = p.object;
    for (const x of where.roles) roles.set(x.name, x);
    for (const o of p.alsoChanged) also.add(r.tree.roles.find((x) => x.component === o.component && x.instance === o.instance)?.name ?? o.component);
    for (const k of templateKeys(r.tree, where.targets)) templates.add(k);
    whose.push(t.role ? `role ${t.role}` : `every role (${where.roles.map((x) => x.name).join(', ')})`);
    details.push(t.words);
  }
  // One role: named once ("set image of role worker container a to …, container b to …"); several: each change names its own.
  const oneRole = whose.every((x) => x === whose[0]);
  const what = oneRole ? `${whose[0]}${details.join(',')}` : whose.map((x, i) => `${x}${details[i]}`).join(', ');
  const pods = [...roles.values()].reduce((n, x) => n + x.desiredPods, 0);
  const shared = also.size ? `; ${[...also].map((x) => `role ${x}`).join(', ')} ${also.size === 1 ? 'runs the same pod template and changes' : 'run the same pod template and change'} too` : '';
  const summary = `set ${specs[0].action} of ${what} (${plural(templates.size, 'pod template')}, for ${plural(pods, 'pod')})${shared}`;
  if (errors.length) return { planned: { patch: [], object: r.object, errors, replaced: [], alsoChanged: [] }, summary };
  const rv = r.object.metadata?.resourceVersion;
  const patch: JsonPatchOp[] = ops.length && rv ? [{ op: 'test', path: '/metadata/resourceVersion', value: rv }, ...ops] : ops;
  return { planned: { patch, object, errors, replaced, alsoChanged: [] }, summary };
}

/** What the root owns, by kind (pods last, as people count them). */
function dependentsOf(r: Resolved): DeletePlan['dependents'] {
  const counts = new Map<string, number>();
  const uid = r.object.metadata?.uid;
  for (const o of r.owned) {
    if (o.metadata?.uid === uid) continue;
    const kind = String(o.kind ?? '?');
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => Number(a.kind === 'Pod') - Number(b.kind === 'Pod') || a.kind.localeCompare(b.kind));
}

function dependentsText(d: DeletePlan['dependents']): string {
  return d.map((x) => (x.kind === 'Pod' ? plural(x.count, 'pod') : `${x.count} ${x.kind}${x.count === 1 ? '' : /s$/.test(x.kind) ? 'es' : 's'}`)).join(', ');
}

function planDelete(r: Resolved, target: ObjectRef, propagation: Propagation): Pick<ActionPlan, 'delete' | 'summary' | 'errors' | 'diff'> {
  const dependents = dependentsOf(r);
  const rv = r.object.metadata?.resourceVersion ?? '';
  const what = `${target.kind} ${target.namespace ? `${target.namespace}/` : ''}${target.name}`;
  const summary =
    dependents.length === 0
      ? `delete ${what} (it owns nothing)`
      : propagation === 'Orphan'
        ? `delete ${what} only, leaving its ${dependentsText(dependents)} behind (orphaned)`
        : `delete ${what} and its ${dependentsText(dependents)} (${propagation === 'Foreground' ? `foreground: the ${target.kind} goes last` : 'background: the garbage collector removes them after it'})`;
  const errors = rv ? [] : [{ code: 'action.precondition', message: `${what} has no resourceVersion, so a delete could not be made conditional on it`, path: '' }];
  return { delete: { propagationPolicy: propagation, resourceVersion: rv, dependents }, summary, errors, diff: objectDiff(target, r.object, null) };
}

/**
 * Plans an action on the workload whose root has `rootUid`: the patch or delete, the diff, a
 * summary, and errors that name what is wrong. Several specs (of one action) are planned one on the
 * other and sent as one patch.
 */
export function planAction(index: WorkloadIndex, cluster: string, rootUid: string, spec: ActionSpec | ActionSpec[]): ActionPlan | { error: string } {
  const specs = Array.isArray(spec) ? spec : [spec];
  if (specs.length === 0) return { error: 'no action given' };
  const action = specs[0].action;
  if (specs.some((s) => s.action !== action) || (specs.length > 1 && ['suspend', 'resume', 'delete'].includes(action))) return { error: 'several actions are planned together only when they are pod-template changes of one kind' };
  const r = index.resolve(cluster, rootUid);
  if (!r) return { error: `no workload with uid ${rootUid} in cluster ${cluster}` };
  const root = r.object;
  const target: ObjectRef = { apiVersion: root.apiVersion ?? '', kind: root.kind ?? '', namespace: root.metadata?.namespace ?? '', name: root.metadata?.name ?? '' };
  const base = { cluster, target, action, specs, before: root, replaced: [] };
  const first = specs[0];
  // A delete needs no definition: what goes with the root is what it owns.
  if (first.action === 'delete') return { ...base, ...planDelete(r, target, first.propagation), patch: [], noChange: false, after: null };
  const def = definitionOf(index, cluster, r);
  if (!def) return { error: `${target.kind} ${target.name} has no definition, so nothing says how to ${action === 'suspend' || action === 'resume' ? action : `change the ${action} of`} it` };
  let planned: PlannedPatch;
  let summary: string;
  if (first.action === 'suspend' || first.action === 'resume') {
    planned = planSuspend(def, root, first.action);
    summary = `${first.action} ${target.kind} ${target.namespace ? `${target.namespace}/` : ''}${target.name}`;
  } else {
    const t = planTemplates(def, r, specs as TemplateSpec[]);
    if ('error' in t) return t;
    ({ planned, summary } = t);
  }
  // A patch that sets what is already there (suspend a suspended JobSet) changes nothing: not sent.
  const noChange = planned.errors.length === 0 && JSON.stringify(planned.object) === JSON.stringify(root);
  return { ...base, summary, patch: planned.patch, noChange, after: planned.object, diff: objectDiff(target, root, planned.object), errors: planned.errors, replaced: planned.replaced };
}

/**
 * The containers of a role's pod templates, regular ones first (init containers flagged): what a
 * command offers when no container is named.
 */
export function roleContainers(index: WorkloadIndex, cluster: string, rootUid: string, role: string): { containers: Array<{ name: string; init: boolean }> } | { error: string } {
  const r = index.resolve(cluster, rootUid);
  if (!r) return { error: `no workload with uid ${rootUid} in cluster ${cluster}` };
  const def = definitionOf(index, cluster, r);
  if (!def) return { error: `${r.object.kind} ${r.object.metadata?.name} has no definition, so it has no roles` };
  const where = roleTargets(r.tree, def, role);
  if ('error' in where) return where;
  const out: Array<{ name: string; init: boolean }> = [];
  for (const t of where.targets) {
    const found = templateContainers(def, r.object, t);
    if (found.errors.length) return { error: found.errors.map((e) => e.message).join('; ') };
    for (const c of found.containers) if (!out.some((x) => x.name === c.name)) out.push(c);
  }
  return { containers: out.sort((a, b) => Number(a.init) - Number(b.init)) };
}

/**
 * A conflict: 409 (a stale precondition), or the 422 kube-apiserver answers when a JSON patch does not
 * apply — with a generic message that drops which operation failed. Ours are computed from the very
 * object the first operation tests the resourceVersion of, so not applying means it has changed.
 */
function isConflict(e: { status?: number; message?: string }): boolean {
  return e.status === 409 || (e.status === 422 && /\/metadata\/resourceVersion|rejected our request due to an error in our request/.test(e.message ?? ''));
}

/** How an outcome names the object and what happened to it: kubectl's words (`… labeled`), suspend's own. */
function words(plan: ActionPlan): { object: string; done: string; unchanged: string; planned: string } {
  const object = `${plan.target.kind} ${plan.target.namespace ? `${plan.target.namespace}/` : ''}${plan.target.name}`;
  if (plan.action === 'suspend' || plan.action === 'resume') {
    const done = plan.action === 'suspend' ? 'suspended' : 'resumed';
    return { object, done: `${object} ${done}`, unchanged: `${object} is already ${plan.action === 'suspend' ? 'suspended' : 'running (not suspended)'}`, planned: `${object} would be ${done} (client dry run: not sent)` };
  }
  const name = kubectlName(plan.target);
  const onlyRemoves = plan.specs.every((s) => s.action === 'labels' && Object.values(s.set).every((v) => v === null));
  const verb = { labels: onlyRemoves ? 'unlabeled' : 'labeled', annotations: 'annotated', image: 'image updated', env: 'env updated', resources: 'resource requirements updated', delete: 'deleted' }[plan.action];
  return { object, done: `${name} ${verb}`, unchanged: plan.action === 'labels' ? `${name} not labeled` : `${name} unchanged`, planned: `${name} ${verb} (dry run)` };
}

/** Sends the plan once: a dry run or the write; the server's answer as a diff. */
async function send(plan: ActionPlan, writer: ObjectWriter, dryRun: boolean): Promise<string> {
  if (plan.delete) {
    await writer.deleteObject(plan.target, { propagationPolicy: plan.delete.propagationPolicy, resourceVersion: plan.delete.resourceVersion || undefined, dryRun });
    return plan.diff;
  }
  return objectDiff(plan.target, plan.before, await writer.patchJson(plan.target, plan.patch, dryRun));
}

/**
 * Runs a plan: nothing more with `client`; a server dry run with `server`; with `none` the dry run
 * first, then the write. `who` names the identity for the audit log (a user and how they signed in,
 * in shared mode).
 */
export async function runAction(plan: ActionPlan, writer: ObjectWriter, dryRun: DryRun, who: string | { user: string; via: string }): Promise<ActionOutcome> {
  const w = words(plan);
  const sent = plan.delete ? { delete: { propagationPolicy: plan.delete.propagationPolicy, resourceVersion: plan.delete.resourceVersion } } : { patch: plan.patch };
  const identity = typeof who === 'string' ? { who, via: 'cli' } : { who: who.user, via: who.via };
  const record = (o: Omit<ActionOutcome, 'summary'>): ActionOutcome => {
    recordAudit({ ...identity, cluster: plan.cluster, action: plan.action, object: plan.target, summary: plan.summary, sent, dryRun, result: o.result, message: o.message });
    return { ...o, summary: plan.summary };
  };
  if (plan.errors.length > 0) return record({ result: 'invalid', message: plan.errors.map((e) => e.message).join('; '), diff: '' });
  if (plan.noChange) return record({ result: 'unchanged', message: w.unchanged, diff: '' });
  if (dryRun === 'client') return record({ result: 'planned', message: w.planned, diff: plan.diff });
  for (const dry of dryRun === 'server' ? [true] : [true, false]) {
    try {
      const diff = await send(plan, writer, dry);
      if (dry && dryRun === 'server') return record({ result: 'dry-run', message: `${w.done} (server dry run)`, diff });
      if (!dry) return record({ result: 'applied', message: w.done, diff });
    } catch (e) {
      const err = e as { status?: number; message?: string };
      if (isConflict(err)) return record({ result: 'conflict', message: `${w.object} changed since you looked (resourceVersion ${String(plan.before.metadata?.resourceVersion ?? '?')}): look at the new diff and try again`, diff: '' });
      return record({ result: 'refused', message: `${dry ? 'the server dry run' : 'the API server'} refused: ${err.message ?? String(e)}`, diff: '' });
    }
  }
  return record({ result: 'refused', message: 'nothing was sent', diff: '' });
}
