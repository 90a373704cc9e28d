/**
 * The dashboard's write path over actions.ts: what a user is offered on a workload (each action
 * checked with an access review for its verb on that object, and against the server's write
 * setting), a preview (the plan's diff, then the API server's dry run as the user), and the write
 * itself, refused as "changed since you looked" when the workload moved on from the version the
 * preview showed. Every write attempt, refused ones included, is audited.
 */
import type { ActionAnswer, ActionsOffer, OfferedAction, PlanView } from '../../contract/index.ts';
import { planAction, roleContainers, runAction, type ActionPlan, type ActionSpec, type ObjectWriter } from './actions.ts';
import { recordAudit } from './audit-trail.ts';
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

export function planView(p: ActionPlan): PlanView {
  return {
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
 * user may). `apply`: the write, with `resourceVersion` — the version the user previewed — as its
 * precondition.
 */
export async function runWorkloadAction(ctx: ActionContext, specs: ActionSpec[], mode: 'preview' | 'apply', resourceVersion?: string): Promise<ActionAnswer> {
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
  if (mode === 'apply' && resourceVersion !== undefined && resourceVersion !== view.resourceVersion) {
    return refuse('conflict', `${planned.target.kind} ${planned.target.name} changed since you looked (you saw resourceVersion ${resourceVersion}, it is now ${view.resourceVersion}): review the new diff and apply again`);
  }
  const outcome = await runAction(planned, ctx.writer, dryRun, ctx.who);
  return { plan: view, result: outcome.result, message: outcome.message, diff: outcome.diff };
}
