/**
 * `wmap suspend|resume KIND/NAME [--dry-run=client|server|none]`: the write path from the command
 * line, with kubectl's habits. The diff of the root object is printed first (as `kubectl diff` does);
 * `client` stops there, `server` asks the API server (admission included) without persisting, and the
 * default dry-runs on the server and then writes with a resourceVersion precondition. A workload that
 * changed meanwhile is a conflict: the command says so, shows the new diff, and writes nothing.
 */
import { planAction, runAction, type ActionKind, type DryRun } from '../workloads/actions.ts';
import { connectOnce, findResolved, type LiveFlags } from './live-commands.ts';
import { UsageError, type Io } from './offline.ts';

export function dryRunOf(v: string | boolean | undefined): DryRun {
  if (v === undefined || v === false) return 'none';
  if (v === true) return 'client';
  if (v === 'client' || v === 'server' || v === 'none') return v;
  throw new UsageError(`--dry-run must be "none", "server" or "client", got "${v}"`);
}

const OK = new Set(['applied', 'dry-run', 'planned', 'unchanged']);

export async function cmdAction(action: ActionKind, ref: string, flags: LiveFlags & { dryRun?: string | boolean }, io: Io): Promise<number> {
  const dryRun = dryRunOf(flags.dryRun);
  const { live, cluster, namespace } = await connectOnce(flags);
  try {
    const uid = findResolved(live, cluster, namespace, ref).object.metadata?.uid ?? '';
    const plan = planAction(live.index, cluster, uid, action);
    if ('error' in plan) throw new UsageError(plan.error);
    const writer = live.connection(cluster);
    if (!writer) throw new UsageError(`cluster ${cluster} is not connected`);
    if (!plan.noChange && plan.errors.length === 0) io.out(plan.diff.trimEnd());
    const outcome = await runAction(plan, writer, dryRun, `kubeconfig context ${cluster}`);
    if (outcome.result === 'conflict') {
      // The watch brings the newer object (within a few seconds): show what the change would do to it now.
      const seen = plan.before.metadata?.resourceVersion;
      let fresh = planAction(live.index, cluster, uid, action);
      for (let i = 0; i < 50 && !('error' in fresh) && fresh.before.metadata?.resourceVersion === seen; i++) {
        await new Promise((r) => setTimeout(r, 100));
        live.index.flush();
        fresh = planAction(live.index, cluster, uid, action);
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
