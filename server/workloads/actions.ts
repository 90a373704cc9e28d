/**
 * The write path for acting on a workload: plan the change from its definition (suspend / resume
 * through `suspendDefinition`), show it as a diff of the root object, check it with a server-side dry
 * run, then send it with a `resourceVersion` precondition (a JSON patch `test`), so a workload that
 * changed since it was looked at is not overwritten: the conflict says so. Every attempt, accepted or
 * refused, is written to the audit log. Sent with the caller's writer: in local mode, the kubeconfig's
 * own identity (the user's).
 */
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import { planSuspend, type CompiledDefinition, type EngineError, type JsonPatchOp, type KubeObject } from '../engine/index.ts';
import { logger } from '../log/index.ts';
import { groupKindOf } from './group-kind.ts';
import type { WorkloadIndex } from './workload-index.ts';

export type ActionKind = 'suspend' | 'resume';
/** kubectl's `--dry-run`: `client` plans and shows only, `server` also asks the API server, `none` writes. */
export type DryRun = 'client' | 'server' | 'none';

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface ActionPlan {
  cluster: string;
  target: ObjectRef;
  action: ActionKind;
  /** JSON patch, starting with the resourceVersion `test` (the precondition). */
  patch: JsonPatchOp[];
  /** True when the patch changes nothing (already suspended). */
  noChange: boolean;
  before: KubeObject;
  after: KubeObject;
  /** Unified diff of the root object, as YAML. */
  diff: string;
  errors: EngineError[];
}

/** What sends the patch: ClusterConnection.patchJson. */
export interface ObjectWriter {
  patchJson(ref: ObjectRef, ops: unknown[], dryRun: boolean): Promise<KubeObject>;
}

export interface ActionOutcome {
  result: 'planned' | 'dry-run' | 'applied' | 'unchanged' | 'conflict' | 'refused' | 'invalid';
  message: string;
  /** The diff of what the API server made of it (server dry run or write), when it answered. */
  diff: string;
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

export function objectDiff(ref: ObjectRef, before: KubeObject, after: KubeObject): string {
  const name = `${ref.kind.toLowerCase()}/${ref.name}`;
  return createTwoFilesPatch(`${name} (live)`, `${name} (after)`, stringify(shown(before), { lineWidth: 0 }), stringify(shown(after), { lineWidth: 0 }), undefined, undefined, { context: 3 });
}

/** The definition that serves a resolved root (the one its tree names). */
function definitionOf(index: WorkloadIndex, cluster: string, root: KubeObject, name: string, source: string): CompiledDefinition | undefined {
  return index.definitions.candidatesFor(cluster, groupKindOf(root), root.apiVersion).find((d) => d.name === name && d.source === source);
}

export function planAction(index: WorkloadIndex, cluster: string, rootUid: string, action: ActionKind): ActionPlan | { error: string } {
  const r = index.resolve(cluster, rootUid);
  if (!r) return { error: `no workload with uid ${rootUid} in cluster ${cluster}` };
  const root = r.object;
  const target: ObjectRef = { apiVersion: root.apiVersion ?? '', kind: root.kind ?? '', namespace: root.metadata?.namespace ?? '', name: root.metadata?.name ?? '' };
  const def = r.tree.definition.source === 'none' ? undefined : definitionOf(index, cluster, root, r.tree.definition.name, r.tree.definition.source);
  if (!def) return { error: `${target.kind} ${target.name} has no definition, so nothing says how to ${action} it` };
  const planned = planSuspend(def, root, action);
  // A patch that sets what is already there (suspend a suspended JobSet) changes nothing: not sent.
  const noChange = planned.errors.length === 0 && JSON.stringify(planned.object) === JSON.stringify(root);
  return { cluster, target, action, patch: planned.patch, noChange, before: root, after: planned.object, diff: objectDiff(target, root, planned.object), errors: planned.errors };
}

/** The audit log: a record per attempt whatever the log level, since who changed what must not depend on it. */
function audit(): ReturnType<typeof logger> {
  const l = logger('audit');
  if (!l.isLevelEnabled('info')) l.level = 'info';
  return l;
}

function isConflict(e: { status?: number; message?: string }): boolean {
  return e.status === 409 || (e.status === 422 && /\/metadata\/resourceVersion/.test(e.message ?? ''));
}

/**
 * Runs a plan: nothing more with `client`; a server dry run with `server`; with `none` the dry run
 * first, then the write. `who` names the identity for the audit log.
 */
export async function runAction(plan: ActionPlan, writer: ObjectWriter, dryRun: DryRun, who: string): Promise<ActionOutcome> {
  const object = `${plan.target.kind} ${plan.target.namespace ? `${plan.target.namespace}/` : ''}${plan.target.name}`;
  const record = (o: ActionOutcome): ActionOutcome => {
    audit().info({ who, cluster: plan.cluster, action: plan.action, object, apiVersion: plan.target.apiVersion, patch: plan.patch, dryRun, result: o.result, message: o.message }, `${plan.action} ${object}: ${o.result}`);
    return o;
  };
  if (plan.errors.length > 0) return record({ result: 'invalid', message: plan.errors.map((e) => e.message).join('; '), diff: '' });
  if (plan.noChange) return record({ result: 'unchanged', message: `${object} is already ${plan.action === 'suspend' ? 'suspended' : 'running (not suspended)'}`, diff: '' });
  if (dryRun === 'client') return record({ result: 'planned', message: `${object} would be ${plan.action === 'suspend' ? 'suspended' : 'resumed'} (client dry run: not sent)`, diff: plan.diff });
  for (const dry of dryRun === 'server' ? [true] : [true, false]) {
    try {
      const answer = await writer.patchJson(plan.target, plan.patch, dry);
      const diff = objectDiff(plan.target, plan.before, answer);
      if (dry && dryRun === 'server') return record({ result: 'dry-run', message: `${object} ${plan.action === 'suspend' ? 'suspended' : 'resumed'} (server dry run)`, diff });
      if (!dry) return record({ result: 'applied', message: `${object} ${plan.action === 'suspend' ? 'suspended' : 'resumed'}`, diff });
    } catch (e) {
      const err = e as { status?: number; message?: string };
      if (isConflict(err)) return record({ result: 'conflict', message: `${object} changed since you looked (resourceVersion ${String(plan.before.metadata?.resourceVersion ?? '?')}): look at the new diff and try again`, diff: '' });
      return record({ result: 'refused', message: `${dry ? 'the server dry run' : 'the API server'} refused: ${err.message ?? String(e)}`, diff: '' });
    }
  }
  return record({ result: 'refused', message: 'nothing was sent', diff: '' });
}
