/**
 * `wmap describe KIND/NAME` (or `KIND NAME`, or `KIND -l SELECTOR`: every workload of the kind, one
 * after another as kubectl describes several) and `wmap describe -f FILE` (no cluster): see describe.ts.
 */
import { isPod } from '../engine/index.ts';
import { eventsAbout } from '../workloads/pod-inspect.ts';
import { describeText } from './describe.ts';
import { gpuPatterns } from './live-commands.ts';
import { resolveFile } from './offline.ts';
import { UsageError, type Io } from './errors.ts';
import { rowFilterOf, warnFailures, type GetFlags } from './get-command.ts';
import { readSnapshot } from './snapshot.ts';
import { selectWorkloads, workloadScope } from './tree-command.ts';

export async function cmdDescribe(ref: string | undefined, name: string | undefined, flags: GetFlags & { filename?: string; definition?: string; gpuResourceList?: readonly string[] }, io: Io): Promise<number> {
  const now = Date.now();
  if (flags.filename) {
    if (ref) throw new UsageError('describe: give either KIND/NAME or -f FILE, not both');
    const { tree, root, objects } = resolveFile(flags.filename, flags.definition, flags.gpuResourceList);
    io.out(describeText({ tree, root, pods: objects.filter(isPod), events: null, live: false, now }));
    return tree.errors.length === 0 ? 0 : 1;
  }
  if (!ref) throw new UsageError('describe: name a workload as KIND/NAME, or a file with -f');
  rowFilterOf(flags);
  const scope = workloadScope(ref, name, flags);
  const snap = await readSnapshot({ ...flags, gpuResources: gpuPatterns(flags.gpuResources) }, scope);
  try {
    for (const n of snap.notes) io.err(`warning: ${n}`);
    warnFailures(snap, io);
    const found = selectWorkloads(snap, scope, flags);
    if (found.length === 0) {
      io.err(snap.allNamespaces ? `No ${ref} workloads found.` : `No ${ref} workloads found in ${snap.namespace} namespace.`);
      return 0;
    }
    let code = 0;
    const pages: string[] = [];
    for (const r of found) {
      const pods = isPod(r.object) ? [r.object] : r.owned.filter(isPod);
      const uids = new Set([r.object.metadata?.uid ?? '', ...r.owned.map((o) => o.metadata?.uid ?? '')].filter(Boolean));
      const events = await eventsAbout(snap.reader, r.tree.workload.namespace, uids, now);
      pages.push(describeText({ tree: r.tree, root: r.object, pods, events, live: true, now }));
      for (const e of r.tree.errors) io.err(`error: ${e.message}`);
      if (r.tree.errors.length > 0) code = 1;
    }
    // kubectl separates described objects by a blank line.
    io.out(pages.join('\n\n'));
    return code;
  } finally {
    snap.stop();
  }
}
