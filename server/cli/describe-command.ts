/** `wmap describe KIND/NAME` (live) and `wmap describe -f FILE` (no cluster): see describe.ts. */
import { isPod } from '../engine/index.ts';
import { eventsAbout } from '../workloads/pod-inspect.ts';
import { describeText } from './describe.ts';
import { connectOnce, findResolved, type LiveFlags } from './live-commands.ts';
import { resolveFile, UsageError, type Io } from './offline.ts';

export async function cmdDescribe(ref: string | undefined, flags: LiveFlags & { filename?: string; definition?: string; gpuResourceList?: readonly string[] }, io: Io): Promise<number> {
  const now = Date.now();
  if (flags.filename) {
    if (ref) throw new UsageError('describe: give either KIND/NAME or -f FILE, not both');
    const { tree, root, objects } = resolveFile(flags.filename, flags.definition, flags.gpuResourceList);
    io.out(describeText({ tree, root, pods: objects.filter(isPod), events: null, live: false, now }));
    return tree.errors.length === 0 ? 0 : 1;
  }
  if (!ref) throw new UsageError('describe: name a workload as KIND/NAME, or a file with -f');
  const { live, cluster, namespace } = await connectOnce(flags);
  try {
    const r = findResolved(live, cluster, namespace, ref);
    const pods = isPod(r.object) ? [r.object] : r.owned.filter(isPod);
    const reader = live.reader(cluster);
    const uids = new Set([r.object.metadata?.uid ?? '', ...r.owned.map((o) => o.metadata?.uid ?? '')].filter(Boolean));
    const events = reader ? await eventsAbout(reader, r.tree.workload.namespace, uids, now) : null;
    io.out(describeText({ tree: r.tree, root: r.object, pods, events, live: true, now }));
    for (const e of r.tree.errors) io.err(`error: ${e.message}`);
    return r.tree.errors.length === 0 ? 0 : 1;
  } finally {
    live.stop();
  }
}
