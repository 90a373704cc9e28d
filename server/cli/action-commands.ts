/**
 * The write commands, with kubectl's habits: `wmap suspend|resume`, `label`, `annotate`, `set image`,
 * `set env`, `set resources` and `delete`, each on a workload named KIND/NAME and taking
 * `--dry-run=client|server|none`. The diff of the root object is printed first (as `kubectl diff`
 * does), then the plan's summary; `client` stops there, `server` asks the API server (admission
 * included) without persisting, and the default dry-runs on the server and then writes with a
 * resourceVersion precondition. A workload that changed meanwhile is a conflict: the command says
 * so, shows the new diff, and writes nothing. Labels, annotations and container changes go to the
 * pod templates of the definition's roles (`--role`, as `wmap tree` names them), not to the root's
 * own metadata. Exit 0 when done (or nothing to do), 1 on any error.
 */
import { planAction, roleContainers, runAction, type ActionPlan, type ActionSpec, type DryRun, type Propagation } from '../workloads/actions.ts';
import type { LiveWorkloads } from '../workloads/index.ts';
import { connectOnce, findResolved, type LiveFlags } from './live-commands.ts';
import { UsageError, type Io } from './offline.ts';

export function dryRunOf(v: string | boolean | undefined): DryRun {
  if (v === undefined || v === false) return 'none';
  if (v === true) return 'client';
  if (v === 'client' || v === 'server' || v === 'none') return v;
  throw new UsageError(`--dry-run must be "none", "server" or "client", got "${v}"`);
}

export type WriteFlags = LiveFlags & { dryRun?: string | boolean };

const OK = new Set(['applied', 'dry-run', 'planned', 'unchanged']);

/** What a command knows once connected: enough to ask which containers a role has. */
interface Found {
  live: LiveWorkloads;
  cluster: string;
  uid: string;
}

/**
 * Connects, plans the specs (built once the workload is found), prints the diff and summary, runs
 * the plan, and after a conflict shows what the change would do to the workload as it is now.
 */
async function act(ref: string, flags: WriteFlags, io: Io, specsOf: (f: Found) => ActionSpec[], check?: (plan: ActionPlan) => void): Promise<number> {
  const dryRun = dryRunOf(flags.dryRun);
  const { live, cluster, namespace } = await connectOnce(flags);
  try {
    const uid = findResolved(live, cluster, namespace, ref).object.metadata?.uid ?? '';
    const specs = specsOf({ live, cluster, uid });
    const plan = planAction(live.index, cluster, uid, specs);
    if ('error' in plan) throw new UsageError(plan.error);
    check?.(plan);
    const writer = live.connection(cluster);
    if (!writer) throw new UsageError(`cluster ${cluster} is not connected`);
    if (!plan.noChange && plan.errors.length === 0) {
      io.out(plan.diff.trimEnd());
      io.out(plan.summary);
    }
    const outcome = await runAction(plan, writer, dryRun, `kubeconfig context ${cluster}`);
    if (outcome.result === 'conflict') {
      // The watch brings the newer object (within a few seconds): show what the change would do to it now.
      const seen = plan.before.metadata?.resourceVersion;
      let fresh = planAction(live.index, cluster, uid, specs);
      for (let i = 0; i < 50 && !('error' in fresh) && fresh.before.metadata?.resourceVersion === seen; i++) {
        await new Promise((r) => setTimeout(r, 100));
        live.index.flush();
        fresh = planAction(live.index, cluster, uid, specs);
      }
      if (!('error' in fresh) && !fresh.noChange) io.out(`\nThe workload as it is now (nothing was changed):\n${fresh.diff.trimEnd()}`);
    }
    if (OK.has(outcome.result)) io.out(outcome.message);
    else io.err(`error: ${outcome.message}`);
    return OK.has(outcome.result) ? 0 : 1;
  } finally {
    live.stop();
  }
}

export function cmdAction(action: 'suspend' | 'resume', ref: string, flags: WriteFlags, io: Io): Promise<number> {
  return act(ref, flags, io, () => [{ action }]);
}

/**
 * `KEY=VALUE` sets, `KEY-` removes (kubectl's label / annotate / set env syntax); a value may hold
 * `=`. `what` names the arguments in errors.
 */
export function parseEdits(args: string[], what: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const a of args) {
    const eq = a.indexOf('=');
    const remove = eq < 0 && a.endsWith('-') && a.length > 1;
    if (!remove && eq <= 0) throw new UsageError(`"${a}" is not a valid ${what} change: use KEY=VALUE to set it or KEY- to remove it`);
    const key = remove ? a.slice(0, -1) : a.slice(0, eq);
    const value = remove ? null : a.slice(eq + 1);
    if (key in out && (out[key] === null) !== (value === null)) throw new UsageError(`can not both modify and remove ${what} "${key}" in the same command`);
    out[key] = value;
  }
  if (Object.keys(out).length === 0) throw new UsageError(`at least one ${what} update is required`);
  return out;
}

export type LabelFlags = WriteFlags & { role?: string; overwrite?: boolean };

/** `wmap label|annotate KIND/NAME [--role R] key=value key2- [--overwrite]`: on the pod templates of the role (every role without --role). */
export function cmdLabel(action: 'labels' | 'annotations', ref: string, changes: string[], flags: LabelFlags, io: Io): Promise<number> {
  const set = parseEdits(changes, action === 'labels' ? 'label' : 'annotation');
  return act(ref, flags, io, () => [{ action, set, ...(flags.role ? { role: flags.role } : {}) }], (plan) => {
    // kubectl's rule: changing a value that is there needs --overwrite (setting the same value does not).
    if (flags.overwrite || plan.replaced.length === 0) return;
    throw new UsageError(plan.replaced.map((r) => `'${r.key}' already has a value (${r.from}), and --overwrite is false`).join('; '));
  });
}

export type ContainerFlags = WriteFlags & { role: string; container?: string };

/** The containers of the role, regular ones (what `-c` may be left out for, and what `*` stands for). */
function regularContainers(f: Found, role: string): string[] {
  const found = roleContainers(f.live.index, f.cluster, f.uid, role);
  if ('error' in found) throw new UsageError(found.error);
  return found.containers.filter((c) => !c.init).map((c) => c.name);
}

/** `-c NAME`, or the role's only container. */
function containerOf(f: Found, flags: ContainerFlags): string {
  if (flags.container) return flags.container;
  const names = regularContainers(f, flags.role);
  if (names.length === 1) return names[0];
  throw new UsageError(names.length === 0 ? `role ${flags.role} has no containers` : `role ${flags.role} has ${names.length} containers (${names.join(', ')}): name one with -c`);
}

/** `wmap set image KIND/NAME --role R CONTAINER=IMAGE…` (`*=IMAGE`: every container of the role): one patch for all. */
export function cmdSetImage(ref: string, pairs: string[], flags: ContainerFlags, io: Io): Promise<number> {
  const images = parseEdits(pairs, 'image');
  for (const [c, image] of Object.entries(images)) if (image === null || image === '') throw new UsageError(`"${c}${image === null ? '-' : '='}" names no image: use CONTAINER=IMAGE`);
  return act(ref, flags, io, (f) =>
    Object.entries(images).flatMap(([container, image]) =>
      (container === '*' ? regularContainers(f, flags.role) : [container]).map((c): ActionSpec => ({ action: 'image', role: flags.role, container: c, image: image! })),
    ),
  );
}

/** `wmap set env KIND/NAME --role R [-c CONTAINER] KEY=VAL KEY2-`. */
export function cmdSetEnv(ref: string, changes: string[], flags: ContainerFlags, io: Io): Promise<number> {
  const set = parseEdits(changes, 'environment variable');
  return act(ref, flags, io, (f) => [{ action: 'env', role: flags.role, container: containerOf(f, flags), set }]);
}

export type ResourceFlags = ContainerFlags & { requests?: string; limits?: string };

/** `cpu=1,memory=2Gi` (and `cpu-` to remove one), as kubectl's --requests / --limits. */
function quantities(list: string | undefined, flag: string): Record<string, string | null> | undefined {
  if (list === undefined) return undefined;
  return parseEdits(list.split(',').map((s) => s.trim()).filter(Boolean), `--${flag}`);
}

/** `wmap set resources KIND/NAME --role R [-c CONTAINER] --requests=cpu=1,memory=2Gi --limits=nvidia.com/gpu=2`. */
export function cmdSetResources(ref: string, flags: ResourceFlags, io: Io): Promise<number> {
  const requests = quantities(flags.requests, 'requests');
  const limits = quantities(flags.limits, 'limits');
  if (!requests && !limits) throw new UsageError('set resources needs --requests or --limits (e.g. --limits=nvidia.com/gpu=2)');
  return act(ref, flags, io, (f) => [{ action: 'resources', role: flags.role, container: containerOf(f, flags), ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) }]);
}

/** kubectl's --cascade: background (the default), foreground, orphan; the old true / false too. */
export function cascadeOf(v: string | undefined): Propagation {
  const m: Record<string, Propagation> = { background: 'Background', true: 'Background', foreground: 'Foreground', orphan: 'Orphan', false: 'Orphan' };
  const p = m[(v ?? 'background').toLowerCase()];
  if (!p) throw new UsageError(`--cascade must be "background", "foreground" or "orphan", got "${v}"`);
  return p;
}

/** `wmap delete KIND/NAME [--cascade=background|foreground|orphan]`: the root, with a resourceVersion precondition. */
export function cmdDelete(ref: string, flags: WriteFlags & { cascade?: string }, io: Io): Promise<number> {
  const propagation = cascadeOf(flags.cascade);
  return act(ref, flags, io, () => [{ action: 'delete', propagation }]);
}
