/**
 * `wmap logs KIND/NAME [--role R] [-f] [--tail N]`: the logs of every pod of a role (or of the
 * whole workload), each line prefixed `[pod/NAME/CONTAINER]` as `kubectl logs --prefix` does. With
 * `-f` it follows every pod's log at once and picks up pods that appear while it runs (a restarted
 * worker, a scaled-up group) until interrupted; like kubectl, it refuses to open more streams than
 * `--max-log-requests`.
 */
import type { KubeObject, TreePod, WorkloadTree } from '../engine/index.ts';
import { naturalCompare } from '../../lib/format/natural-order.ts';
import { logPath, type ClusterReader } from '../workloads/pod-inspect.ts';
import { connectOnce, findResolved, type LiveFlags } from './live-commands.ts';
import { UsageError, type Io } from './offline.ts';

export interface LogsFlags extends LiveFlags {
  role?: string;
  follow?: boolean;
  tail?: string;
  container?: string;
  allContainers?: boolean;
  previous?: boolean;
  timestamps?: boolean;
  prefix?: boolean;
  maxLogRequests?: string;
}

/** Pods of the role (its name as the tree gives it, or its component or instance), in natural order. */
export function podsOfRole(tree: WorkloadTree, role: string | undefined): TreePod[] {
  let pods = [...tree.pods, ...tree.unmatchedPods];
  if (role) {
    const r = tree.roles.find((x) => x.name === role) ?? tree.roles.find((x) => x.instance === role || x.component === role);
    if (!r) throw new UsageError(`no role "${role}" in ${tree.workload.kind} ${tree.workload.name} (roles: ${tree.roles.map((x) => x.name).join(', ') || 'none'})`);
    pods = tree.pods.filter((p) => p.component === r.component && p.instance === r.instance);
  }
  return pods.sort((a, b) => naturalCompare(a.name, b.name));
}

/** The containers to read: `-c`, every one with `--all-containers`, else the default container (kubectl's annotation) or the first. */
export function containersOf(pod: KubeObject, flags: Pick<LogsFlags, 'container' | 'allContainers'>): string[] {
  const spec = (pod.spec ?? {}) as { containers?: Array<{ name?: string }> };
  const names = (spec.containers ?? []).map((c) => c.name ?? '').filter(Boolean);
  if (flags.container) return names.includes(flags.container) ? [flags.container] : [];
  if (flags.allContainers) return names;
  const preferred = pod.metadata?.annotations?.['kubectl.kubernetes.io/default-container'];
  return preferred && names.includes(preferred) ? [preferred] : names.slice(0, 1);
}

/** Splits a stream's chunks into whole lines, each printed with the prefix. */
function linePrinter(prefix: string, out: (line: string) => void): { write(chunk: string): void; end(): void } {
  let buf = '';
  return {
    write(chunk) {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        out(prefix + buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    },
    end() {
      if (buf) out(prefix + buf);
      buf = '';
    },
  };
}

interface Stream {
  pod: string;
  uid: string;
  container: string;
  /** Why there is no log to read yet (a pod no node runs: the API server answers with nothing). */
  noLog?: string;
}

/** `until` ends a follow (tests); otherwise SIGINT or SIGTERM does. */
export async function cmdLogs(ref: string, flags: LogsFlags, io: Io, until?: AbortSignal): Promise<number> {
  const tail = flags.tail === undefined ? undefined : Number(flags.tail);
  if (tail !== undefined && (!Number.isInteger(tail) || tail < -1)) throw new UsageError(`--tail must be a whole number (-1 for all), got "${flags.tail}"`);
  const maxStreams = Number(flags.maxLogRequests ?? 10);
  if (!Number.isInteger(maxStreams) || maxStreams < 1) throw new UsageError('--max-log-requests must be a positive whole number');
  const { live, cluster, namespace } = await connectOnce(flags);
  const reader = live.reader(cluster) as ClusterReader;
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  until?.addEventListener('abort', stop, { once: true });
  let printed = 0;
  let failed = 0;
  try {
    const first = findResolved(live, cluster, namespace, ref);
    const ns = first.tree.workload.namespace;
    const query = (container: string) => ({ container, previous: flags.previous, timestamps: flags.timestamps, follow: flags.follow, tailLines: tail === undefined || tail < 0 ? undefined : tail });
    const prefix = (s: Stream) => (flags.prefix === false ? '' : `[pod/${s.pod}/${s.container}] `);
    const streamsOf = (resolved: typeof first): Stream[] => {
      const byUid = new Map(resolved.owned.map((o) => [o.metadata?.uid, o] as const));
      if (resolved.object.kind === 'Pod') byUid.set(resolved.object.metadata?.uid, resolved.object);
      return podsOfRole(resolved.tree, flags.role).flatMap((p) => {
        const obj = byUid.get(p.uid);
        const noLog = p.node ? undefined : `not scheduled yet${p.why ? ` (${p.why.reason}: ${p.why.message.replace(/\s+/g, ' ').trim()})` : ''}: no log yet`;
        return obj ? containersOf(obj, flags).map((container) => ({ pod: p.name, uid: p.uid, container, noLog })) : [];
      });
    };
    const read = async (s: Stream, out: (line: string) => void) => {
      if (s.noLog) {
        io.err(`wmap: pod ${s.pod}: ${s.noLog}`);
        return;
      }
      const printer = linePrinter(prefix(s), out);
      try {
        await reader.streamText(logPath(ns, s.pod, query(s.container)), (c) => printer.write(c), ac.signal);
        printer.end();
        printed++;
      } catch (e) {
        printer.end();
        if (ac.signal.aborted) return;
        failed++;
        io.err(`wmap: pod ${s.pod}: ${e instanceof Error ? e.message : String(e)}`);
      }
    };

    const initial = streamsOf(first);
    if (initial.length === 0) throw new UsageError(`${ref}${flags.role ? ` role ${flags.role}` : ''} has no pods${flags.container ? ` with a container named ${flags.container}` : ''}`);
    if (!flags.follow) {
      // One after another, so each pod's lines stay together, in natural order.
      for (const s of initial) {
        if (ac.signal.aborted) break;
        const lines: string[] = [];
        await read(s, (l) => lines.push(l));
        for (const l of lines) io.out(l);
      }
      return printed > 0 || failed === 0 ? 0 : 1;
    }
    if (initial.length > maxStreams) {
      throw new UsageError(`you are attempting to follow ${initial.length} log streams, but the maximum allowed concurrency is ${maxStreams}; use --max-log-requests to increase the limit`);
    }
    // Follow: every stream at once; pods that appear later join (a pod replaced under the same name is
    // a new uid, so it joins too); a stream that ended is not read again.
    const open = new Map<string, Promise<void>>();
    const seen = new Set<string>();
    const key = (s: Stream) => `${s.uid}/${s.container}${s.noLog ? '/unscheduled' : ''}`;
    const join = (s: Stream) => {
      if (seen.has(key(s)) || open.size >= maxStreams) return;
      seen.add(key(s));
      open.set(key(s), read(s, io.out).finally(() => open.delete(key(s))));
    };
    initial.forEach(join);
    while (!ac.signal.aborted) {
      await new Promise((r) => setTimeout(r, 1000));
      live.index.flush();
      try {
        streamsOf(findResolved(live, cluster, namespace, ref)).forEach(join);
      } catch {
        // The workload is gone: its streams end on their own.
        if (open.size === 0) break;
      }
    }
    await Promise.all(open.values());
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    ac.abort();
    live.stop();
  }
}
