/**
 * The dashboard's write path over actions.ts: what a user is offered on a workload (each action
 * checked with an access review for its verb on that object, and against the server's write
 * setting), a preview (the plan's diff, then the API server's dry run as the user), and the write
 * itself, refused as "changed since you looked" when the workload moved on from the version the
 * preview showed. Every write attempt, refused ones included, is audited.
 */
import { createHash } from 'node:crypto';
import type { ActionAnswer, ActionsOffer, OfferedAction, PlanView } from '../../contract/index.ts';
import { planAction, roleContainers, runAction, type ActionPlan, type ActionSpec, type ObjectWriter } from './actions.ts';
import { recordAudit } from './audit-trail.ts';
import type { KubeObject } from '../engine/index.ts';
import type { WorkloadIndex } from './workload-index.ts';

export interface ActingUser {
  user: string;
  via: string;
}

export interface ActionContext {
  index: WorkloadIndex;
  cluster: string;
  rootUid: string;
  /** Sends as the user (their token, or impersonation from the server's account). */
  writer: ObjectWriter;
  who: ActingUser;
  writes: { enabled: boolean; reason: string | null };
  /** An access review of `verb` on the root object, for the user. */
  may(verb: 'patch' | 'delete'): Promise<{ allowed: boolean; reason: string }>;
}

const TEMPLATE_ACTIONS = ['labels', 'annotations', 'image', 'env', 'resources'] as const;

/**
 * What a preview showed of the root, as a digest: everything but its status and the API server's
 * bookkeeping. Controllers write status all the time (each write a new resourceVersion); a workload
 * whose spec and metadata are still what the user previewed has not "changed since they looked".
 */
export function previewFingerprint(o: KubeObject): string {
  const { status: _s, ...rest } = o as KubeObject & { status?: unknown };
  const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...metadata } = (o.metadata ?? {}) as Record<string, unknown>;
  return createHash('sha256').update(JSON.stringify({ ...rest, metadata })).digest('base64url');
}

export function planView(p: ActionPlan): PlanView {
  return {
    fingerprint: previewFingerprint(p.before),
    summary: p.summary,
    diff: p.diff,
    patch: p.patch,
    delete: p.delete ? { propagationPolicy: p.delete.propagationPolicy, resourceVersion: p.delete.resourceVersion, dependents: p.delete.dependents } : null,
    noChange: p.noChange,
    errors: p.errors.map((e) => ({ code: e.code, message: e.message, path: e.path })),
    resourceVersion: String(p.before.metadata?.resourceVersion ?? ''),
  };
}

/** What the workload page offers, each action available or disabled with the reason. */
export async function offeredActions(ctx: ActionContext): Promise<ActionsOffer | { error: string }> {
  const r = ctx.index.resolve(ctx.cluster, ctx.rootUid);
  if (!r) return { error: 'the workload is gone' };
  const [patch, del] = await Promise.all([ctx.may('patch'), ctx.may('delete')]);
  const off = (why: string | null) => (ctx.writes.enabled ? why : ctx.writes.reason);
  const actions: OfferedAction[] = [];
  // Resume is offered for a suspended workload, suspend for one that is not (an unset flag "resumed" is no change people asked for).
  const suspended = r.tree.status.matched.some((s) => s === 'Suspended' || s === 'Suspending');
  for (const action of ['suspend', 'resume'] as const) {
    const p = planAction(ctx.index, ctx.cluster, ctx.rootUid, { action });
    const state = action === 'suspend' ? (suspended ? 'already suspended' : null) : suspended ? null : 'not suspended';
    const why = 'error' in p ? p.error : p.errors.length ? p.errors.map((e) => e.message).join('; ') : (state ?? (p.noChange ? (action === 'suspend' ? 'already suspended' : 'not suspended') : patch.allowed ? null : patch.reason));
    actions.push({ action, available: ctx.writes.enabled && why === null, reason: off(why) });
  }
  // Roles as `wmap tree` names them (a JobSet's leader and worker), each with its template's containers.
  const roles = r.tree.roles.flatMap((role) => {
    const found = roleContainers(ctx.index, ctx.cluster, ctx.rootUid, role.name);
    return 'error' in found ? [] : [{ name: role.name, containers: found.containers }];
  });
  const noDefinition = r.tree.definition.source === 'none' ? `${r.object.kind} ${r.object.metadata?.name} has no definition, so nothing says where its pod templates are` : null;
  for (const action of TEMPLATE_ACTIONS) {
    const why = noDefinition ?? (roles.length === 0 ? 'no role has a pod template' : patch.allowed ? null : patch.reason);
    actions.push({ action, available: ctx.writes.enabled && why === null, reason: off(why) });
  }
  actions.push({ action: 'delete', available: ctx.writes.enabled && del.allowed, reason: off(del.allowed ? null : del.reason) });
  return { user: ctx.who.user, writes: ctx.writes, resourceVersion: String(r.object.metadata?.resourceVersion ?? ''), actions, roles };
}

function audited(ctx: ActionContext, plan: ActionPlan | null, specs: ActionSpec[], dryRun: string, result: ActionAnswer['result'], message: string): void {
  const root = plan?.before ?? ctx.index.resolve(ctx.cluster, ctx.rootUid)?.object;
  recordAudit({
    who: ctx.who.user,
    via: ctx.who.via,
    cluster: ctx.cluster,
    action: specs[0]?.action ?? '?',
    object: { apiVersion: root?.apiVersion ?? '', kind: root?.kind ?? '', namespace: root?.metadata?.namespace ?? '', name: root?.metadata?.name ?? '' },
    summary: plan?.summary ?? '',
    sent: plan ? (plan.delete ? { delete: { propagationPolicy: plan.delete.propagationPolicy, resourceVersion: plan.delete.resourceVersion } } : { patch: plan.patch }) : null,
    dryRun,
    result,
    message,
  });
}

/**
 * `mode` preview: the plan, then the API server's dry run as the user (when writes are on and the
 * user may). `apply`: the write of what the user previewed (`seen`: its resourceVersion and
 * fingerprint), with a resourceVersion precondition.
 */
export async function runWorkloadAction(ctx: ActionContext, specs: ActionSpec[], mode: 'preview' | 'apply', seen: { resourceVersion?: string; fingerprint?: string } = {}): Promise<ActionAnswer> {
  const planned = planAction(ctx.index, ctx.cluster, ctx.rootUid, specs);
  if ('error' in planned) {
    if (mode === 'apply') audited(ctx, null, specs, 'none', 'invalid', planned.error);
    return { plan: null, result: 'invalid', message: planned.error, diff: '' };
  }
  const view = planView(planned);
  const dryRun = mode === 'preview' ? 'server' : 'none';
  const refuse = (result: ActionAnswer['result'], message: string): ActionAnswer => {
    if (mode === 'apply') audited(ctx, planned, specs, dryRun, result, message);
    return { plan: view, result, message, diff: '' };
  };
  if (!ctx.writes.enabled) return refuse('disabled', ctx.writes.reason ?? 'writes are off');
  const verb = planned.delete ? 'delete' : 'patch';
  const allowed = await ctx.may(verb);
  if (!allowed.allowed) return refuse('forbidden', allowed.reason);
  // The user previewed a version: a newer one whose spec and metadata are unchanged (a status write) is
  // the same workload to them, and the write goes with the newer resourceVersion as its precondition.
  const moved = seen.resourceVersion !== undefined && seen.resourceVersion !== view.resourceVersion;
  if (mode === 'apply' && moved && seen.fingerprint !== view.fingerprint) {
    return refuse('conflict', `${planned.target.kind} ${planned.target.name} changed since you looked (you saw resourceVersion ${seen.resourceVersion}, it is now ${view.resourceVersion}): review the new diff and apply again`);
  }
  let outcome = await runAction(planned, ctx.writer, dryRun, ctx.who);
  // The cluster had a newer version than the index (a status write a moment ago): once the index has
  // it, and if its spec and metadata are still what the user previewed, the write is tried once more.
  if (mode === 'apply' && outcome.result === 'conflict') {
    const again = await replanned(ctx, specs, view.resourceVersion);
    if (again && previewFingerprint(again.before) === (seen.fingerprint ?? view.fingerprint)) {
      outcome = await runAction(again, ctx.writer, dryRun, ctx.who);
      return { plan: planView(again), result: outcome.result, message: outcome.message, diff: outcome.diff };
    }
  }
  return { plan: view, result: outcome.result, message: outcome.message, diff: outcome.diff };
}

/** The plan again once the index holds a version other than `stale` (within two seconds), else null. */
async function replanned(ctx: ActionContext, specs: ActionSpec[], stale: string): Promise<ActionPlan | null> {
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 100));
    ctx.index.flush();
    const p = planAction(ctx.index, ctx.cluster, ctx.rootUid, specs);
    if ('error' in p) return null;
    if (String(p.before.metadata?.resourceVersion ?? '') !== stale) return p;
  }
  return null;
}
